import { Form, Link, useLoaderData, useNavigation } from "@remix-run/react";
import { RouteError } from "~/components/RouteError";
import { ListTicketsSchema, listTickets } from "~/models/support.server";
import { TICKET_STATUSES } from "~/models/ticket-status";
import { authorize } from "~/utils/auth.server";
import { page } from "~/utils/page.server";
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction = () => [{ title: "Support · Lead Capture" }];

export const loader = page(async function loader({ request }: LoaderFunctionArgs) {
  await authorize(request, "support.read");
  const url = new URL(request.url);
  const parsed = ListTicketsSchema.safeParse(Object.fromEntries(url.searchParams));
  // A hand-edited address with a bad value shows the unfiltered list rather than an error.
  const query = parsed.success ? parsed.data : ListTicketsSchema.parse({});
  const { tickets, nextCursor } = await listTickets(query);
  return { tickets, nextCursor, status: query.status ?? "", q: query.q ?? "", paged: Boolean(query.cursor) };
});

function pageLink(status: string, q: string, cursor?: string) {
  const params = new URLSearchParams();
  if (status) params.set("status", status);
  if (q) params.set("q", q);
  if (cursor) params.set("cursor", cursor);
  const search = params.toString();
  return search ? `/support?${search}` : "/support";
}

export default function SupportList() {
  const { tickets, nextCursor, status, q, paged } = useLoaderData<typeof loader>();
  const navigation = useNavigation();
  const searching = navigation.state === "loading" && navigation.location.pathname === "/support";
  return (
    <>
      <h1>Support requests</h1>
      <Form method="get" action="/support" className="row" role="search" aria-label="Filter support requests">
        <div>
          <label htmlFor="status">Status</label>
          <select id="status" name="status" defaultValue={status}>
            <option value="">Any status</option>
            {TICKET_STATUSES.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="q">Search</label>
          <input id="q" name="q" type="search" defaultValue={q} placeholder="Reference, email, subject…" />
        </div>
        <div className="actions">
          <button type="submit" disabled={searching}>
            {searching ? "Filtering…" : "Filter"}
          </button>
        </div>
      </Form>
      {tickets.length === 0 ? (
        <p className="muted">No support requests match.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Reference</th>
              <th>Subject</th>
              <th>Requester</th>
              <th>Status</th>
              <th>Last activity</th>
            </tr>
          </thead>
          <tbody>
            {tickets.map((ticket) => (
              <tr key={ticket.id}>
                <td>
                  <Link to={`/support/${ticket.reference}`}>{ticket.reference}</Link>
                </td>
                <td>{ticket.subject}</td>
                <td>
                  {ticket.name ? `${ticket.name} ` : null}
                  <span className="muted">{ticket.email}</span>
                </td>
                <td>
                  <span className={`badge ${ticket.status}`}>{ticket.status}</span>
                </td>
                <td>
                  <time dateTime={ticket.lastMessageAt.toISOString()}>{ticket.lastMessageAt.toUTCString()}</time>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p className="actions">
        {paged ? <Link to={pageLink(status, q)}>First page</Link> : null}
        {nextCursor ? <Link to={pageLink(status, q, nextCursor)}>Next page</Link> : null}
      </p>
    </>
  );
}

export function ErrorBoundary() {
  return <RouteError />;
}
