// Reading and removing stored leads: the filtered, keyset-paginated list (API and
// dashboard), one lead labelled by the schema version it was stored under, and the
// per-form source breakdown. Storing leads lives in lead-capture.server.ts; files in
// lead-export.server.ts.
import { z } from "zod";
import type { FormField, LeadData } from "~/models/form-schema";
import { db, idleSqlite, isoFromSqlite, isPostgres, prepared, type Prisma, sqliteTime } from "~/utils/db.server";
import { invalidFields, textPolicyDetails, zodDetails, type ErrorDetail } from "~/utils/domain-error";
import { DaySchema, decodeCursor, encodeCursor, INVALID_CURSOR } from "~/utils/keyset.server";
import { textPolicyIssues } from "~/utils/text-policy";

// ---------------------------------------------------------------------------
// Filters

const MS_PER_DAY = 86_400_000;

/** A GET form sends every input, empty ones as ""; an empty value means "no filter". */
const optional = <S extends z.ZodType>(schema: S) =>
  z.preprocess((value) => (value === "" || value === null ? undefined : value), schema.optional());

const text = (max: number) => z.string().trim().min(1).max(max, `Use at most ${max} characters.`);

export const SPAM_VALUES = ["false", "true", "all"] as const;
export type SpamFilter = (typeof SPAM_VALUES)[number];

export const LeadFilterSchema = z
  .object({
    formId: optional(text(64)),
    from: optional(DaySchema),
    to: optional(DaySchema),
    utm_source: optional(text(200)),
    utm_medium: optional(text(200)),
    utm_campaign: optional(text(200)),
    q: optional(text(200).transform((value) => value.toLowerCase())),
    spam: optional(z.enum(SPAM_VALUES, { error: "Use false, true or all." })).transform(
      (value): SpamFilter => value ?? "false",
    ),
  })
  .superRefine((filters, ctx) => {
    if (filters.from && filters.to && filters.from > filters.to) {
      ctx.addIssue({ code: "custom", path: ["to"], message: "The end date is before the start date." });
    }
  });
export type LeadFilters = z.output<typeof LeadFilterSchema>;

export const MAX_PAGE_SIZE = 500;
export const DEFAULT_PAGE_SIZE = 50;

const ListQuerySchema = z.object({
  limit: optional(
    z.coerce
      .number({ error: "Use a whole number." })
      .int("Use a whole number.")
      .min(1, "Use 1 or more.")
      .max(MAX_PAGE_SIZE, `Use ${MAX_PAGE_SIZE} or less.`),
  ).transform((value) => value ?? DEFAULT_PAGE_SIZE),
  cursor: optional(
    z.string().transform((value, ctx) => {
      const position = decodeCursor(value);
      if (!position) {
        ctx.addIssue({ code: "custom", message: INVALID_CURSOR });
        return z.NEVER;
      }
      return { createdAt: position.at, id: position.id };
    }),
  ),
});

export type LeadListQuery = LeadFilters & { limit: number; cursor?: Cursor };

type Parsed<T> = { ok: true; value: T } | { ok: false; details: ErrorDetail[] };

function firstValues(params: URLSearchParams): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [key, value] of params) if (!(key in values)) values[key] = value;
  return values;
}

/** Reads the filters from a query string; `details` names every bad parameter. */
export function parseLeadFilters(params: URLSearchParams): Parsed<LeadFilters> {
  const refused = textPolicyIssues(firstValues(params));
  if (refused.length > 0) return { ok: false, details: textPolicyDetails(refused) };
  const result = LeadFilterSchema.safeParse(firstValues(params));
  return result.success ? { ok: true, value: result.data } : { ok: false, details: zodDetails(result.error) };
}

/** Reads the filters, `limit` and `cursor` of a list request. */
export function parseLeadListQuery(params: URLSearchParams): Parsed<LeadListQuery> {
  const refused = textPolicyIssues(firstValues(params));
  if (refused.length > 0) return { ok: false, details: textPolicyDetails(refused) };
  const filters = LeadFilterSchema.safeParse(firstValues(params));
  const page = ListQuerySchema.safeParse(firstValues(params));
  const details = [
    ...(filters.success ? [] : zodDetails(filters.error)),
    ...(page.success ? [] : zodDetails(page.error)),
  ];
  if (!filters.success || !page.success) return { ok: false, details };
  return { ok: true, value: { ...filters.data, ...page.data } };
}

/** As parseLeadListQuery, or stops with 422 naming the bad parameters. */
export function leadListQueryOrFail(params: URLSearchParams): LeadListQuery {
  const parsed = parseLeadListQuery(params);
  if (!parsed.ok) invalidQuery(parsed.details);
  return parsed.value;
}

