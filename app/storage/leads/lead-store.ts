// The storage interface of leads: what the domain code (app/leads, app/capture) asks of the Lead
// table where Prisma's per-query cost would be most of a request (docs/decisions/003 and
// 021). One implementation per database, chosen once at start (./index.server.ts); the
// column lists are checked against the Prisma model, rows are mapped by name, and the
// filters become SQL in one place, leadConditions below, for both databases.
import type { Lead } from "~/storage/db.server";
import { histogram } from "~/utils/metrics.server";
import { dayRange, spamValues, type Cursor, type LeadData, type LeadQuery, type LeadStatusValue } from "./lead-types";
import type { NewConsent } from "../consent-store.server";
import type { StaffEmail } from "../outbox-store.server";
import type { LeadCreatedEventRow, LeadUpdatedEventRow } from "../webhooks/webhook-event-store.server";

/**
 * Leads per group commit (decisions 026 and 027), observed by both stores: how many leads
 * share each commit's fixed cost. Always 1 means no load to share; 64 (the most a batch
 * takes) means the writer is the bottleneck.
 */
export const commitBatchSizes = histogram({
  name: "leadcapture_lead_commit_batch_size",
  help: "Leads written by one group commit (at most 64).",
  buckets: [1, 2, 4, 8, 16, 32, 64],
});

/** The columns a page of leads reads (a column the model lacks fails to compile). */
export const LEAD_ROW_COLUMNS = [
  "id",
  "createdAt",
  "formId",
  "isSpam",
  "schemaVersion",
  "data",
  "utmSource",
  "utmMedium",
  "utmCampaign",
  "utmTerm",
  "utmContent",
  "referrerHost",
  "referrerUrl",
  "landingPageUrl",
  "status",
  "ownerId",
  "email",
  "awaitingConfirmation",
] as const satisfies ReadonlyArray<keyof Lead>;

/** A lead as a page gives it: the model's columns, the time as ISO 8601 (UTC), the data parsed. */
export type LeadRow = Omit<Pick<Lead, (typeof LEAD_ROW_COLUMNS)[number]>, "createdAt" | "data"> & {
  createdAt: string;
  data: LeadData;
};

export type LeadPosition = Pick<LeadRow, "id" | "createdAt">;

/** A bulk change: a status as staff see it (`spam` is the flag), or an owner (null: none). */
export type LeadChange = { kind: "status"; to: LeadStatusValue } | { kind: "owner"; to: string | null };

/** A lead a bulk change changed: its form, and its value before (for the timeline and the event). */
export type ChangedLead = { id: string; formId: string; before: string | null };

/** The events a batch of changed leads announces, built without waiting (inside its transaction). */
export type AnnounceChanges = (changed: readonly ChangedLead[], at: Date) => LeadUpdatedEventRow[];

/**
 * The SQL of a change: which leads it changes (`pending`), the SET of the UPDATE, and the
 * value before (for the timeline). `to` is the placeholder of the new value; `yes`/`no`
 * the database's boolean literals; `status` the status column as text.
 */
export function changeSql(
  change: LeadChange,
  sql: { to: string; yes: string; no: string; status: string },
): { pending: string; set: string; before: string; daily: { where: string; count: string } | null } {
  if (change.kind === "owner") {
    return change.to === null
      ? { pending: `"ownerId" IS NOT NULL`, set: `"ownerId" = NULL`, before: `"ownerId"`, daily: null }
      : {
          pending: `("ownerId" IS NULL OR "ownerId" <> ${sql.to})`,
          set: `"ownerId" = ${sql.to}`,
          before: `"ownerId"`,
          daily: null,
        };
  }
  const before = `CASE WHEN "isSpam" = ${sql.yes} THEN 'spam' ELSE ${sql.status} END`;
  // `daily`: the changed leads whose spam flag flips, and what each adds to the daily rollup.
  return change.to === "spam"
    ? {
        pending: `"isSpam" = ${sql.no}`,
        set: `"isSpam" = ${sql.yes}`,
        before,
        daily: { where: `"isSpam" = ${sql.no}`, count: "-COUNT(*)" },
      }
    : {
        pending: `("isSpam" = ${sql.yes} OR ${sql.status} <> ${sql.to})`,
        set: `"isSpam" = ${sql.no}, "status" = ${sql.to}`,
        before,
        daily: { where: `"isSpam" = ${sql.yes}`, count: "COUNT(*)" },
      };
}

