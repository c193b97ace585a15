// Where a form's leads come from and how well each source converts: its views (counted by
// form-views.server.ts into FormView) beside its leads (not spam, counted into LeadDaily as
// they are stored, marked spam or deleted: decision 055) over a period of UTC days,
// grouped by utm_source, utm_campaign, referrer host or day. The API (`GET
// /api/forms/:id/stats`) and the dashboard page (`/leads/sources`) both read it here.
import { z } from "zod";
import { db, type Prisma } from "~/storage/db.server";
import { DaySchema } from "~/storage/keyset.server";
import { DomainError } from "~/utils/domain-error";
import { dayRange, MS_PER_DAY, optional, text } from "../leads/lead-filters.server";

export const MAX_STATS_DAYS = 366;
/** Rows per grouping (the sources with the most views, then the most leads). */
export const MAX_STATS_ROWS = 100;

export const GROUP_BY = ["utm_source", "utm_campaign", "referrer_host", "day"] as const;
export type GroupBy = (typeof GROUP_BY)[number];

export const PeriodSchema = z.object({
  formId: text(64),
  from: optional(DaySchema),
  to: optional(DaySchema),
});

/** A period of at most MAX_STATS_DAYS, ending today and 30 days long unless given. */
export function withPeriod<Q extends z.output<typeof PeriodSchema>>(query: Q, ctx: z.RefinementCtx) {
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

// The column of each grouping in FormView and LeadDaily ("" when absent in both).
const COLUMN = {
  utm_source: "utmSource",
  utm_campaign: "utmCampaign",
  referrer_host: "referrerHost",
} as const satisfies Record<
  Exclude<GroupBy, "day">,
  keyof Prisma.FormViewWhereInput & keyof Prisma.LeadDailyWhereInput
>;
export type Column = (typeof COLUMN)[keyof typeof COLUMN];

export type Period = { formId: string; from: string; to: string };

async function formOf(formId: string): Promise<{ id: string; name: string }> {
  const form = await db.form.findUnique({ where: { id: formId }, select: { id: true, name: true } });
  if (!form) throw new DomainError("not_found", "There is no form with this id.");
  return form;
}

// Both tables are per-day rollups of the same key (decision 055): the period is a range of days.
export const dayWhere = (period: Period) => ({ formId: period.formId, day: { gte: period.from, lte: period.to } });
/** Keys with leads: a rollup row taken down to 0 (its leads deleted or marked spam) is none. */
const withLeads = { leads: { _sum: { gt: 0 } } } as const;

/**
 * Views and leads per value of one column: the MAX_STATS_ROWS values with the most views
 * and those with the most leads, each with both counts, most views first.
 */
export async function groupedBy(period: Period, column: Column): Promise<ConversionRow[]> {
  const [topViews, topLeads] = await Promise.all([
    db.formView.groupBy({
      by: [column],
      where: dayWhere(period),
      _sum: { views: true },
      orderBy: { _sum: { views: "desc" } },
      take: MAX_STATS_ROWS,
    }),
    db.leadDaily.groupBy({
      by: [column],
      where: dayWhere(period),
      _sum: { leads: true },
      having: withLeads,
      orderBy: { _sum: { leads: "desc" } },
      take: MAX_STATS_ROWS,
    }),
  ]);
  const views = new Map(topViews.map((group) => [group[column] || null, group._sum.views ?? 0]));
  const leads = new Map(topLeads.map((group) => [group[column] || null, group._sum.leads ?? 0]));
  // A value among the top of one table: its count in the other, which may be below that one's top.
  const inList = (keys: Array<string | null>) => ({ [column]: { in: keys.map((key) => key ?? "") } });
  const viewsMissing = [...leads.keys()].filter((key) => !views.has(key));
  const leadsMissing = [...views.keys()].filter((key) => !leads.has(key));
  const [moreViews, moreLeads] = await Promise.all([
    viewsMissing.length === 0
      ? []
      : db.formView.groupBy({
          by: [column],
          where: { ...dayWhere(period), ...inList(viewsMissing) },
          _sum: { views: true },
        }),
    leadsMissing.length === 0
      ? []
      : db.leadDaily.groupBy({
          by: [column],
          where: { ...dayWhere(period), ...inList(leadsMissing) },
          _sum: { leads: true },
          having: withLeads,
        }),
  ]);
  for (const group of moreViews) views.set(group[column] || null, group._sum.views ?? 0);
  for (const group of moreLeads) leads.set(group[column] || null, group._sum.leads ?? 0);
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
    db.formView.groupBy({ by: ["day"], where: dayWhere(period), _sum: { views: true } }),
    db.leadDaily.groupBy({ by: ["day"], where: dayWhere(period), _sum: { leads: true } }),
  ]);
  const viewsOf = new Map(views.map((group) => [group.day, group._sum.views ?? 0]));
  const leadsOf = new Map(leads.map((group) => [group.day, group._sum.leads ?? 0]));
  const days: ConversionRow[] = [];
  for (let time = range.gte!.getTime(); time < range.lt!.getTime(); time += MS_PER_DAY) {
    const day = new Date(time).toISOString().slice(0, 10);
    days.push(row(day, viewsOf.get(day) ?? 0, leadsOf.get(day) ?? 0));
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
export async function getSourceStats(query: SourceStatsQuery): Promise<SourceStats> {
  const form = await formOf(query.formId);
  const period = { ...query, formId: form.id };
  const [views, leads, bySource, byCampaign, byReferrerHost, days] = await Promise.all([
    db.formView.aggregate({ where: dayWhere(period), _sum: { views: true } }),
    db.leadDaily.aggregate({ where: dayWhere(period), _sum: { leads: true } }),
    groupedBy(period, "utmSource"),
    groupedBy(period, "utmCampaign"),
    groupedBy(period, "referrerHost"),
    perDay(period),
  ]);
  const totalViews = views._sum.views ?? 0;
  const totalLeads = leads._sum.leads ?? 0;
  return {
    formId: form.id,
    formName: form.name,
    from: period.from,
    to: period.to,
    total: { views: totalViews, leads: totalLeads, conversionRate: rate(totalLeads, totalViews) },
    bySource,
    byCampaign,
    byReferrerHost,
    perDay: days,
  };
}
