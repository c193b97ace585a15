// Where each source's visitors drop off (decision 059): a form's views, the visitors who
// started it (first interaction) and reached each of its steps (FormFunnel, counted like
// views by app/capture/views/form-views.server.ts), and its leads, per utm_source, utm_campaign or
// referrer host over a period of UTC days. The API (`GET /api/forms/:id/funnel`) and the
// sources page both read it here.
import { z } from "zod";
import { db } from "~/storage/db.server";
import { DomainError } from "~/utils/domain-error";
import { PeriodSchema, dayWhere, groupedBy, withPeriod, type Column, type Period } from "./form-stats.server";
import { FieldsSchema } from "./schema/form-schema";
import { formSteps } from "./schema/form-steps";

const FUNNEL_GROUP_BY = ["utm_source", "utm_campaign", "referrer", "referrer_host"] as const;
const COLUMN: Record<(typeof FUNNEL_GROUP_BY)[number], Column> = {
  utm_source: "utmSource",
  utm_campaign: "utmCampaign",
  referrer: "referrerHost",
  referrer_host: "referrerHost",
};

/** The API's query: a form, a period and one grouping (utm_source unless given); other keys are refused. */
export const FunnelQuerySchema = PeriodSchema.extend({
  groupBy: z
    .enum(FUNNEL_GROUP_BY, { error: `Use one of ${FUNNEL_GROUP_BY.join(", ")}.` })
    .optional()
    .default("utm_source"),
})
  .strict()
  .transform(withPeriod);
export type FunnelQuery = z.output<typeof FunnelQuerySchema>;

/** One source's funnel: step 1 "reached" is the visitors who started. */
export type FunnelRow = {
  key: string | null;
  views: number;
  started: number;
  steps: Array<{ step: number; reached: number }>;
  submitted: number;
  conversionRate: number | null;
};

/** The funnel of one grouping: the groups of the form's stats (most views first), each with its stages. */
export async function getFunnel(query: FunnelQuery): Promise<{ steps: number; rows: FunnelRow[] }> {
  const form = await db.form.findUnique({ where: { id: query.formId }, select: { id: true, fields: true } });
  if (!form) throw new DomainError("not_found", "There is no form with this id.");
  const parsed = FieldsSchema.safeParse(form.fields);
  const stepCount = parsed.success ? formSteps(parsed.data).length : 1;
  const period: Period = { formId: form.id, from: query.from, to: query.to };
  const column = COLUMN[query.groupBy];
  const groups = await groupedBy(period, column);
  const stages =
    groups.length === 0
      ? []
      : await db.formFunnel.groupBy({
          by: [column, "stage"],
          where: { ...dayWhere(period), [column]: { in: groups.map((group) => group.key ?? "") } },
          _sum: { visitors: true },
        });
  const reached = new Map<string, number>();
  for (const stage of stages) reached.set(`${stage[column]}\u0000${stage.stage}`, stage._sum.visitors ?? 0);
  const rows = groups.map((group): FunnelRow => {
    const at = (stage: number) => reached.get(`${group.key ?? ""}\u0000${stage}`) ?? 0;
    const started = at(0);
    return {
      key: group.key,
      views: group.views,
      started,
      steps: Array.from({ length: stepCount }, (_, i) => ({ step: i + 1, reached: i === 0 ? started : at(i + 1) })),
      submitted: group.leads,
      conversionRate: group.conversionRate,
    };
  });
  return { steps: stepCount, rows };
}
