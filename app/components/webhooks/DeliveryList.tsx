// An endpoint's deliveries log (/settings/webhooks/:id): each delivery with its attempts,
// what the receiver answered shown as text, and a retry for those that failed.
import { Form } from "@remix-run/react";
import { LocalTime } from "~/components/LocalTime";
import type { listDeliveries } from "~/webhooks/webhooks.server";

export type Delivery = Awaited<ReturnType<typeof listDeliveries>>[number];
type Attempt = Delivery["attempts"][number];

/** The first 1 KB of what came back (the worker keeps no more), or why nothing did. */
const RESPONSE_SHOWN = 1024;

function Answer({ attempt }: { attempt: Attempt }) {
  if (attempt.error) return <pre className="response-body error">{attempt.error.slice(0, RESPONSE_SHOWN)}</pre>;
  if (!attempt.responseBody) return <span className="muted">(empty)</span>;
  return <pre className="response-body">{attempt.responseBody.slice(0, RESPONSE_SHOWN)}</pre>;
}

function AttemptTable({ attempts }: { attempts: Attempt[] }) {
  return (
    <table className="attempts">
      <thead>
        <tr>
          <th>Attempt</th>
          <th>Time</th>
          <th>Status</th>
          <th>Duration</th>
          <th>Response</th>
        </tr>
      </thead>
      <tbody>
        {attempts.map((attempt, index) => (
          <tr key={attempt.at + index} data-testid="attempt">
            <td data-label="Attempt">{index + 1}</td>
            <td data-label="Time">
              <LocalTime iso={attempt.at} />
            </td>
            <td data-label="Status">{attempt.statusCode ?? <span className="muted">no answer</span>}</td>
            <td data-label="Duration">{`${attempt.durationMs} ms`}</td>
            <td data-label="Response">
              <Answer attempt={attempt} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A delivery whose attempts so far all failed can be tried again at once. */
function canRetry(delivery: Delivery): boolean {
  return delivery.status === "failed" || (delivery.status === "pending" && delivery.attemptCount > 0);
}

function DeliveryItem({ delivery, busy }: { delivery: Delivery; busy: boolean }) {
  return (
    <li className="card" data-testid="delivery" aria-label={`Delivery ${delivery.eventType} ${delivery.eventId}`}>
      <p className="actions">
        <code>{delivery.eventType}</code>
        <span className={`badge ${delivery.status}`} data-testid="delivery-status">
          {delivery.status}
        </span>
        <span className="muted">
          {`${delivery.attemptCount} attempt${delivery.attemptCount === 1 ? "" : "s"} · created `}
          <LocalTime iso={delivery.createdAt} />
          {delivery.nextAttemptAt ? (
            <>
              {" "}
              · next attempt <LocalTime iso={delivery.nextAttemptAt} />
            </>
          ) : null}
        </span>
        {canRetry(delivery) ? (
          <Form method="post" aria-label={`Retry delivery ${delivery.eventId}`}>
            <input type="hidden" name="intent" value="retry" />
            <input type="hidden" name="deliveryId" value={delivery.id} />
            <button type="submit" className="secondary" disabled={busy}>
              Retry
            </button>
          </Form>
        ) : null}
      </p>
      <p className="muted">
        Event id <code>{delivery.eventId}</code> (the <code>webhook-id</code> header)
      </p>
      {delivery.attempts.length > 0 ? (
        <AttemptTable attempts={delivery.attempts} />
      ) : (
        <p className="muted">Not attempted yet.</p>
      )}
    </li>
  );
}

export function DeliveryList({ deliveries, busyDelivery }: { deliveries: Delivery[]; busyDelivery?: string }) {
  if (deliveries.length === 0) {
    return <p className="muted">No deliveries yet. Send a test event to see one.</p>;
  }
  return (
    <ol className="deliveries" aria-label="Deliveries">
      {deliveries.map((delivery) => (
        <DeliveryItem key={delivery.id} delivery={delivery} busy={busyDelivery === delivery.id} />
      ))}
    </ol>
  );
}
