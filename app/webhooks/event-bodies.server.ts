// Every webhook event body, built here once (decision 045): the Standard Webhooks envelope
// `{type, timestamp, data}`, and the lead as lead.created and lead.deleted carry it (also
// what GET /api/leads/:id shows). The areas that announce a change (leads, capture,
// support) call these; this module imports no area but forms' types, so the webhooks area
// builds a lead's body from storage (../storage/lead-detail-store.server.ts) without the
// leads area, which announces through it.
import type { FormField, LeadData } from "~/forms/schema/form-schema";
import { db, type Lead, type LeadStatus, type Prisma } from "~/storage/db.server";
import { leadsWithFields } from "~/storage/leads/lead-detail-store.server";
import type { UnbuiltEvent } from "~/storage/webhooks/webhook-event-store.server";
import { env } from "~/utils/env.server";
import { log } from "~/utils/log.server";

const APP_URL = env.APP_URL.replace(/\/+$/, "");

/** A Standard Webhooks body: `{type, timestamp, data}`. */
export function eventBody(type: string, createdAt: Date, data: unknown): string {
  return JSON.stringify({ type, timestamp: createdAt.toISOString(), data });
}

export type Utm = {
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  utm_term: string | null;
  utm_content: string | null;
};

export type LeadOwner = { id: string; name: string | null; email: string };

export type LabelledField = Pick<FormField, "key" | "label" | "type">;

/** A file uploaded with a lead (decision 064); `url` downloads it with a token that reads leads. */
export type LeadFileDetail = {
  id: string;
  field: string;
  filename: string;
  contentType: string;
  size: number;
  url: string;
};

/** A lead as the `lead.created` and `lead.deleted` webhooks carry it (and GET /api/leads/:id shows it). */
export type LeadDetail = {
  id: string;
  formId: string;
  formName: string;
  createdAt: string;
  /** The stage, or `spam` (then isSpam is true too). */
  status: LeadStatus | "spam";
  isSpam: boolean;
  owner: LeadOwner | null;
  tags: string[];
  /** The lead's address (its form's first email field), lower-cased. */
  email: string | null;
  schemaVersion: number;
  data: LeadData;
  utm: Utm;
  referrerHost: string | null;
  /** The fields of the schema version the lead was stored under, in order. */
  fields: LabelledField[];
  referrerUrl: string | null;
  landingPageUrl: string | null;
  userAgent: string | null;
  /** Double opt-in (decision 067): still waiting for its visitor to confirm the address. */
  awaitingConfirmation: boolean;
  /** When its visitor confirmed the address (double opt-in), or null. */
  confirmedAt: string | null;
  /** What its visitor agreed to by ticking consent fields (decision 065), in the fields' order. */
  consents: Consent[];
  /** The files uploaded with it, in the order they came. */
  files: LeadFileDetail[];
};

/** A consent a lead's visitor gave: the field, the exact text shown, its version, when. */
export type Consent = { field: string; text: string; version: string; acceptedAt: string };

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

function labelled(fields: unknown): LabelledField[] {
  if (!Array.isArray(fields)) return [];
  return fields
    .filter((field): field is FormField => typeof field?.key === "string")
    .map((field) => ({ key: field.key, label: String(field.label ?? field.key), type: field.type }));
}

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
  Partial<Pick<Lead, "status" | "awaitingConfirmation" | "confirmedAt">> & {
    formName: string;
    /** A new lead has neither. */
    owner?: LeadOwner | null;
    tags?: string[];
    data: LeadData;
    /** The fields of the schema version the lead was stored under. */
    fields: unknown;
    /** Its consent records (a new lead's are not read back). */
    consents?: ReadonlyArray<{ fieldKey: string; text: string; version: string; acceptedAt: Date }>;
    /** Its uploaded files (none when absent). */
    files?: ReadonlyArray<Omit<LeadFileDetail, "url">>;
  };

/** Where a lead's file is downloaded through the API (the dashboard's is the same without /api). */
export function leadFilePath(leadId: string, fileId: string): string {
  return `/api/leads/${encodeURIComponent(leadId)}/files/${encodeURIComponent(fileId)}`;
}

/** A lead as `GET /api/leads/:id` shows it and its lead.created and lead.deleted carry it. */
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
    status: lead.isSpam ? "spam" : (lead.status ?? "new"),
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
    awaitingConfirmation: lead.awaitingConfirmation ?? false,
    confirmedAt: lead.confirmedAt?.toISOString() ?? null,
    consents: (lead.consents ?? [])
      .map((consent) => ({
        field: consent.fieldKey,
        text: consent.text,
        version: consent.version,
        acceptedAt: consent.acceptedAt.toISOString(),
      }))
      .sort((a, b) => fieldOrder(fields, a.field) - fieldOrder(fields, b.field)),
    files: (lead.files ?? []).map((file) => ({
      id: file.id,
      field: file.field,
      filename: file.filename,
      contentType: file.contentType,
      size: file.size,
      url: `${APP_URL}${leadFilePath(lead.id, file.id)}`,
    })),
  };
}

const fieldOrder = (fields: LabelledField[], key: string) => {
  const at = fields.findIndex((field) => field.key === key);
  return at === -1 ? fields.length : at;
};

/**
 * The bodies of lead.created events written without one, by event id (the webhook worker
 * builds them when it fans the events out, and a delete for the leads it is about to
 * delete: decision 028). Each is the lead as it was created: its submission and source as
 * stored, with the stage, owner and tags every new lead has (not those staff may have set
 * since), its form's name as it is now. Null for an event whose lead is gone.
 */
export async function leadCreatedBodies(
  events: readonly UnbuiltEvent[],
  client: Prisma.TransactionClient = db,
): Promise<Map<string, string | null>> {
  if (events.length === 0) return new Map();
  const leads = await leadsWithFields(
    events.flatMap((event) => (event.leadId ? [event.leadId] : [])),
    client,
  );
  const byId = new Map(leads.map((lead) => [lead.id, lead]));
  return new Map(
    events.map((event) => {
      const lead = event.leadId ? byId.get(event.leadId) : undefined;
      if (!lead) return [event.id, null];
      try {
        const created = leadDetailOf({
          ...lead,
          data: lead.data as LeadData,
          status: undefined,
          isSpam: false,
          owner: null,
          tags: [],
        });
        return [event.id, eventBody("lead.created", event.createdAt, created)];
      } catch (error) {
        // A lead whose stored row cannot be read as a lead (written by hand, say) would
        // otherwise hold back every event after it: this one is dropped, and said so.
        log.error(`lead.created ${event.id}: no body could be built from lead ${lead.id}`, error);
        return [event.id, null];
      }
    }),
  );
}

/** A staff user as an event names them: the actor, or a lead's owner. */
export type Person = { id: string; email: string; name: string | null };

/** What a lead.updated says changed: only what did. */
export type LeadChanges = {
  status?: { from: string; to: string };
  owner?: { from: Person | null; to: Person | null };
  tags?: { added: string[]; removed: string[] };
};

/** A lead.updated body: the lead, what changed, and who changed it (decision 041). */
export function leadUpdatedBody(
  lead: { id: string; formId: string },
  changes: LeadChanges,
  actor: Person | null,
  at: Date,
): string {
  return eventBody("lead.updated", at, { id: lead.id, formId: lead.formId, changes, actor });
}
