import { Form, Link, useLoaderData, useNavigation } from "@remix-run/react";
import { Breakable } from "~/components/Breakable";
import { LocalTime } from "~/components/LocalTime";
import { RouteError } from "~/components/RouteError";
import { authorize } from "~/staff/auth.server";
import { listStaff } from "~/staff/staff.server";
import { ListTicketsSchema, listTickets } from "~/support/support.server";
import { TICKET_STATUSES } from "~/support/ticket-status";
import { invalidFields, textPolicyDetails } from "~/utils/domain-error";
import { page } from "~/utils/http/page.server";
import { textPolicyIssues } from "~/utils/text-policy";
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction = () => [{ title: "Support · Lead Capture" }];

export const loader = page(async function loader({ request }: LoaderFunctionArgs) {
  const user = await authorize(request, "support.read");
  const url = new URL(request.url);
  // Empty fields of the filter form are no filter.
  const params = Object.fromEntries([...url.searchParams].filter(([, value]) => value !== ""));
  // A control character is refused as the input policy says (422, a page saying so); another
  // bad value of a hand-edited address shows the unfiltered list rather than an error.
  const refused = textPolicyIssues(params);
  if (refused.length > 0) {
    throw invalidFields(textPolicyDetails(refused), "Remove the control characters from the search.");
  }
  const parsed = ListTicketsSchema.safeParse(params);
  const query = parsed.success ? parsed.data : ListTicketsSchema.parse({});
  const [{ tickets, nextCursor }, staff] = await Promise.all([listTickets(query, user), listStaff()]);
  return {
    tickets,
    nextCursor,
    status: query.status ?? "",
    q: query.q ?? "",
    assignee: query.assignee ?? "",
    spam: query.spam ?? "",
    staff: staff.filter((member) => member.status === "active").map(({ id, email }) => ({ id, email })),
    paged: Boolean(query.cursor),
  };
});

type Filter = { status: string; q: string; assignee: string; spam: string };

function pageLink(filter: Filter, cursor?: string) {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries({ ...filter, cursor })) if (value) params.set(name, value);
  const search = params.toString();
  return search ? `/support?${search}` : "/support";
}

export default function SupportList() {
  const { tickets, nextCursor, staff, paged, ...filter } = useLoaderData<typeof loader>();
  const { status, q, assignee, spam } = filter;
  const navigation = useNavigation();
  const searching = navigation.state === "loading" && navigation.location.pathname === "/support";
  return (
    <>
      <h1>Support requests</h1>
      <p>
        <Link to="/settings/replies">Saved replies</Link>
      </p>
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
          <label htmlFor="assignee">Assigned to</label>
          <select id="assignee" name="assignee" defaultValue={assignee}>
            <option value="">Anyone or nobody</option>
            <option value="mine">Me</option>
            <option value="unassigned">Nobody (unassigned)</option>
            {staff.map((person) => (
              <option key={person.id} value={person.id}>
                {person.email}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="spam">Spam</label>
          <select id="spam" name="spam" defaultValue={spam}>
            <option value="">Shown</option>
            <option value="hide">Hidden</option>
            <option value="only">Only spam</option>
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
      {tickets.length === 0 ? <p className="muted">No support requests match.</p> : <TicketsTable tickets={tickets} />}
      <p className="actions">
        {paged ? <Link to={pageLink(filter)}>First page</Link> : null}
        {nextCursor ? <Link to={pageLink(filter, nextCursor)}>Next page</Link> : null}
      </p>
    </>
  );
}

type Ticket = ReturnType<typeof useLoaderData<typeof loader>>["tickets"][number];

function TicketsTable({ tickets }: { tickets: Ticket[] }) {
  return (
    <table>
      <thead>
        <tr>
          <th>Reference</th>
          <th>Subject</th>
          <th>Requester</th>
          <th>Status</th>
          <th>Assigned to</th>
          <th>Last activity</th>
        </tr>
      </thead>
      <tbody>
        {tickets.map((ticket) => (
          <tr key={ticket.id}>
            <td data-label="Reference">
              <Link to={`/support/${ticket.reference}`}>{ticket.reference}</Link>
            </td>
            <td data-label="Subject">{ticket.subject}</td>
            <td data-label="Requester">
              {ticket.name ? `${ticket.name} ` : null}
              <span className="muted">
                <Breakable text={ticket.email} />
              </span>
            </td>
            <td data-label="Status">
              <span className={`badge ${ticket.status}`}>{ticket.status}</span>
              {ticket.spam ? (
                <>
                  {" "}
                  <span className="badge spam">spam</span>
                </>
              ) : null}
            </td>
            <td data-label="Assigned to">
              {ticket.assignee ? (
                (ticket.assignee.name ?? ticket.assignee.email)
              ) : (
                <span className="muted">nobody</span>
              )}
            </td>
            <td data-label="Last activity">
              <LocalTime iso={ticket.lastMessageAt} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function ErrorBoundary() {
  return <RouteError />;
}
