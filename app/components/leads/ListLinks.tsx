// The links around the lead list: the whole view's exports, and the keyset pages.
import { Link } from "@remix-run/react";

export function ExportLinks({ filterQuery, invalid }: { filterQuery: string; invalid: boolean }) {
  const exportHref = (format: "csv" | "xlsx") =>
    `/api/leads/export?format=${format}${filterQuery ? `&${filterQuery}` : ""}`;
  if (invalid) {
    return (
      <p className="error" role="alert">
        Fix the filters above to see leads.
      </p>
    );
  }
  return (
    <p className="actions">
      <a className="button secondary" href={exportHref("csv")} download>
        Download CSV
      </a>
      <a className="button secondary" href={exportHref("xlsx")} download>
        Download Excel
      </a>
      <span className="muted">Exports every lead of this view, not only this page.</span>
    </p>
  );
}

export function Pagination({
  filterQuery,
  isFirstPage,
  nextCursor,
}: {
  filterQuery: string;
  isFirstPage: boolean;
  nextCursor: string | null;
}) {
  return (
    <nav className="actions" aria-label="Pages" style={{ marginTop: "1rem" }}>
      {!isFirstPage ? <Link to={`/leads${filterQuery ? `?${filterQuery}` : ""}`}>Newest</Link> : null}
      {nextCursor ? (
        <Link to={`/leads?${filterQuery ? `${filterQuery}&` : ""}cursor=${encodeURIComponent(nextCursor)}`} rel="next">
          Older leads
        </Link>
      ) : null}
    </nav>
  );
}
