// One person's history: the other leads and the support requests from the lead's email
// address, newest first (the newest 20 of each).
import { Link } from "@remix-run/react";
import { LocalTime } from "~/components/LocalTime";
import { STATUS_LABELS } from "./LeadWorkForm";

type History = {
  leads: Array<{ id: string; formName: string; status: string; createdAt: string }>;
  supportRequests: Array<{ reference: string; subject: string; status: string; createdAt: string }>;
};

export function PersonHistory({ history }: { history: History }) {
  const empty = history.leads.length === 0 && history.supportRequests.length === 0;
  return (
    <section className="card" aria-labelledby="history-heading">
      <h2 id="history-heading">From the same address</h2>
      {empty ? <p className="muted">No other leads or support requests from this address.</p> : null}
      {history.leads.length > 0 ? (
        <table aria-label="Other leads">
          <thead>
            <tr>
              <th scope="col">Lead</th>
              <th scope="col">Status</th>
              <th scope="col">Submitted</th>
            </tr>
          </thead>
          <tbody>
            {history.leads.map((lead) => (
              <tr key={lead.id}>
                <td data-label="Lead">
                  <Link to={`/leads/${lead.id}`}>{lead.formName || "Lead"}</Link>
                </td>
                <td data-label="Status">
                  <span className={`badge ${lead.status === "spam" ? "spam" : ""}`}>
                    {STATUS_LABELS[lead.status] ?? lead.status}
                  </span>
                </td>
                <td data-label="Submitted">
                  <LocalTime iso={lead.createdAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {history.supportRequests.length > 0 ? (
        <table aria-label="Support requests">
          <thead>
            <tr>
              <th scope="col">Support request</th>
              <th scope="col">Status</th>
              <th scope="col">Opened</th>
            </tr>
          </thead>
          <tbody>
            {history.supportRequests.map((ticket) => (
              <tr key={ticket.reference}>
                <td data-label="Support request">
                  <Link to={`/support/${ticket.reference}`}>
                    {ticket.reference}: {ticket.subject}
                  </Link>
                </td>
                <td data-label="Status">
                  <span className={`badge ${ticket.status}`}>{ticket.status}</span>
                </td>
                <td data-label="Opened">
                  <LocalTime iso={ticket.createdAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
