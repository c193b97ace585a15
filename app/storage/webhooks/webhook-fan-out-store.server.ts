// Fanning out lead events to deliveries (decision 028). A lead.created is written with its
// lead as one small row, the event, naming its lead, and in `fanOutTo` the endpoints it is
// for (and its time in `fanOutAt`, indexed: an id list could outgrow an index entry); its
// body is not built yet. The webhook worker reads a batch of such events (`unbuilt`), builds
// their bodies from their leads (app/webhooks/event-bodies.server.ts), and hands them down
// to `fanOut`, which in one transaction writes each body and the delivery rows and clears
// both columns, so each event is fanned out once even with several instances. Storage
// calls back into no area: the bodies come in as data (decision 045). The lead's
// transaction thus writes one small row: the delivery row and the 1 KB body were most of
// what an endpoint cost the submit endpoint. One implementation per database (decision 021).
import { db, idleSqlite, isoFromUtcText, prepared, type Prisma } from "~/storage/db.server";
import { log } from "~/utils/log.server";
import { timeOrderedId } from "~/utils/random-text.server";
import type { UnbuiltEvent } from "./webhook-event-store.server";

/**
 * The bodies built for events written without one, by event id: null for an event whose
 * body cannot be built (its lead deleted with its form before the fan-out): it is dropped.
 * An event without a body and missing here waits for a later pass.
 */
export type BuiltBodies = ReadonlyMap<string, string | null>;

export interface WebhookFanOutStore {
  /**
   * Of the (up to `limit`) oldest events not fanned out yet, those whose body is still to be
   * built; null when no event is waiting at all (most passes: then there is nothing to do).
   */
  unbuilt(limit: number): Promise<UnbuiltEvent[] | null>;
  /**
   * Writes the deliveries of up to `limit` events not fanned out yet, oldest first, with
   * the bodies given for those written without one (none given: they wait); returns how
   * many events it fanned out or dropped.
   */
  fanOut(limit: number, bodies?: BuiltBodies): Promise<number>;
}

type PendingEvent = {
  id: string;
  fanOutTo: string;
  leadId: string | null;
  createdAt: Date | string;
  unbuilt: boolean | number | bigint;
};

/**
 * What to do with each pending event: fan out (with its body given, or the one it has),
 * drop, or leave for the next pass (written after the bodies were built).
 */
function sortOut(events: readonly PendingEvent[], bodies: BuiltBodies) {
  const ready: Array<PendingEvent & { payload: string | null }> = [];
  const dropped: string[] = [];
  for (const event of events) {
    if (!Number(event.unbuilt)) {
      ready.push({ ...event, payload: null });
      continue;
    }
    const payload = bodies.get(event.id);
    if (payload === undefined) continue;
    if (payload === null) dropped.push(event.id);
    else ready.push({ ...event, payload });
  }
  if (dropped.length > 0) log.warn(`webhook fan-out: dropped ${dropped.length} event(s) with no body to build`);
  return { ready, dropped };
}

const unbuiltOf = (events: readonly PendingEvent[]): UnbuiltEvent[] | null =>
  events.length === 0
    ? null
    : events
        .filter((event) => Number(event.unbuilt))
        .map((event) => ({
          id: event.id,
          leadId: event.leadId,
          createdAt: typeof event.createdAt === "string" ? new Date(isoFromUtcText(event.createdAt)) : event.createdAt,
        }));

/** Each delivery to write: a new id, its event and its endpoint. */
function deliveriesOf(events: readonly PendingEvent[]) {
  return events.flatMap((event) =>
    event.fanOutTo
      .split(",")
      .filter(Boolean)
      .map((endpointId) => ({ id: timeOrderedId("dlv_"), eventId: event.id, endpointId })),
  );
}

const NOTHING_BUILT: BuiltBodies = new Map();

// Both read the oldest pending events from the index on fanOutAt, where they start: a scan
// from the table's first row would pass every event already fanned out, and grow with them
// (a first version's passes took longer round after round); and in time order, so a burst's
// deliveries go out in the order of its leads, whichever forms and endpoints they are for.
const PENDING = `SELECT "id", "fanOutTo", "leadId", "createdAt", "payload" IS NULL AS "unbuilt" FROM "WebhookEvent"
  WHERE "fanOutAt" > '' ORDER BY "fanOutAt" LIMIT ?`;
