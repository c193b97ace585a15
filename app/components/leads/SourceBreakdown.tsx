// /leads/sources' breakdown of one form's views and leads: totals, a chart of views and
// leads per day drawn on the server (no JavaScript), and conversion by source, campaign
// and referrer, each row linking to its leads.
import { Link } from "@remix-run/react";
import type { ConversionRow, SourceStats } from "~/forms/form-stats.server";
import { plural } from "~/utils/plural";

export function SourceBreakdown({ stats }: { stats: SourceStats }) {
  const leadsLink = (extra: Record<string, string>) =>
    `/leads?${new URLSearchParams({ formId: stats.formId, from: stats.from, to: stats.to, ...extra })}`;
  const { total } = stats;
  return (
    <>
      <p>
        <strong>{total.views}</strong> views, <strong>{total.leads}</strong> leads
        {total.conversionRate === null || total.conversionRate > 1 ? null : (
          <>
            {" "}
            (<strong>{percent(total.conversionRate)}</strong> converted)
          </>
        )}{" "}
        for <strong>{stats.formName}</strong> from {stats.from} to {stats.to} (UTC, spam left out).{" "}
        <Link to={leadsLink({})}>See the leads</Link>
      </p>
      <p className="muted" id="where-views-come-from">
        A view is counted when the hosted form page or a page with the embed script opens in a browser (bots and repeat
        visits within 30 minutes left out). Leads from plain HTML forms, the API, or browsers counted as bots have no
        view, so where leads outnumber counted views the conversion reads &ldquo;—&rdquo;.
      </p>
      <section className="card" aria-labelledby="per-day-heading">
        <h2 id="per-day-heading">Views and leads per day</h2>
        <DayChart days={stats.perDay} />
      </section>
      <div className="row" style={{ alignItems: "start" }}>
        <ConversionTable
          title="By utm_source"
          rows={stats.bySource}
          link={(value) => leadsLink({ utm_source: value })}
        />
        <ConversionTable
          title="By utm_campaign"
          rows={stats.byCampaign}
          link={(value) => leadsLink({ utm_campaign: value })}
        />
        <ConversionTable title="By referrer" rows={stats.byReferrerHost} />
      </div>
      <ConversionTable
        title="By day"
        rows={[...stats.perDay].reverse().filter((day) => day.views > 0 || day.leads > 0)}
        empty="No views or leads in this period."
      />
    </>
  );
}

/**
 * A rate as a percentage with one decimal. Leads without views (plain HTML posts, the API)
 * can pass 100%: a rate that cannot be true reads "—", and the note above says why.
 */
function percent(rate: number | null): string {
  return rate === null || rate > 1 ? "—" : `${(rate * 100).toFixed(1)}%`;
}