export function leadFiltersOrFail(params: URLSearchParams): LeadFilters {
  const parsed = parseLeadFilters(params);
  if (!parsed.ok) invalidQuery(parsed.details);
  return parsed.value;
}

function invalidQuery(details: ErrorDetail[]): never {
  throw invalidFields(details, "The query has invalid parameters.");
}

/** The filters as query parameters, without empty ones (for links and file names). */
export function filtersToSearchParams(filters: Partial<LeadFilters>): URLSearchParams {
  const params = new URLSearchParams();
  for (const key of ["formId", "from", "to", "utm_source", "utm_medium", "utm_campaign", "q"] as const) {
    const value = filters[key];
    if (value) params.set(key, value);
  }
  if (filters.spam && filters.spam !== "false") params.set("spam", filters.spam);
  return params;
}

/** `to` is inclusive: the whole UTC day. */
export function dayRange(from?: string, to?: string): { gte?: Date; lt?: Date } {
  const range: { gte?: Date; lt?: Date } = {};
  if (from) range.gte = new Date(`${from}T00:00:00.000Z`);
  if (to) range.lt = new Date(new Date(`${to}T00:00:00.000Z`).getTime() + MS_PER_DAY);
  return range;
}

/**
 * The filters as a Prisma `where`, without the spam condition: "all" is read as two
 * index-ordered runs (isSpam false, true) merged, because no index orders every lead
 * by (createdAt, id) alone.
 */
export function leadWhere(filters: LeadFilters): Prisma.LeadWhereInput {
  const where: Prisma.LeadWhereInput = {};
  if (filters.formId) where.formId = filters.formId;
  if (filters.from || filters.to) where.createdAt = dayRange(filters.from, filters.to);
  if (filters.utm_source) where.utmSource = filters.utm_source;
  if (filters.utm_medium) where.utmMedium = filters.utm_medium;
  if (filters.utm_campaign) where.utmCampaign = filters.utm_campaign;
  // searchText is stored lower-cased and q is lower-cased on parsing, so this is a
  // case-insensitive match on both databases without `mode: "insensitive"`.
  if (filters.q) where.searchText = { contains: likeLiteral(filters.q) };
  return where;
}

/**
 * Prisma passes `contains` to LIKE without escaping its wildcards; PostgreSQL's LIKE
 * escapes with a backslash by default, so the text is made literal there. (SQLite reads
 * through sqliteLeadPage, which matches with instr(), literally.)
 */
function likeLiteral(q: string): string {
  return isPostgres ? q.replace(/[\\%_]/g, (char) => `\\${char}`) : q;
}

export function spamValues(spam: SpamFilter): boolean[] {
  return spam === "all" ? [false, true] : [spam === "true"];
}

// ---------------------------------------------------------------------------
// Keyset cursor over (createdAt desc, id desc)

export type Cursor = { createdAt: Date; id: string };

function cursorOf(lead: Cursor): string {
  return encodeCursor({ at: lead.createdAt, id: lead.id });
}

/**
 * Rows strictly after the cursor in (createdAt desc, id desc). The `lte` gives both
 * databases an index range to start from; the OR alone would make them scan from the top.
 */
export function afterCursor(cursor: Cursor | undefined): Prisma.LeadWhereInput {
  if (!cursor) return {};
  return {
    AND: [
      { createdAt: { lte: cursor.createdAt } },
      { OR: [{ createdAt: { lt: cursor.createdAt } }, { id: { lt: cursor.id } }] },
    ],
  };
}

export const NEWEST_FIRST = [{ createdAt: "desc" }, { id: "desc" }] satisfies Prisma.LeadOrderByWithRelationInput[];

