// The sources page's drop-off funnel (decision 059): per utm_source, how many of the views
// became visitors who started the form, reached each step, and sent it. Drawn on the server
// as a table (a count and its share of the views in each cell, with a bar), readable
// without JavaScript and by a screen reader row by row.
import type { FunnelRow } from "~/forms/form-funnel.server";

const share = (count: number, views: number) => (views > 0 && count <= views ? count / views : null);

function Stage({ label, count, views }: { label: string; count: number; views: number }) {
  const part = share(count, views);
  return (
    <td data-label={label} className="num">
      {count}
      {part === null ? null : <span className="muted"> ({Math.round(part * 100)}%)</span>}
      {part === null ? null : (
        <span className="funnel-bar" aria-hidden="true">
          <span style={{ width: `${(part * 100).toFixed(1)}%` }} />
        </span>
      )}
    </td>
  );
}

export function SourceFunnel({ steps, rows }: { steps: number; rows: FunnelRow[] }) {
  const stages = Array.from({ length: Math.max(0, steps - 1) }, (_, i) => i + 2);
  return (
    <section className="card" aria-labelledby="funnel-heading">
      <h2 id="funnel-heading">Where visitors drop off</h2>
      <p className="muted">
        Of the views from each source: the visitors who started the form (their first answer)
        {stages.length > 0 ? ", reached each of its steps" : ""} and sent it.
      </p>
      {rows.length === 0 ? (
        <p className="muted">No views or leads in this period.</p>
      ) : (
        <table aria-label="Drop-off by source">
          <thead>
            <tr>
              <th scope="col">Source</th>
              <th scope="col" className="num">
                Views
              </th>
              <th scope="col" className="num">
                Started
              </th>
              {stages.map((step) => (
                <th key={step} scope="col" className="num">
                  Step {step}
                </th>
              ))}
              <th scope="col" className="num">
                Sent
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.key ?? ""}>
                <th scope="row" style={{ fontWeight: "normal" }}>
                  {row.key ?? <span className="muted">(none)</span>}
                </th>
                <td data-label="Views" className="num">
                  {row.views}
                </td>
                <Stage label="Started" count={row.started} views={row.views} />
                {stages.map((step) => (
                  <Stage
                    key={step}
                    label={`Step ${step}`}
                    count={row.steps.find((s) => s.step === step)?.reached ?? 0}
                    views={row.views}
                  />
                ))}
                <Stage label="Sent" count={row.submitted} views={row.views} />
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
