// Webhook events: which endpoints receive one, and the rows written beside the change
// that caused it (in its transaction). Who subscribes is read on the hot path (every
// lead) from a cache of the enabled endpoints, dropped at once when this process changes
// an endpoint and read again at most every second, so a change made on another instance
// applies there within a second.
import { db, slices, type Prisma } from "~/storage/db.server";
import type { LeadUpdatedEventRow } from "~/storage/lead-store";
import type { UnbuiltEvent } from "~/storage/webhook-fan-out-store.server";
import { timeOrderedId } from "~/utils/random-text.server";
import type { WebhookEventType } from "./webhook-schemas";

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
  const list = db.webhookEndpoint
    .findMany({ where: { disabledAt: null }, select: { id: true, events: true, formId: true, kind: true } })
    .then((rows) =>
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

/** A Standard Webhooks body: `{type, timestamp, data}`. */
export function eventBody(type: string, createdAt: Date, data: unknown): string {
  return JSON.stringify({ type, timestamp: createdAt.toISOString(), data });
}

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
 * Writes lead.updated events, their bodies built, in the caller's transaction, in one
 * statement: the webhook worker fans them out to their deliveries (decision 041).
 */
export async function writeLeadUpdatedEvents(
  events: readonly LeadUpdatedEventRow[],
  tx: Prisma.TransactionClient,
): Promise<void> {
  if (events.length === 0) return;
  await tx.webhookEvent.createMany({
    data: events.map((event) => ({
      id: event.id,
      type: "lead.updated",
      leadId: event.leadId,
      payload: event.payload,
      createdAt: event.createdAt,
      fanOutTo: event.fanOutTo,
      fanOutAt: event.createdAt,
    })),
  });
}

/**
 * A lead's lead.created, as the lead store writes it with the lead: the endpoints it is for,
 * no body yet. The webhook worker fans it out to their deliveries and builds its body then,
 * from the lead as it was created (leadCreatedBodies; decision 028).
 */
export type LeadCreatedEvent = { id: string; createdAt: Date; endpointIds: string[] };

/** The lead.created of a lead of `formId` stored at `createdAt`, or null when no endpoint is subscribed. */
export async function leadCreatedEvent(formId: string, createdAt: Date): Promise<LeadCreatedEvent | null> {
  const endpointIds = await subscribersOf("lead.created", formId);
  return endpointIds.length === 0 ? null : { id: randomId("msg"), createdAt, endpointIds };
}

const EPOCH = new Date(0);

/**
 * The lead.created events of these leads not fanned out yet whose body is still to be
 * built. Read from the index on fanOutAt, where the events waiting start: a range, so that
 * neither database passes the events done.
 */
export async function unbuiltLeadEvents(leadIds: string[]): Promise<UnbuiltEvent[]> {
  const events: UnbuiltEvent[] = [];
  // In slices: a bulk delete's batch of 1,000 ids beside the fanOutAt bound is more than
  // Prisma binds on SQLite (IN_LIST_SLICE).
  for (const ids of slices(leadIds)) {
    events.push(
      ...(await db.webhookEvent.findMany({
        where: { fanOutAt: { gt: EPOCH }, payload: null, leadId: { in: ids } },
        select: { id: true, leadId: true, createdAt: true },
      })),
    );
  }
  return events;
}

/**
 * Writes the bodies built for events that had none (leadCreatedBodies), where none was
 * written meanwhile; null (no body could be built) writes nothing.
 */
export async function writeBuiltBodies(
  bodies: ReadonlyMap<string, string | null>,
  client: Prisma.TransactionClient = db,
): Promise<void> {
  for (const [id, payload] of bodies) {
    if (payload !== null) await client.webhookEvent.updateMany({ where: { id, payload: null }, data: { payload } });
  }
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
export async function writeWebhookEvents(
  events: readonly NewWebhookEvent[],
  tx: Prisma.TransactionClient = db,
): Promise<number> {
  const ids = [...new Set(events.flatMap((event) => event.deliveries.map((delivery) => delivery.endpointId)))];
  if (ids.length === 0) return 0;
  const existing = new Set(
    (await tx.webhookEndpoint.findMany({ where: { id: { in: ids } }, select: { id: true } })).map((row) => row.id),
  );
  const written = events
    .map((event) => ({ event, deliveries: event.deliveries.filter((delivery) => existing.has(delivery.endpointId)) }))
    .filter(({ deliveries }) => deliveries.length > 0);
  if (written.length === 0) return 0;
  await tx.webhookEvent.createMany({
    data: written.map(({ event }) => ({
      id: event.id,
      type: event.type,
      payload: event.payload,
      createdAt: event.createdAt,
    })),
  });
  await tx.webhookDelivery.createMany({
    data: written.flatMap(({ event, deliveries }) =>
      deliveries.map((delivery) => ({
        id: delivery.id,
        eventId: event.id,
        endpointId: delivery.endpointId,
        nextAttemptAt: event.createdAt,
        createdAt: event.createdAt,
      })),
    ),
  });
  return written.length;
}