// Only to an endpoint that still exists (one deleted since the event was written is
// skipped); due at once, as of the event's time, so the deliveries keep the leads' order.
const INSERT_INTO = `INSERT INTO "WebhookDelivery" ("id", "eventId", "endpointId", "status", "attempts", "nextAttemptAt", "createdAt")`;
const INSERT_DELIVERY = `${INSERT_INTO}
  SELECT ?, e."id", endpoint."id", 'pending', 0, e."createdAt", e."createdAt"
  FROM "WebhookEvent" e JOIN "WebhookEndpoint" endpoint ON endpoint."id" = ?
  WHERE e."id" = ?`;
// Its body (when built now) and done, in one write.
const DONE = `UPDATE "WebhookEvent" SET "payload" = COALESCE(?, "payload"), "fanOutTo" = NULL, "fanOutAt" = NULL WHERE "id" = ?`;
const DROP = `DELETE FROM "WebhookEvent" WHERE "id" = ?`;
const ANY_PENDING = `SELECT 1 FROM "WebhookEvent" WHERE "fanOutAt" > '' LIMIT 1`;

export const sqliteWebhookFanOutStore: WebhookFanOutStore = {
  async unbuilt(limit) {
    return unbuiltOf(prepared(await idleSqlite(), PENDING).all(limit) as PendingEvent[]);
  },

  async fanOut(limit, bodies = NOTHING_BUILT) {
    // The bodies were built before, outside the transaction (SQLite's is synchronous); the
    // transaction reads the events again under its lock, so one whose body another writer
    // set meanwhile (a delete: decision 028) keeps that body.
    const connection = await idleSqlite();
    // Nothing waiting (most passes): no write lock taken from the leads' commits.
    if (bodies.size === 0 && !prepared(connection, ANY_PENDING).get()) return 0;
    // IMMEDIATE: the write lock first, so another process fanning out waits for this one
    // and then finds these events done, instead of failing on a stale read.
    return connection
      .transaction(() => {
        const { ready, dropped } = sortOut(prepared(connection, PENDING).all(limit) as PendingEvent[], bodies);
        for (const id of dropped) prepared(connection, DROP).run(id);
        for (const delivery of deliveriesOf(ready)) {
          prepared(connection, INSERT_DELIVERY).run(delivery.id, delivery.endpointId, delivery.eventId);
        }
        for (const event of ready) prepared(connection, DONE).run(event.payload, event.id);
        return ready.length + dropped.length;
      })
      .immediate();
  },
};

export const postgresWebhookFanOutStore: WebhookFanOutStore = {
  async unbuilt(limit) {
    return unbuiltOf(
      await db.$queryRawUnsafe<PendingEvent[]>(
        `SELECT "id", "fanOutTo", "leadId", "createdAt", "payload" IS NULL AS "unbuilt" FROM "WebhookEvent"
         WHERE "fanOutAt" IS NOT NULL ORDER BY "fanOutAt" LIMIT $1`,
        limit,
      ),
    );
  },

  fanOut(limit, bodies = NOTHING_BUILT) {
    return db.$transaction(async (tx: Prisma.TransactionClient) => {
      // SKIP LOCKED: another instance's batch is left to it, so several instances fan out
      // side by side; an event locked here whose body was not built waits for a later pass.
      const pending = await tx.$queryRawUnsafe<PendingEvent[]>(
        `SELECT "id", "fanOutTo", "leadId", "createdAt", "payload" IS NULL AS "unbuilt" FROM "WebhookEvent"
         WHERE "fanOutAt" IS NOT NULL ORDER BY "fanOutAt" LIMIT $1 FOR UPDATE SKIP LOCKED`,
        limit,
      );
      const { ready, dropped } = sortOut(pending, bodies);
      if (dropped.length > 0)
        await tx.$executeRawUnsafe(`DELETE FROM "WebhookEvent" WHERE "id" = ANY($1::text[])`, dropped);
      if (ready.length === 0) return dropped.length;
      const deliveries = deliveriesOf(ready);
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
      // Its body (when built now) and done, in one write.
      await tx.$executeRawUnsafe(
        `UPDATE "WebhookEvent" e SET "payload" = COALESCE(b.payload, e."payload"), "fanOutTo" = NULL, "fanOutAt" = NULL
         FROM unnest($1::text[], $2::text[]) AS b(id, payload) WHERE e."id" = b.id`,
        ready.map((event) => event.id),
        ready.map((event) => event.payload),
      );
      return ready.length + dropped.length;
    });
  },
};
