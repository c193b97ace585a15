// The sources page's support load (decision 071): the support requests of the period from
// people whose first touch was this form, by that first lead's utm_source.
export function SupportBySource({ rows }: { rows: Array<{ source: string | null; count: number }> }) {
  return (
    <section className="card" aria-labelledby="support-by-source-heading">
      <h2 id="support-by-source-heading">Support requests by first-touch source</h2>
      <p className="muted">
        Support requests opened in this period by people whose first lead (not spam) came through this form, by that
        lead&apos;s utm_source: the support load each source brings.
      </p>
      {rows.length === 0 ? (
        <p className="muted">No support requests from people who first came through this form in this period.</p>
      ) : (
        <table aria-label="Support requests by first-touch source">
          <thead>
            <tr>
              <th scope="col">First-touch utm_source</th>
              <th scope="col">Support requests</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.source ?? ""}>
                <th scope="row" style={{ fontWeight: "normal" }}>
                  {row.source ?? <span className="muted">(none)</span>}
                </th>
                <td data-label="Support requests">{row.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
