// Where a form's leads come from and how well each source converts: its views (counted by
// form-views.server.ts into FormView) beside its leads (not spam) over a period of UTC days,
// grouped by utm_source, utm_campaign, referrer host or day. The API (`GET
// /api/forms/:id/stats`) and the dashboard page (`/leads/sources`) both read it here.
import { z } from "zod";
import { db, type Prisma } from "~/storage/db.server";
import { leadStore } from "~/storage/index.server";
import { DaySchema } from "~/storage/keyset.server";
import { DomainError } from "~/utils/domain-error";
import { dayRange, MS_PER_DAY, optional, text } from "../leads/lead-filters.server";

export const MAX_STATS_DAYS = 366;
/** Rows per grouping (the sources with the most views, then the most leads). */
export const MAX_STATS_ROWS = 100;

export const GROUP_BY = ["utm_source", "utm_campaign", "referrer_host", "day"] as const;
export type GroupBy = (typeof GROUP_BY)[number];

const PeriodSchema = z.object({
  formId: text(64),
  from: optional(DaySchema),
  to: optional(DaySchema),
});

/** A period of at most MAX_STATS_DAYS, ending today and 30 days long unless given. */
function withPeriod<Q extends z.output<typeof PeriodSchema>>(query: Q, ctx: z.RefinementCtx) {
  const today = new Date().toISOString().slice(0, 10);
  const to = query.to ?? today;
  const from =
    query.from ?? new Date(new Date(`${to}T00:00:00Z`).getTime() - 29 * MS_PER_DAY).toISOString().slice(0, 10);
  const days = Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / MS_PER_DAY) + 1;
  if (days < 1) ctx.addIssue({ code: "custom", path: ["to"], message: "The end date is before the start date." });
  else if (days > MAX_STATS_DAYS) {
    ctx.addIssue({ code: "custom", path: ["from"], message: `Choose a period of at most ${MAX_STATS_DAYS} days.` });
  }
  return { ...query, from, to };
}

/** The dashboard page's query: a form and a period. */
export const SourceStatsQuerySchema = PeriodSchema.transform(withPeriod);
export type SourceStatsQuery = z.output<typeof SourceStatsQuerySchema>;

/** The API's query: a form, a period and one grouping; other keys are refused. */
export const ConversionQuerySchema = PeriodSchema.extend({
  groupBy: z.enum(GROUP_BY, { error: `Use one of ${GROUP_BY.join(", ")}.` }),
})
  .strict()
  .transform(withPeriod);
export type ConversionQuery = z.output<typeof ConversionQuerySchema>;

/** One group: its key (null: the value was absent), views, leads, and leads / views (null without views). */
export type ConversionRow = { key: string | null; views: number; leads: number; conversionRate: number | null };

export type SourceStats = {
  formId: string;
  formName: string;
  from: string;
  to: string;
  total: { views: number; leads: number; conversionRate: number | null };
  bySource: ConversionRow[];
  byCampaign: ConversionRow[];
  byReferrerHost: ConversionRow[];
  /** One row per day of the period, oldest first, zeros included. */
  perDay: ConversionRow[];
};

const rate = (leads: number, views: number) => (views > 0 ? leads / views : null);
const row = (key: string | null, views: number, leads: number): ConversionRow => ({
  key,
  views,
  leads,
  conversionRate: rate(leads, views),
});

// The column of each grouping in Lead (null when absent) and in FormView ("" when absent).
const COLUMN = {
  utm_source: "utmSource",
  utm_campaign: "utmCampaign",
  referrer_host: "referrerHost",
} as const satisfies Record<Exclude<GroupBy, "day">, keyof Prisma.LeadWhereInput & keyof Prisma.FormViewWhereInput>;
type Column = (typeof COLUMN)[keyof typeof COLUMN];

type Period = { formId: string; from: string; to: string };

async function formOf(formId: string): Promise<{ id: string; name: string }> {
  const form = await db.form.findUnique({ where: { id: formId }, select: { id: true, name: true } });
  if (!form) throw new DomainError("not_found", "There is no form with this id.");
  return form;
}

const leadWhere = (period: Period): Prisma.LeadWhereInput => ({
  formId: period.formId,
  isSpam: false,
  createdAt: dayRange(period.from, period.to),
});
const viewWhere = (period: Period): Prisma.FormViewWhereInput => ({
  formId: period.formId,
  day: { gte: period.from, lte: period.to },
});

/** Leads whose column holds one of the keys (null: absent, stored as null or ""). */
const leadKeyWhere = (column: Column, keys: Array<string | null>): Prisma.LeadWhereInput => ({
  OR: [{ [column]: { in: keys.map((key) => key ?? "") } }, ...(keys.includes(null) ? [{ [column]: null }] : [])],
});

/**
 * Views and leads per value of one column: the MAX_STATS_ROWS values with the most views
 * and those with the most leads, each with both counts, most views first.
 */