/** The columns a new lead is written with, in the order of the INSERT. */
export const NEW_LEAD_COLUMNS = [
  "id",
  "formId",
  "schemaVersion",
  "data",
  "searchText",
  "utmSource",
  "utmMedium",
  "utmCampaign",
  "utmTerm",
  "utmContent",
  "referrerUrl",
  "referrerHost",
  "landingPageUrl",
  "userAgent",
  "ipHash",
  "isSpam",
  "idempotencyKey",
  "createdAt",
  "email",
  "awaitingConfirmation",
] as const satisfies ReadonlyArray<keyof Lead>;

export type NewLead = Omit<Pick<Lead, (typeof NEW_LEAD_COLUMNS)[number]>, "data"> & {
  data: LeadData;
  /** The name its person gave (app/leads/lead-name.ts), kept on their Person row (decision 071). */
  personName?: string | null;
};

/**
 * A new lead's INSERT values, in NEW_LEAD_COLUMNS order, each read by name. Written out
 * rather than mapped over the column list: this is the submit endpoint's hot path, where
 * a keyed lookup per column cost about a tenth of the request's CPU (decision 021).
 * tests/unit/lead-store.test.ts checks the order against NEW_LEAD_COLUMNS.
 */
export function newLeadValues(lead: NewLead, dialect: Pick<Dialect, "time" | "bool">): unknown[] {
  return [
    lead.id,
    lead.formId,
    lead.schemaVersion,
    JSON.stringify(lead.data),
    lead.searchText,
    lead.utmSource,
    lead.utmMedium,
    lead.utmCampaign,
    lead.utmTerm,
    lead.utmContent,
    lead.referrerUrl,
    lead.referrerHost,
    lead.landingPageUrl,
    lead.userAgent,
    lead.ipHash,
    dialect.bool(lead.isSpam),
    lead.idempotencyKey,
    dialect.time(lead.createdAt),
    lead.email,
    dialect.bool(lead.awaitingConfirmation),
  ];
}

export interface LeadStore {
  /**
   * Writes one lead, and with it (in the same transaction) its lead.created event (to be
   * fanned out to its deliveries, and its body built, by the webhook worker) and the
   * notification emails it sends, if any; a second lead with the same (formId,
   * idempotencyKey) throws a unique violation. `completesPartial`, the stored key of the
   * partial lead this one finishes (decision 060), deletes that partial of the same form in
   * the same transaction: stored together, or neither. `consents`, what the visitor agreed
   * to by ticking consent fields (decision 065), are written with it too. `files`, the ids of
   * the files uploaded with it (written unlinked: ../lead-file-store.server.ts), are linked to
   * it in the same transaction too; one no longer there fails the lead (decision 064).
   * Its address's person is noted with it too (decision 071: ../people/person-arrival.server.ts).
   */
  insert(
    lead: NewLead,
    event?: LeadCreatedEventRow | null,
    emails?: readonly StaffEmail[],
    completesPartial?: string | null,
    consents?: readonly NewConsent[],
    files?: readonly string[],
  ): Promise<void>;
  /** One keyset page of the leads matching the filters, newest first (createdAt desc, id desc). */
  page(filters: LeadQuery, cursor: Cursor | undefined, take: number): Promise<LeadRow[]>;
  /** The positions (id, createdAt) of one keyset page: what a bulk action walks. */
  positions(filters: LeadQuery, cursor: Cursor | undefined, take: number): Promise<LeadPosition[]>;
  /** How many leads match the filters. */
  count(filters: LeadQuery): Promise<number>;
  /**
   * Sets a status or an owner on the leads among `ids` that do not have it yet, each with
   * its timeline entry and the events `announce` gives for them, in one transaction;
   * answers how many changed (a bulk action's batch: decision 030).
   */
  changeLeads(
    ids: readonly string[],
    change: LeadChange,
    actorId: string | null,
    announce?: AnnounceChanges,
  ): Promise<number>;
  /** The ids of the forms with at least one lead matching the filters. */
  formIdsMatching(filters: LeadQuery): Promise<string[]>;
  /** Of `fields`, those that at least one lead matching the filters holds a value for. */
  fieldsWithValues(filters: LeadQuery, fields: readonly FormField[]): Promise<FormField[]>;
  /** Form names by id (for the forms of a page of leads). */
  formNames(formIds: string[]): Promise<Map<string, string>>;
}

