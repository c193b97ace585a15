// A stored lead as staff and webhooks see it: its summary in a list, its detail (labelled
// by the schema version it was stored under), its status as one value. The columns to
// select and what they become, without a query of its own: lead.server.ts,
// lead-history.server.ts, the notifications and the webhooks read leads through it, so
// that none of them needs another's reads.
import type { FormField, LeadData } from "~/forms/form-schema";
import type { Lead, Prisma } from "~/storage/db.server";
import type { LeadStatusValue } from "./lead-filters.server";

type Stage = Exclude<LeadStatusValue, "spam">;

/** A lead's status as one value: its stage, or `spam` while the flag is set. */
export const statusOf = (lead: { status: string; isSpam: boolean }): LeadStatusValue =>
  lead.isSpam ? "spam" : (lead.status as Stage);

/** The columns of a lead a list shows (leadDetailSelect adds what its detail shows). */
const listSelect = {
  id: true,
  formId: true,
  createdAt: true,
  isSpam: true,
  schemaVersion: true,
  data: true,
  utmSource: true,
  utmMedium: true,
  utmCampaign: true,
  utmTerm: true,
  utmContent: true,
  referrerHost: true,
  status: true,
  ownerId: true,
  email: true,
} satisfies Prisma.LeadSelect;

export type Utm = {
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  utm_term: string | null;
  utm_content: string | null;
};

export type LeadOwner = { id: string; name: string | null; email: string };

export type LeadSummary = {
  id: string;
  formId: string;
  formName: string;
  createdAt: string;
  /** The stage, or `spam` (then isSpam is true too). */
  status: LeadStatusValue;
  isSpam: boolean;
  owner: LeadOwner | null;
  tags: string[];
  /** The lead's address (its form's first email field), lower-cased. */
  email: string | null;
  schemaVersion: number;
  data: LeadData;
  utm: Utm;
  referrerHost: string | null;
};

export function utmOf(lead: {
  utmSource: string | null;
  utmMedium: string | null;
  utmCampaign: string | null;
  utmTerm: string | null;
  utmContent: string | null;
}): Utm {
  return {
    utm_source: lead.utmSource,
    utm_medium: lead.utmMedium,
    utm_campaign: lead.utmCampaign,
    utm_term: lead.utmTerm,
    utm_content: lead.utmContent,
  };
}

export type LabelledField = Pick<FormField, "key" | "label" | "type">;

/** A lead as the `lead.created` and `lead.deleted` webhooks carry it. */
export type LeadDetail = LeadSummary & {
  /** The fields of the schema version the lead was stored under, in order. */
  fields: LabelledField[];
  referrerUrl: string | null;
  landingPageUrl: string | null;
  userAgent: string | null;
};

function labelled(fields: unknown): LabelledField[] {
  if (!Array.isArray(fields)) return [];
  return fields
    .filter((field): field is FormField => typeof field?.key === "string")
    .map((field) => ({ key: field.key, label: String(field.label ?? field.key), type: field.type }));
}

/** The columns of a lead that leadDetailOf shows. */
export const leadDetailSelect = {
  ...listSelect,
  referrerUrl: true,
  landingPageUrl: true,
  userAgent: true,
} satisfies Prisma.LeadSelect;

/** The stored columns of a lead, its form's name and its schema version's fields. */
export type LeadParts = Pick<
  Lead,
  | "id"
  | "formId"
  | "createdAt"
  | "isSpam"
  | "schemaVersion"
  | "utmSource"
  | "utmMedium"
  | "utmCampaign"
  | "utmTerm"
  | "utmContent"
  | "referrerUrl"
  | "referrerHost"
  | "landingPageUrl"
  | "userAgent"
  | "email"
> &
  Partial<Pick<Lead, "status">> & {
    formName: string;
    /** A new lead has neither. */
    owner?: LeadOwner | null;
    tags?: string[];
    data: LeadData;
    /** The fields of the schema version the lead was stored under. */
    fields: unknown;
  };

/** A lead as `GET /api/leads/:id` shows it (and as the `lead.created` webhook carries it). */
export function leadDetailOf(lead: LeadParts): LeadDetail {
  const fields = labelled(lead.fields);
  // Keys stored without a field in that version (should not happen) still show, by key.
  for (const key of Object.keys(lead.data)) {
    if (!fields.some((field) => field.key === key)) fields.push({ key, label: key, type: "text" });
  }
  return {
    id: lead.id,
    formId: lead.formId,
    formName: lead.formName,
    createdAt: lead.createdAt.toISOString(),
    status: statusOf({ status: lead.status ?? "new", isSpam: lead.isSpam }),
    isSpam: lead.isSpam,
    owner: lead.owner ?? null,
    tags: lead.tags ?? [],
    email: lead.email,
    schemaVersion: lead.schemaVersion,
    data: lead.data,
    fields,
    utm: utmOf(lead),
    referrerUrl: lead.referrerUrl,
    referrerHost: lead.referrerHost,
    landingPageUrl: lead.landingPageUrl,
    userAgent: lead.userAgent,
  };
}
