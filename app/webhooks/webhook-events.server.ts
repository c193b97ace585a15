// Webhook events: which endpoints receive one, and the rows written beside the change
// that caused it (in its transaction). Who subscribes is read on the hot path (every
// lead) from a cache of the enabled endpoints, dropped at once when this process changes
// an endpoint and read again at most every second, so a change made on another instance
// applies there within a second.
import { db, type Prisma } from "~/storage/db.server";
import {
  enabledEndpoints,
  writeEventsWithDeliveries,
  type LeadCreatedEventRow,
  type LeadUpdatedEventRow,
} from "~/storage/webhooks/webhook-event-store.server";
import { timeOrderedId } from "~/utils/random-text.server";
import { eventBody } from "./event-bodies.server";
import type { WebhookEventType } from "./webhook-schemas";

// Written by the leads area through this module (the SQL is the webhooks' storage).
export {
  unbuiltLeadEvents,
  writeBuiltBodies,
  writeLeadCreatedEvent,
  writeLeadUpdatedEvents,
} from "~/storage/webhooks/webhook-event-store.server";
export type { LeadUpdatedEventRow };

const TTL_MS = 1000;

type Subscription = {
  endpointId: string;
  events: ReadonlySet<string>;
  formId: string | null;
  kind: "standard" | "slack";
};
let cache: { expiresAt: number; list: Promise<Subscription[]> } | null = null;

export function invalidateSubscriptions(): void {
  cache = null;
}

function subscriptions(): Promise<Subscription[]> {
  const now = Date.now();
  if (cache && cache.expiresAt > now) return cache.list;
  const list = enabledEndpoints().then((rows) =>
    rows.map((row) => ({
      endpointId: row.id,
      events: new Set(Array.isArray(row.events) ? (row.events as string[]) : []),
      formId: row.formId,
      kind: row.kind,
    })),
  );
  cache = { expiresAt: now + TTL_MS, list };
  // A failed read is not kept: the next event reads again.
  list.catch(() => {
    if (cache?.list === list) cache = null;
  });
  return list;
}

/** An event with its deliveries, as written beside the change that caused it. */
export type NewWebhookEvent = {
  /** The webhook-id of every delivery of it. */
  id: string;
  type: WebhookEventType | "ping";
  /** The JSON body, exactly as sent and signed. */
  payload: string;
  createdAt: Date;
  deliveries: Array<{ id: string; endpointId: string }>;
};

const randomId = (prefix: string) => timeOrderedId(`${prefix}_`);

export function newWebhookEvent(
  type: NewWebhookEvent["type"],
  data: unknown,
  endpointIds: string[],
  createdAt = new Date(),
): NewWebhookEvent {
  return {
    id: randomId("msg"),
    type,
    payload: eventBody(type, createdAt, data),
    createdAt,
    deliveries: endpointIds.map((endpointId) => ({ id: randomId("dlv"), endpointId })),
  };
}

/** The enabled endpoints subscribed to `type` for `formId` (null: an event of no form, such as a support request's). */
export async function subscribersOf(type: WebhookEventType, formId: string | null): Promise<string[]> {
  const endpointIds: string[] = [];
  for (const subscription of await subscriptions()) {
    if (!subscription.events.has(type)) continue;
    if (subscription.formId !== null && subscription.formId !== formId) continue;
    endpointIds.push(subscription.endpointId);
  }
  return endpointIds;
}

/**
 * Who hears of a change to a lead of `formId` (lead.updated), picked without waiting, so
 * inside a change's transaction: Slack endpoints only when its status changed (decision
 * 041). Null when no endpoint is subscribed to lead.updated at all.
 */
export type LeadUpdatedSubscribers = (formId: string, statusChanged: boolean) => string[];

export async function leadUpdatedSubscribers(): Promise<LeadUpdatedSubscribers | null> {
  const subscribed = (await subscriptions()).filter((subscription) => subscription.events.has("lead.updated"));
  if (subscribed.length === 0) return null;
  return (formId, statusChanged) =>
    subscribed
      .filter((subscription) => subscription.formId === null || subscription.formId === formId)
      .filter((subscription) => statusChanged || subscription.kind !== "slack")
      .map((subscription) => subscription.endpointId);
}

/**
 * A lead's lead.created, as the lead store writes it with the lead: the endpoints it is for,
 * no body yet. The webhook worker fans it out to their deliveries and builds its body then,
 * from the lead as it was created (leadCreatedBodies; decision 028).
 */
export type LeadCreatedEvent = LeadCreatedEventRow;

/** The lead.created of a lead of `formId` stored at `createdAt`, or null when no endpoint is subscribed. */
export async function leadCreatedEvent(formId: string, createdAt: Date): Promise<LeadCreatedEvent | null> {
  const endpointIds = await subscribersOf("lead.created", formId);
  return endpointIds.length === 0 ? null : { id: randomId("msg"), createdAt, endpointIds };
}

/**
 * Writes an event and its deliveries (inside the caller's transaction when given one), to
 * the endpoints that still exist: one deleted since the subscription cache was read is
 * skipped rather than failing the caller's write.
 */
export async function writeWebhookEvent(event: NewWebhookEvent, tx: Prisma.TransactionClient = db): Promise<void> {
  await writeWebhookEvents([event], tx);
}

/**
 * Writes many events and their deliveries at once (a bulk delete's batch of lead.deleted):
 * one read of the endpoints, then the events and the deliveries each in one insert. An event
 * left with no endpoint that still exists is not written. Answers how many were.
 */
export function writeWebhookEvents(
  events: readonly NewWebhookEvent[],
  tx: Prisma.TransactionClient = db,
): Promise<number> {
  return writeEventsWithDeliveries(events, tx);
}
