// Writing webhook events (WebhookEvent, and the deliveries of those written fanned out), for
// app/webhooks, the one area that reaches the webhook tables (decision 045): through Prisma
// in a caller's transaction, and as the statements the lead store's transactions run, so a
// lead and its lead.created (or a change and its lead.updated) still commit together
// (decisions 027, 028 and 041). The fan-out to deliveries is ./webhook-fan-out-store.server.ts.
import { db, prepared, slices, sqliteTime, type Prisma, type SqliteConnection } from "~/storage/db.server";

/**
 * A lead's lead.created, as the lead store writes it with the lead: the endpoints it is for,
 * no body yet; the webhook worker builds its body and writes its deliveries (decision 028).
 */
export type LeadCreatedEventRow = { id: string; createdAt: Date; endpointIds: string[] };

/**
 * A lead.updated event with its body built, written in the change's transaction with the
 * endpoints it is for in `fanOutTo` (comma-separated ids) and its time again in `fanOutAt`:
 * the webhook worker writes its deliveries (decision 041).
 */
export type LeadUpdatedEventRow = { id: string; leadId: string; payload: string; createdAt: Date; fanOutTo: string };

/** An event with its body and its deliveries, written at once (a ping, a ticket's event, a lead.deleted). */
export type WebhookEventWithDeliveries = {
  id: string;
  type: string;
  payload: string;
  createdAt: Date;
  deliveries: ReadonlyArray<{ id: string; endpointId: string }>;
};

/** An event waiting for its fan-out without a body yet. */
export type UnbuiltEvent = { id: string; leadId: string | null; createdAt: Date };

// lead.created: the event alone, without its body (null), with its lead, the endpoints it is
// for in `fanOutTo` and its time again in `fanOutAt`. lead.updated: the same with its body.
const LEAD_CREATED_INSERT = `INSERT INTO "WebhookEvent" ("id", "type", "leadId", "createdAt", "fanOutTo", "fanOutAt")`;
const LEAD_UPDATED_INSERT = `INSERT INTO "WebhookEvent" ("id", "type", "leadId", "createdAt", "fanOutTo", "fanOutAt", "payload")`;
const SQLITE_LEAD_CREATED = `${LEAD_CREATED_INSERT} VALUES (?, 'lead.created', ?, ?, ?, ?)`;
const SQLITE_LEAD_UPDATED = `${LEAD_UPDATED_INSERT} VALUES (?, 'lead.updated', ?, ?, ?, ?, ?)`;

/** Writes a lead's lead.created on a SQLite connection, inside the transaction the caller holds. */
export function writeLeadCreatedSqlite(connection: SqliteConnection, leadId: string, event: LeadCreatedEventRow): void {
  const time = sqliteTime(event.createdAt);
  prepared(connection, SQLITE_LEAD_CREATED).run(event.id, leadId, time, event.endpointIds.join(","), time);
}

/**
 * Writes a lead's lead.created through Prisma, in the caller's transaction: for a lead whose
 * announcement waited (a double opt-in lead, once confirmed; decision 067).
 */
export async function writeLeadCreatedEvent(
  tx: Prisma.TransactionClient,
  leadId: string,
  event: LeadCreatedEventRow,
): Promise<void> {
  await tx.webhookEvent.create({
    data: {
      id: event.id,
      type: "lead.created",
      leadId,
      createdAt: event.createdAt,
      fanOutTo: event.endpointIds.join(","),
      fanOutAt: event.createdAt,
    },
  });
}

/** Writes lead.updated events on a SQLite connection, inside the transaction the caller holds. */
export function writeLeadUpdatedSqlite(connection: SqliteConnection, events: readonly LeadUpdatedEventRow[]): void {
  // One prepared INSERT per event: in-process, a row costs microseconds.
  const insert = prepared(connection, SQLITE_LEAD_UPDATED);
  for (const event of events) {
    const time = sqliteTime(event.createdAt);
    insert.run(event.id, event.leadId, time, event.fanOutTo, time, event.payload);
  }
}

/** How many parameters (text arrays) leadCreatedInsertPostgres takes. */
export const LEAD_CREATED_PARAMS = 4;

/**
 * The part of a PostgreSQL statement that writes the lead.created of the rows of `leads` (a
 * CTE returning "id"): LEAD_CREATED_PARAMS text arrays from parameter `from` on, filled by
 * addLeadCreatedParams. An event whose lead was not written is not either.
 */
export function leadCreatedInsertPostgres(from: number, leads: string): string {
  const arrays = Array.from({ length: LEAD_CREATED_PARAMS }, (_, i) => `$${from + i}::text[]`).join(", ");
  return `${LEAD_CREATED_INSERT}
  SELECT e.id, 'lead.created', e.lead_id, e.created::timestamp, e.fan_out_to, e.created::timestamp
  FROM unnest(${arrays}) AS e(id, lead_id, created, fan_out_to)
  JOIN ${leads} ON ${leads}."id" = e.lead_id`;
}

/** Empty parameter arrays for leadCreatedInsertPostgres. */
export const leadCreatedParams = (): unknown[][] => Array.from({ length: LEAD_CREATED_PARAMS }, () => []);

/** Adds a lead's lead.created to the parameter arrays. */
export function addLeadCreatedParams(params: unknown[][], leadId: string, event: LeadCreatedEventRow): void {
  [event.id, leadId, event.createdAt.toISOString(), event.endpointIds.join(",")].forEach((value, i) =>
    params[i].push(value),
  );
}

/** The statement that writes lead.updated events on PostgreSQL, all at `at`. */
export function leadUpdatedInsertPostgres(at: Date, events: readonly LeadUpdatedEventRow[]) {
  return {
    text: `${LEAD_UPDATED_INSERT} SELECT e.id, 'lead.updated', e.lead_id, $1::timestamp, e.fan_out_to, $1::timestamp, e.payload
      FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) AS e(id, lead_id, fan_out_to, payload)`,
    values: [
      at.toISOString(),
      events.map((event) => event.id),
      events.map((event) => event.leadId),
      events.map((event) => event.fanOutTo),
      events.map((event) => event.payload),
    ],
  };
}

/** Writes lead.updated events through Prisma, in the caller's transaction, in one statement. */
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

const EPOCH = new Date(0);

/**
 * The lead.created events of these leads not fanned out yet whose body is still to be
 * built. Read from the index on fanOutAt, where the events waiting start: a range, so that
 * neither database passes the events done.
 */
export async function unbuiltLeadEvents(leadIds: readonly string[]): Promise<UnbuiltEvent[]> {
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

/** Writes bodies built for events that had none, where none was written meanwhile; null writes nothing. */
export async function writeBuiltBodies(
  bodies: ReadonlyMap<string, string | null>,
  client: Prisma.TransactionClient = db,
): Promise<void> {
  for (const [id, payload] of bodies) {
    if (payload !== null) await client.webhookEvent.updateMany({ where: { id, payload: null }, data: { payload } });
  }
}

/**
 * Writes events and their deliveries (inside the caller's transaction when given one): one
 * read of the endpoints, then the events and the deliveries each in one insert. Only to the
 * endpoints that still exist; an event left with none is not written. Answers how many were.
 */
export async function writeEventsWithDeliveries(
  events: readonly WebhookEventWithDeliveries[],
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

/** The enabled endpoints, with what each is subscribed to (the subscription cache's read). */
export function enabledEndpoints() {
  return db.webhookEndpoint.findMany({
    where: { disabledAt: null },
    select: { id: true, events: true, formId: true, kind: true },
  });
}
