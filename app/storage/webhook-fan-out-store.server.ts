// Fanning out lead events to deliveries (decision 028). A lead.created is written with its
// lead as one small row, the event, naming its lead, and in `fanOutTo` the endpoints it is
// for (and its time in `fanOutAt`, indexed: an id list could outgrow an index entry); its
// body is not built yet. The webhook worker builds the bodies of a batch of such events from
// their leads, then, in one transaction, writes each body, the delivery rows, and clears
// both columns, so each event is fanned out once even with several instances. The lead's
// transaction thus writes one small row: the delivery row and the 1 KB body were most of
// what an endpoint cost the submit endpoint. One implementation per database (decision 021).
import { db, idleSqlite, prepared, type Prisma } from "~/utils/db.server";
import { timeOrderedId } from "~/utils/random-text.server";

/**
 * The bodies the worker built for events written without one, by event id: null for an
 * event whose lead is gone (deleted with its form before the fan-out: nothing is sent).
 */
export type EventBodies = ReadonlyMap<string, string | null>;

export interface WebhookFanOutStore {
  /**
   * Writes the deliveries of up to `limit` events not fanned out yet, oldest first; returns
   * how many events it fanned out or dropped. An event still without a body takes its body
   * from `bodies`; null there drops it; one not there (written after they were built) is
   * left to the next pass.
   */
  fanOut(limit: number, bodies?: EventBodies): Promise<number>;
}

type PendingEvent = { id: string; fanOutTo: string; unbuilt: boolean | number | bigint };

/** What to do with each pending event: fan out (with a body to write first, or not), drop, or leave. */
function sortOut(events: readonly PendingEvent[], bodies: EventBodies) {
  const ready: PendingEvent[] = [];
  const built: Array<{ id: string; payload: string }> = [];
  const dropped: string[] = [];
  for (const event of events) {
    if (!Number(event.unbuilt)) {
      ready.push(event);
      continue;
    }
    const payload = bodies.get(event.id);
    if (payload === undefined) continue;
    if (payload === null) dropped.push(event.id);
    else {
      built.push({ id: event.id, payload });
      ready.push(event);
    }
  }
  return { ready, built, dropped };
}

/** Each delivery to write: a new id, its event and its endpoint. */
function deliveriesOf(events: readonly PendingEvent[]) {
  return events.flatMap((event) =>
    event.fanOutTo
      .split(",")
      .filter(Boolean)
      .map((endpointId) => ({ id: timeOrderedId("dlv_"), eventId: event.id, endpointId })),
  );
}

const NO_BODIES: EventBodies = new Map();

// Both read the oldest pending events from the index on fanOutAt, where they start: a scan
// from the table's first row would pass every event already fanned out, and grow with them
// (a first version's passes took longer round after round); and in time order, so a burst's
// deliveries go out in the order of its leads, whichever forms and endpoints they are for.
const PENDING = `SELECT "id", "fanOutTo", "payload" IS NULL AS "unbuilt" FROM "WebhookEvent"
  WHERE "fanOutAt" > '' ORDER BY "fanOutAt" LIMIT ?`;
// Only to an endpoint that still exists (one deleted since the event was written is
// skipped); due at once, as of the event's time, so the deliveries keep the leads' order.
const INSERT_INTO = `INSERT INTO "WebhookDelivery" ("id", "eventId", "endpointId", "status", "attempts", "nextAttemptAt", "createdAt")`;
const INSERT_DELIVERY = `${INSERT_INTO}
  SELECT ?, e."id", endpoint."id", 'pending', 0, e."createdAt", e."createdAt"
  FROM "WebhookEvent" e JOIN "WebhookEndpoint" endpoint ON endpoint."id" = ?
  WHERE e."id" = ?`;
const DONE = `UPDATE "WebhookEvent" SET "fanOutTo" = NULL, "fanOutAt" = NULL WHERE "id" = ?`;
const SET_BODY = `UPDATE "WebhookEvent" SET "payload" = ? WHERE "id" = ?`;
const DROP = `DELETE FROM "WebhookEvent" WHERE "id" = ?`;

export const sqliteWebhookFanOutStore: WebhookFanOutStore = {
  async fanOut(limit, bodies = NO_BODIES) {
    const connection = await idleSqlite();
    // IMMEDIATE: the write lock first, so another process fanning out waits for this one
    // and then finds these events done, instead of failing on a stale read.
    return connection
      .transaction(() => {
        const { ready, built, dropped } = sortOut(prepared(connection, PENDING).all(limit) as PendingEvent[], bodies);
        for (const event of built) prepared(connection, SET_BODY).run(event.payload, event.id);
        for (const id of dropped) prepared(connection, DROP).run(id);
        for (const delivery of deliveriesOf(ready)) {
          prepared(connection, INSERT_DELIVERY).run(delivery.id, delivery.endpointId, delivery.eventId);
        }
        for (const event of ready) prepared(connection, DONE).run(event.id);
        return ready.length + dropped.length;
      })
      .immediate();
  },
};

export const postgresWebhookFanOutStore: WebhookFanOutStore = {
  fanOut(limit, bodies = NO_BODIES) {
    return db.$transaction(async (tx: Prisma.TransactionClient) => {
      // SKIP LOCKED: another instance's batch is left to it.
      const pending = await tx.$queryRawUnsafe<PendingEvent[]>(
        `SELECT "id", "fanOutTo", "payload" IS NULL AS "unbuilt" FROM "WebhookEvent"
         WHERE "fanOutAt" IS NOT NULL ORDER BY "fanOutAt" LIMIT $1 FOR UPDATE SKIP LOCKED`,
        limit,
      );
      const { ready: events, built, dropped } = sortOut(pending, bodies);
      if (built.length > 0) {
        await tx.$executeRawUnsafe(
          `UPDATE "WebhookEvent" e SET "payload" = b.payload FROM unnest($1::text[], $2::text[]) AS b(id, payload)
           WHERE e."id" = b.id`,
          built.map((event) => event.id),
          built.map((event) => event.payload),
        );
      }
      if (dropped.length > 0)
        await tx.$executeRawUnsafe(`DELETE FROM "WebhookEvent" WHERE "id" = ANY($1::text[])`, dropped);
      if (events.length === 0) return dropped.length;
      const deliveries = deliveriesOf(events);
      await tx.$executeRawUnsafe(
        `${INSERT_INTO}
         SELECT d.id, e."id", endpoint."id", 'pending'::"WebhookDeliveryStatus", 0, e."createdAt", e."createdAt"
         FROM unnest($1::text[], $2::text[], $3::text[]) AS d(id, event_id, endpoint_id)
         JOIN "WebhookEvent" e ON e."id" = d.event_id
         JOIN "WebhookEndpoint" endpoint ON endpoint."id" = d.endpoint_id`,
        deliveries.map((delivery) => delivery.id),
        deliveries.map((delivery) => delivery.eventId),
        deliveries.map((delivery) => delivery.endpointId),
      );
      await tx.$executeRawUnsafe(
        `UPDATE "WebhookEvent" SET "fanOutTo" = NULL, "fanOutAt" = NULL WHERE "id" = ANY($1::text[])`,
        events.map((event) => event.id),
      );
      return events.length + dropped.length;
    });
  },
};
