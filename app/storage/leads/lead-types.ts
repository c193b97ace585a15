// The values of the Lead table that the leads area and the lead store share, kept here so
// that storage imports no area (issue 29): a lead's data, its statuses and spam flag as
// the table holds them, the filters as values (app/leads/lead-filters.server.ts parses
// them), the keyset cursor, and what a new lead is written with in its transaction (its
// lead.created event and the staff emails it sends). Types and pure functions only: the
// browser bundle may read them.

export type LeadValue = string | number | boolean | string[];
export type LeadData = Record<string, LeadValue>;

export const MS_PER_DAY = 86_400_000;

export const SPAM_VALUES = ["false", "true", "all"] as const;
export type SpamFilter = (typeof SPAM_VALUES)[number];

/** A lead's status as staff see it: its stage, or `spam` when it is marked spam. */
export const LEAD_STATUSES = ["new", "contacted", "qualified", "won", "lost", "spam"] as const;
export type LeadStatusValue = (typeof LEAD_STATUSES)[number];

/** The filters of a lead query as the store reads them (`ownerId` an id or "none"). */
export type LeadQuery = {
  formId?: string;
  from?: string;
  to?: string;
  utm_source?: string;
  utm_medium?: string;
  utm_campaign?: string;
  q?: string;
  spam: SpamFilter;
  status?: LeadStatusValue;
  ownerId?: string;
  tag?: string;
  ids?: string[];
  /** Double opt-in (decision 067): false, only the leads still awaiting their visitor's confirmation. */
  confirmed?: boolean;
};

/** The keyset cursor over (createdAt desc, id desc). */
export type Cursor = { createdAt: Date; id: string };

/** `to` is inclusive: the whole UTC day. */
export function dayRange(from?: string, to?: string): { gte?: Date; lt?: Date } {
  const range: { gte?: Date; lt?: Date } = {};
  if (from) range.gte = new Date(`${from}T00:00:00.000Z`);
  if (to) range.lt = new Date(new Date(`${to}T00:00:00.000Z`).getTime() + MS_PER_DAY);
  return range;
}

/** The isSpam values a filter reads: `status=spam` is the spam flag; any other status is not spam. */
export function spamValues(filters: Pick<LeadQuery, "spam" | "status">): boolean[] {
  if (filters.status === "spam") return [true];
  if (filters.status) return [false];
  return filters.spam === "all" ? [false, true] : [filters.spam === "true"];
}