// A lead's lead.created and its notification emails are written in its transaction by the
// statements their pipelines own (./webhook-event-store.server.ts, ./outbox-store.server.ts:
// decision 045).

// ---------------------------------------------------------------------------
// The one filter builder

/** What differs between the two databases' SQL for the same filter. */
export type Dialect = {
  /** The placeholder of the n-th parameter (1-based): `?` or `$n`. */
  placeholder(n: number): string;
  /** A time as the database compares it. */
  time(date: Date): unknown;
  /** A boolean as the database stores it. */
  bool(value: boolean): unknown;
  /** A literal substring test (no LIKE wildcards to escape): `instr` or `strpos`. */
  contains(column: string, placeholder: string): string;
  /** The text of one field of `data`, its key (or JSON path) the parameter `fieldParam` gives. */
  fieldText(placeholder: string): string;
  fieldParam(key: string): string;
};

/**
 * The WHERE of a lead query for one spam value (`all` is read as two index-ordered runs,
 * merged by the caller: no index orders every lead by (createdAt, id) alone), and its
 * parameters. `searchText` is stored lower-cased and `q` is lower-cased on parsing, so
 * the substring test is case-insensitive on both databases.
 */
export function leadConditions(
  filters: LeadQuery,
  cursor: Cursor | undefined,
  isSpam: boolean,
  dialect: Dialect,
): { where: string; params: unknown[] } {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const next = (value: unknown) => {
    params.push(value);
    return dialect.placeholder(params.length);
  };
  conditions.push(`"isSpam" = ${next(dialect.bool(isSpam))}`);
  if (filters.formId) conditions.push(`"formId" = ${next(filters.formId)}`);
  const range = dayRange(filters.from, filters.to);
  if (range.gte) conditions.push(`"createdAt" >= ${next(dialect.time(range.gte))}`);
  if (range.lt) conditions.push(`"createdAt" < ${next(dialect.time(range.lt))}`);
  if (filters.utm_source) conditions.push(`"utmSource" = ${next(filters.utm_source)}`);
  if (filters.utm_medium) conditions.push(`"utmMedium" = ${next(filters.utm_medium)}`);
  if (filters.utm_campaign) conditions.push(`"utmCampaign" = ${next(filters.utm_campaign)}`);
  if (filters.q) conditions.push(dialect.contains(`"searchText"`, next(filters.q)));
  // `spam` is the isSpam flag above (spamValues); a stage is the status column.
  if (filters.status && filters.status !== "spam") conditions.push(`"status" = ${next(filters.status)}`);
  if (filters.ownerId === "none") conditions.push(`"ownerId" IS NULL`);
  else if (filters.ownerId) conditions.push(`"ownerId" = ${next(filters.ownerId)}`);
  if (filters.confirmed !== undefined) {
    conditions.push(`"awaitingConfirmation" = ${next(dialect.bool(!filters.confirmed))}`);
  }
  if (filters.ids) conditions.push(`"id" IN (${filters.ids.map((id) => next(id)).join(", ")})`);
  if (filters.tag) {
    conditions.push(`EXISTS (SELECT 1 FROM "LeadTag" WHERE "leadId" = "Lead"."id" AND "tag" = ${next(filters.tag)})`);
  }
  if (cursor) {
    // Rows strictly after the cursor. The `<=` gives the database an index range to
    // start from; the OR alone would make it scan from the top.
    const at = dialect.time(cursor.createdAt);
    conditions.push(`"createdAt" <= ${next(at)} AND ("createdAt" < ${next(at)} OR "id" < ${next(cursor.id)})`);
  }
  return { where: conditions.join(" AND "), params };
}