function ConversionTable({
  title,
  rows,
  link,
  empty = "No views or leads in this period.",
}: {
  title: string;
  rows: ConversionRow[];
  link?: (value: string) => string;
  empty?: string;
}) {
  return (
    <section className="card">
      <h2>{title}</h2>
      {rows.length === 0 ? (
        <p className="muted">{empty}</p>
      ) : (
        <table aria-label={title}>
          <thead>
            <tr>
              <th scope="col">{title.replace(/^By /, "")}</th>
              <th scope="col" className="num">
                Views
              </th>
              <th scope="col" className="num">
                Leads
              </th>
              <th scope="col" className="num">
                Conversion
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.key ?? ""}>
                <th scope="row" style={{ fontWeight: "normal" }}>
                  {row.key === null ? (
                    <span className="muted">(none)</span>
                  ) : link ? (
                    <Link to={link(row.key)}>{row.key}</Link>
                  ) : (
                    row.key
                  )}
                </th>
                <td data-label="Views" className="num">
                  {row.views}
                </td>
                <td data-label="Leads" className="num">
                  {row.leads}
                </td>
                <td data-label="Conversion" className="num">
                  {percent(row.conversionRate)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

const VIEWS_COLOUR = "#9db5f0";
const LEADS_COLOUR = "#2356d6";
/** Chart text: HTML beside the SVG, so it keeps its size when the bars scale down to a phone. */
const CHART_TEXT = { fontSize: "0.8125rem", color: "#5c6577", lineHeight: 1.3 } as const;
const PLOT_HEIGHT = 180;
/** At most this many day labels, so they fit side by side on a 390 px phone. */
const DAY_LABELS = 6;

/**
 * Two bars per day (views, leads) on one scale, drawn on the server: it needs no JavaScript.
 * Only the bars are SVG (stretched to the width); the legend and axis labels are HTML text,
 * so they stay readable at any width (a scaled-down SVG shrank them to 4 px on a phone).
 */
function DayChart({ days }: { days: ConversionRow[] }) {
  const width = 760;
  const max = Math.max(1, ...days.map((day) => Math.max(day.views, day.leads)));
  const step = width / Math.max(1, days.length);
  const barWidth = Math.max(0.5, (step * 0.8) / 2);
  const labelEvery = Math.ceil(days.length / DAY_LABELS);
  const views = days.reduce((sum, day) => sum + day.views, 0);
  const leads = days.reduce((sum, day) => sum + day.leads, 0);
  const barX = (i: number) => i * step + (step - barWidth * 2) / 2;
  const bar = (value: number, x: number, fill: string, label: string) => {
    const barHeight = (value / max) * PLOT_HEIGHT;
    return (
      <rect x={x} y={PLOT_HEIGHT - barHeight} width={barWidth} height={barHeight} fill={fill}>
        <title>{label}</title>
      </rect>
    );
  };
  return (
    <figure style={{ margin: 0, maxWidth: 760 }}>
      <ChartLegend />
      <div style={{ display: "grid", gridTemplateColumns: "auto 1fr", columnGap: 6, ...CHART_TEXT }}>
        <div
          aria-hidden="true"
          style={{ display: "flex", flexDirection: "column", justifyContent: "space-between", textAlign: "right" }}
        >
          <span>{max}</span>
          <span>0</span>
        </div>
        <svg
          viewBox={`0 0 ${width} ${PLOT_HEIGHT}`}
          preserveAspectRatio="none"
          width="100%"
          height={PLOT_HEIGHT}
          role="img"
          aria-label={`Views and leads per day from ${days[0]?.key} to ${days[days.length - 1]?.key}: ${plural(views, "view")} and ${plural(leads, "lead")} in all, at most ${max} in a day`}
          style={{ display: "block", borderBottom: "1px solid #98a2b3" }}
        >
          {days.map((day, i) => (
            <g key={day.key}>
              {bar(day.views, barX(i), VIEWS_COLOUR, `${day.key}: ${plural(day.views, "view")}`)}
              {bar(day.leads, barX(i) + barWidth, LEADS_COLOUR, `${day.key}: ${plural(day.leads, "lead")}`)}
            </g>
          ))}
        </svg>
        <div aria-hidden="true" style={{ gridColumn: 2, position: "relative", height: "1.5em" }}>
          {days.map((day, i) =>
            i % labelEvery === 0 ? (
              <span
                key={day.key}
                style={{
                  position: "absolute",
                  left: `${((barX(i) + barWidth) / width) * 100}%`,
                  transform: "translateX(-50%)",
                  whiteSpace: "nowrap",
                }}
              >
                {day.key?.slice(5)}
              </span>
            ) : null,
          )}
        </div>
      </div>
    </figure>
  );
}

function ChartLegend() {
  const swatch = (colour: string) => (
    <span style={{ display: "inline-block", width: 10, height: 10, background: colour, marginRight: 4 }} />
  );
  return (
    <p style={{ ...CHART_TEXT, margin: "0 0 6px", display: "flex", gap: 16 }}>
      <span>{swatch(VIEWS_COLOUR)}Views</span>
      <span>{swatch(LEADS_COLOUR)}Leads</span>
    </p>
  );
}
