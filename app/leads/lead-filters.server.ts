// The filters of the lead list and the exports, read from a query string, and the keyset
// cursor over (createdAt desc, id desc) that pages through them. The SQL these become is
// in app/storage/leads/lead-store.ts, the one filter builder for both databases.
import { z } from "zod";
import { DaySchema, decodeCursor, encodeCursor, INVALID_CURSOR } from "~/storage/keyset.server";
import { LEAD_STATUSES, SPAM_VALUES, type Cursor, type LeadQuery, type SpamFilter } from "~/storage/leads/lead-types";
import { invalidFields, textPolicyDetails, zodDetails, type ErrorDetail } from "~/utils/domain-error";
import { textPolicyIssues } from "~/utils/text-policy";
import { TagSchema } from "./lead-schemas";

// The tag rule is client-safe (the lead page validates with it too).
export { TagSchema } from "./lead-schemas";

// The statuses, the spam flag, the cursor and their SQL ranges are the table's: app/storage/leads/lead-types.ts.
export { dayRange, LEAD_STATUSES, MS_PER_DAY, type Cursor, type LeadStatusValue } from "~/storage/leads/lead-types";
export const MAX_PAGE_SIZE = 500;
export const DEFAULT_PAGE_SIZE = 50;

/** A GET form sends every input, empty ones as ""; an empty value means "no filter". */
export const optional = <S extends z.ZodType>(schema: S) =>
  z.preprocess((value) => (value === "" || value === null ? undefined : value), schema.optional());

export const text = (max: number) => z.string().trim().min(1).max(max, `Use at most ${max} characters.`);

const LeadFilterShape = z.object({
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
  status: optional(z.enum(LEAD_STATUSES, { error: `Use one of ${LEAD_STATUSES.join(", ")}.` })),
  ownerId: optional(text(64)),
  tag: optional(TagSchema),
  // Double opt-in (decision 067): false lists the leads still awaiting confirmation, true the others.
  confirmed: optional(
    z.enum(["true", "false"], { error: "Use true or false." }).transform((value) => value === "true"),
  ),
  // Chosen rows (an export of the selection): comma-separated lead ids.
  ids: optional(
    z
      .string()
      .transform((value) => [
        ...new Set(
          value
            .split(",")
            .map((id) => id.trim())
            .filter(Boolean),
        ),
      ])
      .pipe(z.array(z.string().max(64)).min(1).max(MAX_PAGE_SIZE, `Name at most ${MAX_PAGE_SIZE} leads.`)),
  ),
});

function datesInOrder(filters: { from?: string; to?: string }, ctx: z.RefinementCtx) {
  if (filters.from && filters.to && filters.from > filters.to) {
    ctx.addIssue({ code: "custom", path: ["to"], message: "The end date is before the start date." });
  }
}

/** The filters of a query string; other parameters (limit, cursor, format…) sit beside them. */
export const LeadFilterSchema = LeadFilterShape.superRefine(datesInOrder);
export type LeadFilters = z.output<typeof LeadFilterSchema>;
// The parsed filters are what the store reads: this fails to compile if the two drift apart.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _filtersAreTheStoreQuery: Same<LeadFilters, LeadQuery> = true;

/** The keys of a filter sent as an object of its own (a bulk request's `filter`): no other is taken. */
export const LEAD_FILTER_KEYS: readonly string[] = Object.keys(LeadFilterShape.shape);

/** The parameters that narrow a selection; `spam` alone only says which side of the flag. */
export function narrowsSelection(filters: LeadFilters): boolean {
  const { spam, ...others } = filters;
  return spam === "true" || Object.values(others).some((value) => value !== undefined);
}

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

/** `ownerId=mine` means the caller: the filters as the store reads them. */
export function forViewer<T extends Partial<LeadFilters>>(filters: T, viewerId: string): T {
  return filters.ownerId === "mine" ? { ...filters, ownerId: viewerId } : filters;
}

/** Reads the filters from a query string; `details` names every bad parameter. */
export function parseLeadFilters(params: URLSearchParams | Record<string, string>): Parsed<LeadFilters> {
  const values = params instanceof URLSearchParams ? firstValues(params) : params;
  const refused = textPolicyIssues(values);
  if (refused.length > 0) return { ok: false, details: textPolicyDetails(refused) };
  const result = LeadFilterSchema.safeParse(values);
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

function invalidQuery(details: ErrorDetail[]): never {
  throw invalidFields(details, "The query has invalid parameters.");
}

/** The filters as query parameters, without empty ones (for links and file names). */
export function filtersToSearchParams(filters: Partial<LeadFilters>): URLSearchParams {
  const params = new URLSearchParams();
  for (const key of [
    "formId",
    "from",
    "to",
    "utm_source",
    "utm_medium",
    "utm_campaign",
    "q",
    "status",
    "ownerId",
    "tag",
  ] as const) {
    const value = filters[key];
    if (value) params.set(key, value);
  }
  if (filters.spam && filters.spam !== "false") params.set("spam", filters.spam);
  if (filters.ids) params.set("ids", filters.ids.join(","));
  if (filters.confirmed !== undefined) params.set("confirmed", String(filters.confirmed));
  return params;
}

// ---------------------------------------------------------------------------
// Keyset cursor over (createdAt desc, id desc)

export function cursorOf(lead: Cursor): string {
  return encodeCursor({ at: lead.createdAt, id: lead.id });
}