export function newestFirst(a: Cursor, b: Cursor): number {
  const byTime = b.createdAt.getTime() - a.createdAt.getTime();
  if (byTime !== 0) return byTime;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/**
 * One keyset page of leads matching the filters, newest first: one indexed query per
 * spam value, merged. Returns up to `take` rows.
 */
export async function findLeadPage<S extends Prisma.LeadSelect & { id: true; createdAt: true }>(
  filters: LeadFilters,
  cursor: Cursor | undefined,
  take: number,
  select: S,
): Promise<Array<Prisma.LeadGetPayload<{ select: S }>>> {
  const where = leadWhere(filters);
  const runs = await Promise.all(
    spamValues(filters.spam).map((isSpam) =>
      db.lead.findMany({
        where: { ...where, isSpam, ...afterCursor(cursor) },
        orderBy: NEWEST_FIRST,
        take,
        select,
      }),
    ),
  );
  if (runs.length === 1) return runs[0] as Array<Prisma.LeadGetPayload<{ select: S }>>;
  return (runs.flat() as Array<Prisma.LeadGetPayload<{ select: S }>>)
    .sort((a, b) => newestFirst(a as Cursor, b as Cursor))
    .slice(0, take);
}

// ---------------------------------------------------------------------------
// The same pages on SQLite, read with the driver under Prisma

/*
 * On SQLite the list and the exports read with better-sqlite3 on the connection under
 * Prisma (docs/decisions/003-driver-for-hot-paths.md): Prisma's per-query and per-row
 * work (query compilation, result mapping, Date and JSON conversion) was most of a list
 * request and more than doubled the time of a large export. The filters are leadWhere's;
 * the tests check that both paths return the same leads.
 */
export type LeadRow = {
  id: string;
  /** ISO 8601, UTC. */
  createdAt: string;
  formId: string;
  isSpam: boolean;
  schemaVersion: number;
  data: LeadData;
  utmSource: string | null;
  utmMedium: string | null;
  utmCampaign: string | null;
  utmTerm: string | null;
  utmContent: string | null;
  referrerHost: string | null;
  referrerUrl: string | null;
  landingPageUrl: string | null;
};

const LEAD_ROW_COLUMNS =
  `"id", "createdAt", "formId", "isSpam", "schemaVersion", "data", "utmSource", "utmMedium", "utmCampaign", ` +
  `"utmTerm", "utmContent", "referrerHost", "referrerUrl", "landingPageUrl"`;
type RawLeadRow = [string, string, string, number | bigint, number | bigint, string, ...Array<string | null>];

/** SQLite only: one keyset page of leads matching the filters, newest first. */
export async function sqliteLeadPage(
  filters: LeadFilters,
  cursor: Cursor | undefined,
  take: number,
): Promise<LeadRow[]> {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const where = (condition: string, value: unknown) => {
    conditions.push(condition);
    params.push(value);
  };
  if (filters.formId) where(`"formId" = ?`, filters.formId);
  const range = dayRange(filters.from, filters.to);
  if (range.gte) where(`"createdAt" >= ?`, sqliteTime(range.gte));
  if (range.lt) where(`"createdAt" < ?`, sqliteTime(range.lt));
  if (filters.utm_source) where(`"utmSource" = ?`, filters.utm_source);
  if (filters.utm_medium) where(`"utmMedium" = ?`, filters.utm_medium);
  if (filters.utm_campaign) where(`"utmCampaign" = ?`, filters.utm_campaign);
  // instr: a literal substring, as `contains` means (no LIKE wildcards to escape).
  if (filters.q) where(`instr("searchText", ?) > 0`, filters.q);
  if (cursor) {
    // The `<=` gives SQLite an index range to start from; the OR alone would scan from the top.
    conditions.push(`"createdAt" <= ? AND ("createdAt" < ? OR "id" < ?)`);
    const at = sqliteTime(cursor.createdAt);
    params.push(at, at, cursor.id);
  }
  const sql =
    `SELECT ${LEAD_ROW_COLUMNS} FROM "Lead" WHERE "isSpam" = ?` +
    conditions.map((condition) => ` AND ${condition}`).join("") +
    ` ORDER BY "createdAt" DESC, "id" DESC LIMIT ?`;
  const connection = await idleSqlite();
  const statement = prepared(connection, sql);
  const runs = spamValues(filters.spam).map((spam) => statement.all(spam ? 1 : 0, ...params, take) as RawLeadRow[]);
  const rows = runs.flat().map((row): LeadRow => ({
    id: row[0],
    createdAt: isoFromSqlite(row[1]),
    formId: row[2],
    isSpam: Number(row[3]) === 1,
    schemaVersion: Number(row[4]),
    data: JSON.parse(row[5]) as LeadData,
    utmSource: row[6],
    utmMedium: row[7],
    utmCampaign: row[8],
    utmTerm: row[9],
    utmContent: row[10],
    referrerHost: row[11],
    referrerUrl: row[12],
    landingPageUrl: row[13],
  }));
  if (runs.length === 1) return rows;
  return rows
    .sort((a, b) =>
      newestFirst({ createdAt: new Date(a.createdAt), id: a.id }, { createdAt: new Date(b.createdAt), id: b.id }),
    )
    .slice(0, take);
}

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

/** Form names by id, for the forms a page of leads belongs to. */
async function formNames(formIds: string[]): Promise<Map<string, string>> {
  const unique = [...new Set(formIds)];
  if (unique.length === 0) return new Map();
  if (!isPostgres) {
    const connection = await idleSqlite();
    const sql = `SELECT "id", "name" FROM "Form" WHERE "id" IN (${unique.map(() => "?").join(", ")})`;
    return new Map(prepared(connection, sql).all(...unique) as Array<[string, string]>);
  }
  const forms = await db.form.findMany({ where: { id: { in: unique } }, select: { id: true, name: true } });
  return new Map(forms.map((form) => [form.id, form.name]));
}

/** A page of leads, newest first, and the cursor of the next page (null on the last). */
export async function listLeads(query: LeadListQuery): Promise<{ leads: LeadSummary[]; nextCursor: string | null }> {
  const rows: Array<Omit<LeadRow, "createdAt"> & { createdAt: Date }> = isPostgres
    ? await findLeadPage(query, query.cursor, query.limit + 1, listSelect).then((found) =>
        found.map((row) => ({ ...row, data: row.data as LeadData, referrerUrl: null, landingPageUrl: null })),
      )
    : (await sqliteLeadPage(query, query.cursor, query.limit + 1)).map((row) => ({
        ...row,
        createdAt: new Date(row.createdAt),
      }));
  const page = rows.slice(0, query.limit);
  const names = await formNames(page.map((row) => row.formId));
  const last = page[page.length - 1];
  return {
    leads: page.map((row) => ({
      id: row.id,
      formId: row.formId,
      formName: names.get(row.formId) ?? "",
      createdAt: row.createdAt.toISOString(),
      isSpam: row.isSpam,
      schemaVersion: row.schemaVersion,
      data: row.data,
      utm: utmOf(row),
      referrerHost: row.referrerHost,
    })),
    nextCursor: rows.length > query.limit && last ? cursorOf(last) : null,
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

export async function getLead(id: string): Promise<LeadDetail | null> {
  const lead = await db.lead.findUnique({
    where: { id },
    select: {
      ...listSelect,
      referrerUrl: true,
      landingPageUrl: true,
      userAgent: true,
      form: { select: { name: true, fields: true, schemaVersion: true } },
    },
  });
  if (!lead) return null;
  const version =
    lead.form.schemaVersion === lead.schemaVersion
      ? null
      : await db.formVersion.findUnique({
          where: { formId_version: { formId: lead.formId, version: lead.schemaVersion } },
          select: { fields: true },
        });
  const fields = labelled(version?.fields ?? lead.form.fields);
  const data = lead.data as LeadData;
  // Keys stored without a field in that version (should not happen) still show, by key.
  for (const key of Object.keys(data)) {
    if (!fields.some((field) => field.key === key)) fields.push({ key, label: key, type: "text" });
  }
  return {
    id: lead.id,
    formId: lead.formId,
    formName: lead.form.name,
    createdAt: lead.createdAt.toISOString(),
    isSpam: lead.isSpam,
    schemaVersion: lead.schemaVersion,
    data,
    fields,
    utm: utmOf(lead),
    referrerUrl: lead.referrerUrl,
    referrerHost: lead.referrerHost,
    landingPageUrl: lead.landingPageUrl,
    userAgent: lead.userAgent,
  };
}

/** Deletes a lead; false when there was none with this id. */
export async function deleteLead(id: string): Promise<boolean> {
  const { count } = await db.lead.deleteMany({ where: { id } });
  return count > 0;
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
    countPerDay(form.id, range.gte!, range.lt!),
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

async function countPerDay(formId: string, gte: Date, lt: Date): Promise<Map<string, number>> {
  // Grouping by a day needs a date expression, which the two databases spell differently.
  // SQLite stores DateTime as ISO 8601 text (the adapter's default), so the day is its prefix.
  const rows = isPostgres
    ? await db.$queryRaw<Array<{ day: string; count: bigint | number }>>`
        SELECT to_char("createdAt", 'YYYY-MM-DD') AS day, COUNT(*) AS count FROM "Lead"
        WHERE "formId" = ${formId} AND "isSpam" = false AND "createdAt" >= ${gte} AND "createdAt" < ${lt}
        GROUP BY 1`
    : await db.$queryRaw<Array<{ day: string; count: bigint | number }>>`
        SELECT substr("createdAt", 1, 10) AS day, COUNT(*) AS count FROM "Lead"
        WHERE "formId" = ${formId} AND "isSpam" = 0 AND "createdAt" >= ${gte} AND "createdAt" < ${lt}
        GROUP BY 1`;
  return new Map(rows.map((row) => [row.day, Number(row.count)]));
}
