// Fanning out lead events to deliveries (decision 028). A lead.created is written with its
// lead as one row, the event, naming in `fanOutTo` the endpoints it is for (and its time in
// `fanOutAt`, indexed: an id list could outgrow an index entry); the webhook
// worker turns a batch of such events into delivery rows and clears both, in one
// transaction, so each event is fanned out once even with several instances. The lead's
// transaction thus writes one row fewer: the delivery row was half of what an endpoint
// cost the submit endpoint on SQLite. One implementation per database (decision 021).
import { db, idleSqlite, prepared, type Prisma } from "~/utils/db.server";
import { timeOrderedId } from "~/utils/random-text.server";

export interface WebhookFanOutStore {
  /** Writes the deliveries of up to `limit` events not fanned out yet; returns how many events. */
  fanOut(limit: number): Promise<number>;
}

type PendingEvent = { id: string; fanOutTo: string };

/** Each delivery to write: a new id, its event and its endpoint. */
function deliveriesOf(events: readonly PendingEvent[]) {
  return events.flatMap((event) =>
    event.fanOutTo
      .split(",")
      .filter(Boolean)
      .map((endpointId) => ({ id: timeOrderedId("dlv_"), eventId: event.id, endpointId })),
  );
}

// Both read the oldest pending events from the index on fanOutAt, where they start: a scan
// from the table's first row would pass every event already fanned out, and grow with them
// (a first version's passes took longer round after round); and in time order, so a burst's
// deliveries go out in the order of its leads, whichever forms and endpoints they are for.
const PENDING = `SELECT "id", "fanOutTo" FROM "WebhookEvent" WHERE "fanOutAt" > '' ORDER BY "fanOutAt" LIMIT ?`;
// Only to an endpoint that still exists (one deleted since the event was written is
// skipped); due at once, as of the event's time, so the deliveries keep the leads' order.
const INSERT_INTO = `INSERT INTO "WebhookDelivery" ("id", "eventId", "endpointId", "status", "attempts", "nextAttemptAt", "createdAt")`;
const INSERT_DELIVERY = `${INSERT_INTO}
  SELECT ?, e."id", endpoint."id", 'pending', 0, e."createdAt", e."createdAt"
  FROM "WebhookEvent" e JOIN "WebhookEndpoint" endpoint ON endpoint."id" = ?
  WHERE e."id" = ?`;
const DONE = `UPDATE "WebhookEvent" SET "fanOutTo" = NULL, "fanOutAt" = NULL WHERE "id" = ?`;

export const sqliteWebhookFanOutStore: WebhookFanOutStore = {
  async fanOut(limit) {
    const connection = await idleSqlite();
    // IMMEDIATE: the write lock first, so another process fanning out waits for this one
    // and then finds these events done, instead of failing on a stale read.
    return connection
      .transaction(() => {
        const events = prepared(connection, PENDING).all(limit) as PendingEvent[];
        for (const delivery of deliveriesOf(events)) {
          prepared(connection, INSERT_DELIVERY).run(delivery.id, delivery.endpointId, delivery.eventId);
        }
        for (const event of events) prepared(connection, DONE).run(event.id);
        return events.length;
      })
      .immediate();
  },
};

export const postgresWebhookFanOutStore: WebhookFanOutStore = {
  fanOut(limit) {
    return db.$transaction(async (tx: Prisma.TransactionClient) => {
      // SKIP LOCKED: another instance's batch is left to it.
      const events = await tx.$queryRawUnsafe<PendingEvent[]>(
        `SELECT "id", "fanOutTo" FROM "WebhookEvent" WHERE "fanOutAt" IS NOT NULL ORDER BY "fanOutAt" LIMIT $1 FOR UPDATE SKIP LOCKED`,
        limit,
      );
      if (events.length === 0) return 0;
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
      return events.length;
    });
  },
};