async function groupedBy(period: Period, column: Column, every?: Map<string | null, number>): Promise<ConversionRow[]> {
  const [topViews, topLeads] = await Promise.all([
    db.formView.groupBy({
      by: [column],
      where: viewWhere(period),
      _sum: { views: true },
      orderBy: { _sum: { views: "desc" } },
      take: MAX_STATS_ROWS,
    }),
    every
      ? [...every].sort(([, a], [, b]) => b - a).slice(0, MAX_STATS_ROWS)
      : db.lead
          .groupBy({
            by: [column],
            where: leadWhere(period),
            _count: { _all: true },
            orderBy: { _count: { id: "desc" } },
            take: MAX_STATS_ROWS,
          })
          .then((groups) => groups.map((group): [string | null, number] => [group[column] || null, group._count._all])),
  ]);
  const views = new Map(topViews.map((group) => [group[column] || null, group._sum.views ?? 0]));
  const leads = new Map(topLeads);
  // A value among the top of one table: its count in the other, which may be below that one's top
  // (every value's lead count is at hand when `every` is given).
  const viewsMissing = [...leads.keys()].filter((key) => !views.has(key));
  const leadsMissing = every ? [] : [...views.keys()].filter((key) => !leads.has(key));
  if (every) for (const key of views.keys()) leads.set(key, every.get(key) ?? 0);
  const [moreViews, moreLeads] = await Promise.all([
    viewsMissing.length === 0
      ? []
      : db.formView.groupBy({
          by: [column],
          where: { ...viewWhere(period), [column]: { in: viewsMissing.map((key) => key ?? "") } },
          _sum: { views: true },
        }),
    leadsMissing.length === 0
      ? []
      : db.lead.groupBy({
          by: [column],
          where: { AND: [leadWhere(period), leadKeyWhere(column, leadsMissing)] },
          _count: { _all: true },
        }),
  ]);
  for (const group of moreViews) views.set(group[column] || null, group._sum.views ?? 0);
  for (const group of moreLeads) leads.set(group[column] || null, group._count._all);
  const keys = new Set([...views.keys(), ...leads.keys()]);
  return [...keys]
    .map((key) => row(key, views.get(key) ?? 0, leads.get(key) ?? 0))
    .sort((a, b) => b.views - a.views || b.leads - a.leads || String(a.key).localeCompare(String(b.key)))
    .slice(0, MAX_STATS_ROWS);
}

/** Every day of the period, oldest first, with its views and leads (zeros included). */
async function perDay(period: Period): Promise<ConversionRow[]> {
  const range = dayRange(period.from, period.to);
  const [views, leads] = await Promise.all([
    db.formView.groupBy({ by: ["day"], where: viewWhere(period), _sum: { views: true } }),
    leadStore.countPerDay(period.formId, range.gte!, range.lt!),
  ]);
  const viewsOf = new Map(views.map((group) => [group.day, group._sum.views ?? 0]));
  const days: ConversionRow[] = [];
  for (let time = range.gte!.getTime(); time < range.lt!.getTime(); time += MS_PER_DAY) {
    const day = new Date(time).toISOString().slice(0, 10);
    days.push(row(day, viewsOf.get(day) ?? 0, leads.get(day) ?? 0));
  }
  return days;
}

/** `GET /api/forms/:id/stats`: one grouping of a form's views and leads. */
export async function getConversionStats(query: ConversionQuery): Promise<{ rows: ConversionRow[] }> {
  const form = await formOf(query.formId);
  const period = { ...query, formId: form.id };
  return { rows: query.groupBy === "day" ? await perDay(period) : await groupedBy(period, COLUMN[query.groupBy]) };
}

/** The dashboard's report: totals, each grouping and every day of the period. */
/**
 * Combinations of source, campaign and referrer host read at once for the report; past this
 * many (a flood of made-up UTM values), each grouping is read on its own instead.
 */
const MAX_SOURCE_COMBINATIONS = 10_000;

/** Each grouping's lead counts, from one read of the period's leads (null: too many combinations). */
async function leadsPerSource(period: Period, cap: number): Promise<Record<Column, Map<string | null, number>> | null> {
  const range = dayRange(period.from, period.to);
  const combinations = await leadStore.countPerSource(period.formId, range.gte!, range.lt!, cap);
  if (!combinations) return null;
  const counts = { utmSource: new Map(), utmCampaign: new Map(), referrerHost: new Map() } as Record<
    Column,
    Map<string | null, number>
  >;
  for (const combination of combinations) {
    for (const column of Object.values(COLUMN)) {
      const key = combination[column] || null;
      counts[column].set(key, (counts[column].get(key) ?? 0) + combination.count);
    }
  }
  return counts;
}

export async function getSourceStats(
  query: SourceStatsQuery,
  { maxCombinations = MAX_SOURCE_COMBINATIONS } = {},
): Promise<SourceStats> {
  const form = await formOf(query.formId);
  const period = { ...query, formId: form.id };
  // The period's leads are read once for the three groupings, not once each (a form's 30
  // days at 10 million leads: 864,000 rows).
  const every = await leadsPerSource(period, maxCombinations);
  const [views, leads, bySource, byCampaign, byReferrerHost, days] = await Promise.all([
    db.formView.aggregate({ where: viewWhere(period), _sum: { views: true } }),
    every
      ? [...every.utmSource.values()].reduce((sum, count) => sum + count, 0)
      : db.lead.count({ where: leadWhere(period) }),
    groupedBy(period, "utmSource", every?.utmSource),
    groupedBy(period, "utmCampaign", every?.utmCampaign),
    groupedBy(period, "referrerHost", every?.referrerHost),
    perDay(period),
  ]);
  const totalViews = views._sum.views ?? 0;
  return {
    formId: form.id,
    formName: form.name,
    from: period.from,
    to: period.to,
    total: { views: totalViews, leads, conversionRate: rate(leads, totalViews) },
    bySource,
    byCampaign,
    byReferrerHost,
    perDay: days,
  };
}
