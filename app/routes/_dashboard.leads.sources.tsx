import { data } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { RouteError } from "~/components/RouteError";
import {
  SourceStatsQuerySchema,
  getSourceStats,
  listFormChoices,
  type CountBy,
  type SourceStats,
} from "~/models/lead.server";
import { zodDetails } from "~/utils/api.server";
import { authorize } from "~/utils/auth.server";
import { page } from "~/utils/page.server";
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction = () => [{ title: "Where leads come from · Lead Capture" }];

export const loader = page(async function loader({ request }: LoaderFunctionArgs) {
  await authorize(request, "leads.read");
  const url = new URL(request.url);
  const values = {
    formId: url.searchParams.get("formId") ?? "",
    from: url.searchParams.get("from") ?? "",
    to: url.searchParams.get("to") ?? "",
  };
  const forms = await listFormChoices();
  // Without a form chosen, show the newest one rather than an empty page.
  const formId = values.formId || forms[0]?.id;
  if (!formId) return { values, forms, stats: null, errors: [] };
  const parsed = SourceStatsQuerySchema.safeParse({ ...values, formId });
  if (!parsed.success) {
    return data({ values, forms, stats: null, errors: zodDetails(parsed.error) }, { status: 422 });
  }
  const stats = await getSourceStats(parsed.data);
  if (!stats) throw new Response("There is no form with this id.", { status: 404 });
  return { values: { ...values, formId, from: stats.from, to: stats.to }, forms, stats, errors: [] };
});

export default function SourcesPage() {
  const { values, forms, stats, errors } = useLoaderData<typeof loader>();
  const errorFor = (name: string) => errors.find((error) => error.path === name)?.message;
  return (
    <>
      <p>
        <Link to="/leads">← All leads</Link>
      </p>
      <h1>Where leads come from</h1>
      <Form method="get" action="/leads/sources" className="card" aria-label="Choose a form and a period">
        <div className="row">
          <div>
            <label htmlFor="sources-form">Form</label>
            <select id="sources-form" name="formId" defaultValue={values.formId}>
              {forms.map((form) => (
                <option key={form.id} value={form.id}>
                  {form.name}
                </option>
              ))}
            </select>
          </div>
          {(["from", "to"] as const).map((name) => (
            <div key={name}>
              <label htmlFor={`sources-${name}`}>{name === "from" ? "From" : "To"}</label>
              <input
                id={`sources-${name}`}
                name={name}
                type="date"
                defaultValue={values[name]}
                aria-invalid={errorFor(name) ? true : undefined}
              />
              {errorFor(name) ? <p className="field-error">{errorFor(name)}</p> : null}
            </div>
          ))}
          <div>
            <button type="submit">Show</button>
          </div>
        </div>
      </Form>

      {forms.length === 0 ? <p className="muted">There are no forms yet.</p> : null}
      {stats ? <Breakdown stats={stats} /> : null}
    </>
  );
}

function Breakdown({ stats }: { stats: SourceStats }) {
  const leadsLink = (extra: Record<string, string>) =>
    `/leads?${new URLSearchParams({ formId: stats.formId, from: stats.from, to: stats.to, ...extra })}`;
  return (
    <>
      <p>
        <strong>{stats.total}</strong> leads for <strong>{stats.formName}</strong> from {stats.from} to {stats.to} (UTC,
        spam left out). <Link to={leadsLink({})}>See them</Link>
      </p>
      <section className="card" aria-labelledby="per-day-heading">
        <h2 id="per-day-heading">Leads per day</h2>
        <DayChart days={stats.perDay} />
      </section>
      <div className="row" style={{ alignItems: "start" }}>
        <CountTable title="By utm_source" rows={stats.bySource} link={(value) => leadsLink({ utm_source: value })} />
        <CountTable
          title="By utm_campaign"
          rows={stats.byCampaign}
          link={(value) => leadsLink({ utm_campaign: value })}
        />
        <CountTable title="By referrer" rows={stats.byReferrerHost} />
      </div>
    </>
  );
}

function CountTable({ title, rows, link }: { title: string; rows: CountBy[]; link?: (value: string) => string }) {
  return (
    <section className="card">
      <h2>{title}</h2>
      {rows.length === 0 ? (
        <p className="muted">No leads in this period.</p>
      ) : (
        <table aria-label={title}>
          <tbody>
            {rows.map((row) => (
              <tr key={row.value ?? ""}>
                <td>
                  {row.value === null ? (
                    <span className="muted">(none)</span>
                  ) : link ? (
                    <Link to={link(row.value)}>{row.value}</Link>
                  ) : (
                    row.value
                  )}
                </td>
                <td style={{ textAlign: "right" }}>{row.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** A bar per day, drawn on the server: it needs no JavaScript. */
function DayChart({ days }: { days: Array<{ day: string; count: number }> }) {
  const width = 760;
  const height = 220;
  const pad = { top: 12, right: 12, bottom: 28, left: 40 };
  const plotWidth = width - pad.left - pad.right;
  const plotHeight = height - pad.top - pad.bottom;
  const max = Math.max(1, ...days.map((day) => day.count));
  const step = plotWidth / Math.max(1, days.length);
  const barWidth = Math.max(1, step * 0.8);
  const labelEvery = Math.ceil(days.length / 8);
  const total = days.reduce((sum, day) => sum + day.count, 0);
  return (
    <svg
      viewBox={`0 0 ${width} ${height}`}
      width="100%"
      role="img"
      aria-label={`Leads per day from ${days[0]?.day} to ${days[days.length - 1]?.day}: ${total} in all, at most ${max} in a day`}
      style={{ maxWidth: width }}
    >
      <line x1={pad.left} y1={pad.top + plotHeight} x2={width - pad.right} y2={pad.top + plotHeight} stroke="#98a2b3" />
      <text x={pad.left - 6} y={pad.top + 4} textAnchor="end" fontSize="11" fill="#5c6577">
        {max}
      </text>
      <text x={pad.left - 6} y={pad.top + plotHeight} textAnchor="end" fontSize="11" fill="#5c6577">
        0
      </text>
      {days.map((day, i) => {
        const barHeight = (day.count / max) * plotHeight;
        const x = pad.left + i * step + (step - barWidth) / 2;
        return (
          <g key={day.day}>
            <rect x={x} y={pad.top + plotHeight - barHeight} width={barWidth} height={barHeight} fill="#2356d6">
              <title>{`${day.day}: ${day.count}`}</title>
            </rect>
            {i % labelEvery === 0 ? (
              <text x={x + barWidth / 2} y={height - 8} textAnchor="middle" fontSize="10" fill="#5c6577">
                {day.day.slice(5)}
              </text>
            ) : null}
          </g>
        );
      })}
    </svg>
  );
}

export function ErrorBoundary() {
  return <RouteError notFound="There is no form with this id." />;
}
