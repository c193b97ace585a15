// Reading and removing stored leads: the filtered, keyset-paginated list (API and
// dashboard), one lead labelled by the schema version it was stored under, and the
// per-form source breakdown. The filters are in lead-filters.server.ts; pages are read
// through the LeadStore (app/storage); storing leads lives in lead-capture.server.ts,
// files in lead-export.server.ts.
import { z } from "zod";
import type { FormField, LeadData } from "~/models/form-schema";
import { leadStore } from "~/storage/index.server";
import { db, type Lead, type Prisma } from "~/utils/db.server";
import { DaySchema } from "~/utils/keyset.server";
import { cursorOf, dayRange, MS_PER_DAY, optional, text, type LeadListQuery } from "./lead-filters.server";
import { nudgeWebhooks } from "./webhook-delivery.server";
import { eventFor, writeWebhookEvent } from "./webhook-events.server";

// ---------------------------------------------------------------------------
// List

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
} satisfies Prisma.LeadSelect;

export type Utm = {
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  utm_term: string | null;
  utm_content: string | null;
};

export type LeadSummary = {
  id: string;
  formId: string;
  formName: string;
  createdAt: string;
  isSpam: boolean;
  schemaVersion: number;
  data: LeadData;
  utm: Utm;
  referrerHost: string | null;
};

function utmOf(lead: {
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

/** A page of leads, newest first, and the cursor of the next page (null on the last). */
export async function listLeads(query: LeadListQuery): Promise<{ leads: LeadSummary[]; nextCursor: string | null }> {
  const rows = await leadStore.page(query, query.cursor, query.limit + 1);
  const page = rows.slice(0, query.limit);
  const names = await leadStore.formNames(page.map((row) => row.formId));
  const last = page[page.length - 1];
  return {
    leads: page.map((row) => ({
      id: row.id,
      formId: row.formId,
      formName: names.get(row.formId) ?? "",
      createdAt: row.createdAt,
      isSpam: row.isSpam,
      schemaVersion: row.schemaVersion,
      data: row.data,
      utm: utmOf(row),
      referrerHost: row.referrerHost,
    })),
    nextCursor:
      rows.length > query.limit && last ? cursorOf({ createdAt: new Date(last.createdAt), id: last.id }) : null,
  };
}

// ---------------------------------------------------------------------------
// One lead

export type LabelledField = Pick<FormField, "key" | "label" | "type">;

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

export async function getLead(id: string): Promise<LeadDetail | null> {
  const lead = await db.lead.findUnique({
    where: { id },
    select: { ...leadDetailSelect, form: { select: { name: true, fields: true, schemaVersion: true } } },
  });
  if (!lead) return null;
  const version =
    lead.form.schemaVersion === lead.schemaVersion
      ? null
      : await db.formVersion.findUnique({
          where: { formId_version: { formId: lead.formId, version: lead.schemaVersion } },
          select: { fields: true },
        });
  return leadDetailOf({
    ...lead,
    data: lead.data as LeadData,
    formName: lead.form.name,
    fields: version?.fields ?? lead.form.fields,
  });
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
> & {
  formName: string;
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
    isSpam: lead.isSpam,
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

/**
 * Deletes a lead; false when there was none with this id. Endpoints subscribed to
 * `lead.deleted` get the lead as it was, written in the same transaction as the delete.
 */
export async function deleteLead(id: string): Promise<boolean> {
  const lead = await getLead(id);
  if (!lead) return false;
  // Spam was never announced, so its deletion is not either.
  const event = lead.isSpam ? null : await eventFor("lead.deleted", lead.formId, () => lead);
  const deleted = await db.$transaction(async (tx) => {
    const { count } = await tx.lead.deleteMany({ where: { id } });
    if (count > 0 && event) await writeWebhookEvent(event, tx);
    return count > 0;
  });
  if (deleted && event) nudgeWebhooks();
  return deleted;
}

/** Forms to pick from in filters: id and name, newest first (bounded). */
export async function listFormChoices(): Promise<Array<{ id: string; name: string; status: string }>> {
  return db.form.findMany({
    select: { id: true, name: true, status: true },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: 500,
  });
}

// ---------------------------------------------------------------------------
// Where a form's leads come from

export const MAX_STATS_DAYS = 366;
const TOP_GROUPS = 20;

export const SourceStatsQuerySchema = z
  .object({
    formId: text(64),
    from: optional(DaySchema),
    to: optional(DaySchema),
  })
  .transform((query, ctx) => {
    const today = new Date().toISOString().slice(0, 10);
    const to = query.to ?? today;
    const from =
      query.from ?? new Date(new Date(`${to}T00:00:00Z`).getTime() - 29 * MS_PER_DAY).toISOString().slice(0, 10);
    const days = Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / MS_PER_DAY) + 1;
    if (days < 1) ctx.addIssue({ code: "custom", path: ["to"], message: "The end date is before the start date." });
    else if (days > MAX_STATS_DAYS) {
      ctx.addIssue({ code: "custom", path: ["from"], message: `Choose a period of at most ${MAX_STATS_DAYS} days.` });
    }
    return { formId: query.formId, from, to };
  });
export type SourceStatsQuery = z.output<typeof SourceStatsQuerySchema>;

export type CountBy = { value: string | null; count: number };

export type SourceStats = {
  formId: string;
  formName: string;
  from: string;
  to: string;
  total: number;
  bySource: CountBy[];
  byCampaign: CountBy[];
  byReferrerHost: CountBy[];
  /** One entry per day of the period, zeros included. */
  perDay: Array<{ day: string; count: number }>;
};

/** Counts of a form's (non-spam) leads over a period, by source, campaign, referrer and day. */
export async function getSourceStats(query: SourceStatsQuery): Promise<SourceStats | null> {
  const form = await db.form.findUnique({ where: { id: query.formId }, select: { id: true, name: true } });
  if (!form) return null;
  const range = dayRange(query.from, query.to);
  const where = { formId: form.id, isSpam: false, createdAt: range };
  const [total, bySource, byCampaign, byReferrerHost, perDay] = await Promise.all([
    db.lead.count({ where }),
    countBy("utmSource", where),
    countBy("utmCampaign", where),
    countBy("referrerHost", where),
    leadStore.countPerDay(form.id, range.gte!, range.lt!),
  ]);
  const days: Array<{ day: string; count: number }> = [];
  for (let time = range.gte!.getTime(); time < range.lt!.getTime(); time += MS_PER_DAY) {
    const day = new Date(time).toISOString().slice(0, 10);
    days.push({ day, count: perDay.get(day) ?? 0 });
  }
  return { ...query, formId: form.id, formName: form.name, total, bySource, byCampaign, byReferrerHost, perDay: days };
}

async function countBy(
  column: "utmSource" | "utmCampaign" | "referrerHost",
  where: Prisma.LeadWhereInput,
): Promise<CountBy[]> {
  const groups = await db.lead.groupBy({
    by: [column],
    where,
    _count: { _all: true },
    orderBy: { _count: { id: "desc" } },
    take: TOP_GROUPS,
  });
  return groups.map((group) => ({ value: group[column] ?? null, count: group._count._all }));
}