/** A field a form no longer has, whose column an export shows only if some lead fills it. */
export type FormField = { formId: string; key: string };

/**
 * Whether any lead matching the filters (for one spam value) holds a value for the field:
 * not absent, null, empty text or an empty list, the cells an export leaves blank. EXISTS
 * stops at the first such lead.
 */
export function fieldHasValueSql(
  filters: LeadQuery,
  field: FormField,
  isSpam: boolean,
  dialect: Dialect,
): { sql: string; params: unknown[] } {
  const { where, params } = leadConditions({ ...filters, formId: field.formId }, undefined, isSpam, dialect);
  params.push(dialect.fieldParam(field.key));
  const value = `COALESCE(CAST(${dialect.fieldText(dialect.placeholder(params.length))} AS TEXT), '')`;
  return {
    sql: `SELECT EXISTS (SELECT 1 FROM "Lead" WHERE ${where} AND ${value} NOT IN ('', '[]')) AS "found"`,
    params,
  };
}

/** The page's SQL for one spam value: the filters, newest first, `take` rows. */
export function leadPageSql(
  filters: LeadQuery,
  cursor: Cursor | undefined,
  take: number,
  isSpam: boolean,
  dialect: Dialect,
  columns: string,
): { sql: string; params: unknown[] } {
  const { where, params } = leadConditions(filters, cursor, isSpam, dialect);
  params.push(take);
  const sql = `SELECT ${columns} FROM "Lead" WHERE ${where} ORDER BY "createdAt" DESC, "id" DESC LIMIT ${dialect.placeholder(params.length)}`;
  return { sql, params };
}

/** Reads one run per spam value the filters ask for and merges them, newest first. */
export async function mergedRuns<Row extends LeadPosition>(
  filters: LeadQuery,
  take: number,
  run: (isSpam: boolean) => Promise<Row[]>,
): Promise<Row[]> {
  const runs = await Promise.all(spamValues(filters).map(run));
  if (runs.length === 1) return runs[0];
  // ISO 8601 times in UTC with milliseconds compare as text in time order.
  return runs
    .flat()
    .sort((a, b) =>
      a.createdAt !== b.createdAt ? (a.createdAt < b.createdAt ? 1 : -1) : a.id < b.id ? 1 : a.id > b.id ? -1 : 0,
    )
    .slice(0, take);
}

/**
 * The forms with a lead matching the filters, for one spam value: one index probe per form
 * ([formId, isSpam, createdAt, id]) rather than a DISTINCT over every matching lead.
 * The conditions name the lead's columns unqualified, which resolve to "Lead" inside.
 */
export function formIdsMatchingSql(
  filters: LeadQuery,
  isSpam: boolean,
  dialect: Dialect,
): { sql: string; params: unknown[] } {
  const { where, params } = leadConditions(filters, undefined, isSpam, dialect);
  return {
    sql: `SELECT "Form"."id" AS "formId" FROM "Form" WHERE EXISTS (SELECT 1 FROM "Lead" WHERE "Lead"."formId" = "Form"."id" AND ${where})`,
    params,
  };
}

/** The count's SQL for one spam value. */
export function leadCountSql(
  filters: LeadQuery,
  isSpam: boolean,
  dialect: Dialect,
): { sql: string; params: unknown[] } {
  const { where, params } = leadConditions(filters, undefined, isSpam, dialect);
  return { sql: `SELECT COUNT(*) AS "count" FROM "Lead" WHERE ${where}`, params };
}

export const quoted = (columns: readonly string[]) => columns.map((column) => `"${column}"`).join(", ");
