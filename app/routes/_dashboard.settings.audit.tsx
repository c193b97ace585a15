// /settings/audit: the audit log for owners and admins, filtered by action, person and days
// (a GET form: no JavaScript needed), newest first, 50 to a page (docs/api/audit.md).
import { Form, Link, useLoaderData } from "@remix-run/react";
import { AUDIT_ACTION_LABELS } from "~/audit/audit-actions";
import { AUDIT_ACTIONS, listAudit } from "~/audit/audit.server";
import { LocalTime } from "~/components/LocalTime";
import { RouteError } from "~/components/RouteError";
import { TableScroll } from "~/components/TableScroll";
import { authorize } from "~/staff/auth.server";
import { listStaff } from "~/staff/staff.server";
import { page } from "~/utils/http/page.server";
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction = () => [{ title: "Audit log · Lead Capture" }];

const FILTERS = ["action", "actorId", "from", "to"] as const;

export const loader = page(async function loader({ request }: LoaderFunctionArgs) {
  await authorize(request, "audit.read");
  const params = new URL(request.url).searchParams;
  // Empty fields of the filter form are no filter.
  const query = Object.fromEntries([...params].filter(([name, value]) => value !== "" && name !== "limit"));
  const [{ entries, nextCursor }, staff] = await Promise.all([listAudit({ ...query, limit: 50 }), listStaff()]);
  const filters = Object.fromEntries(FILTERS.map((name) => [name, params.get(name) ?? ""]));
  const next = nextCursor
    ? `?${new URLSearchParams({ ...Object.fromEntries(Object.entries(filters).filter(([, v]) => v)), cursor: nextCursor })}`
    : null;
  return { entries, next, filters, actions: AUDIT_ACTIONS, people: staff.map(({ id, email }) => ({ id, email })) };
});

export default function AuditPage() {
  const { entries, next, filters, actions, people } = useLoaderData<typeof loader>();
  return (
    <>
      <h1>Audit log</h1>
      <p className="muted">
        Sign-ins, exports, deletions, and changes to staff, tokens and webhooks. Entries cannot be changed.
      </p>
      <Form method="get" className="filters" aria-label="Filter the audit log">
        <label>
          Action{" "}
          <select name="action" defaultValue={filters.action}>
            <option value="">Any</option>
            {actions.map((action) => (
              <option key={action} value={action}>
                {AUDIT_ACTION_LABELS[action]}
              </option>
            ))}
          </select>
        </label>{" "}
        <label>
          Person{" "}
          <select name="actorId" defaultValue={filters.actorId}>
            <option value="">Anyone</option>
            {people.map((person) => (
              <option key={person.id} value={person.id}>
                {person.email}
              </option>
            ))}
          </select>
        </label>{" "}
        <label>
          From <input type="date" name="from" defaultValue={filters.from} />
        </label>{" "}
        <label>
          To <input type="date" name="to" defaultValue={filters.to} />
        </label>{" "}
        <button type="submit">Filter</button>
      </Form>
      {entries.length === 0 ? <p className="muted">No entries.</p> : <AuditTable entries={entries} />}
      {next ? (
        <p>
          <Link to={next}>Older entries</Link>
        </p>
      ) : null}
    </>
  );
}

type Entry = ReturnType<typeof useLoaderData<typeof loader>>["entries"][number];

function AuditTable({ entries }: { entries: Entry[] }) {
  return (
    <TableScroll label="Audit log table">
      <table aria-label="Audit log">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">What happened</th>
            <th scope="col">From (address hash)</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr key={entry.id}>
              <td data-label="When">
                <LocalTime iso={entry.at} seconds />
              </td>
              <td data-label="What happened">
                <p className="audit-summary">{entry.summary}</p>
                <details className="audit-details">
                  <summary>Details</summary>
                  <code className="wrap-anywhere">
                    {JSON.stringify({ action: entry.action, target: entry.target, ...entry.details })}
                  </code>
                </details>
              </td>
              <td data-label="From (address hash)">
                <code>{entry.ipHash?.slice(0, 12) ?? "—"}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

export function ErrorBoundary() {
  return <RouteError />;
}
