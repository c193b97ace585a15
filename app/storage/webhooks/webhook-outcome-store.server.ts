// Writing a batch of webhook attempts' outcomes (app/webhooks/webhook-delivery.server.ts): each
// attempt logged, each delivery moved on (succeeded, its next attempt, or failed), and each
// endpoint's health, in one transaction. One implementation per database (decision 021).
//
// On SQLite the write is one synchronous better-sqlite3 transaction on the shared
// connection. Through Prisma it was an interactive transaction of several awaited queries,
// and while it was open no lead could be committed on that connection: with one endpoint
// subscribed, the submit endpoint spent a third of its time waiting for it.
import { db, idleSqlite, prepared, sqliteTime, type Prisma } from "~/storage/db.server";
import { timeOrderedId } from "~/utils/random-text.server";

export type Outcome = {
  deliveryId: string;
  endpointId: string;
  /** The delivery's attempts, this one included. */
  attempts: number;
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  responseBody: string | null;
  error: string | null;
  /** When to try again; null: it used its last retry (and is failed), or it succeeded. */
  nextAttemptAt: Date | null;
};

export interface WebhookOutcomeStore {
  /**
   * Writes the outcomes, skipping deliveries deleted meanwhile (with their endpoint), so that
   * they cannot undo the others'. Health: a success clears its endpoint's failing streak and
   * sets lastSuccessAt (kept to the minute, so a busy endpoint's row is not written per
   * batch); a failure starts a streak. Returns the deliveries written.
   */
  record(outcomes: Outcome[], now: Date): Promise<Set<string>>;
}

// lastSuccessAt is rewritten only when this much older than now.
const SUCCESS_RESOLUTION_MS = 60_000;

/** The endpoints a batch succeeded for, and those it only failed for. */
function healthOf(outcomes: Outcome[]) {
  const succeeded = new Set(outcomes.filter((o) => o.ok).map((o) => o.endpointId));
  const failed = new Set(outcomes.filter((o) => !o.ok && !succeeded.has(o.endpointId)).map((o) => o.endpointId));
  return { succeeded, failed };
}

const status = (outcome: Outcome) => (outcome.ok ? "succeeded" : outcome.nextAttemptAt ? "pending" : "failed");

const SQLITE_PRESENT = `SELECT 1 FROM "WebhookDelivery" WHERE "id" = ?`;
const SQLITE_ATTEMPT = `INSERT INTO "WebhookAttempt" ("id", "deliveryId", "statusCode", "durationMs", "responseBody", "error", "createdAt") VALUES (?, ?, ?, ?, ?, ?, ?)`;
const SQLITE_DELIVERY = `UPDATE "WebhookDelivery" SET "status" = ?, "attempts" = ?, "lastStatusCode" = ?, "lockedUntil" = NULL, "nextAttemptAt" = COALESCE(?, "nextAttemptAt") WHERE "id" = ?`;
// "updatedAt" too, as Prisma's @updatedAt does on PostgreSQL.
const SQLITE_SUCCESS = `UPDATE "WebhookEndpoint" SET "lastSuccessAt" = ?, "failingSince" = NULL, "updatedAt" = ? WHERE "id" = ? AND ("failingSince" IS NOT NULL OR "lastSuccessAt" IS NULL OR "lastSuccessAt" < ?)`;
const SQLITE_FAILURE = `UPDATE "WebhookEndpoint" SET "failingSince" = ?, "updatedAt" = ? WHERE "id" = ? AND "failingSince" IS NULL`;

export const sqliteWebhookOutcomeStore: WebhookOutcomeStore = {
  async record(outcomes, now) {
    const connection = await idleSqlite();
    const at = sqliteTime(now);
    const written = new Set<string>();
    connection.transaction(() => {
      for (const outcome of outcomes) {
        if (!prepared(connection, SQLITE_PRESENT).get(outcome.deliveryId)) continue;
        written.add(outcome.deliveryId);
        prepared(connection, SQLITE_ATTEMPT).run(
          timeOrderedId("att_"),
          outcome.deliveryId,
          outcome.statusCode,
          outcome.durationMs,
          outcome.responseBody,
          outcome.error,
          at,
        );
        prepared(connection, SQLITE_DELIVERY).run(
          status(outcome),
          outcome.attempts,
          outcome.statusCode,
          outcome.nextAttemptAt ? sqliteTime(outcome.nextAttemptAt) : null,
          outcome.deliveryId,
        );
      }
      const { succeeded, failed } = healthOf(outcomes.filter((o) => written.has(o.deliveryId)));
      const stale = sqliteTime(new Date(now.getTime() - SUCCESS_RESOLUTION_MS));
      for (const id of succeeded) prepared(connection, SQLITE_SUCCESS).run(at, at, id, stale);
      for (const id of failed) prepared(connection, SQLITE_FAILURE).run(at, at, id);
    })();
    return written;
  },
};

export const postgresWebhookOutcomeStore: WebhookOutcomeStore = {
  async record(outcomes, now) {
    return db.$transaction(async (tx: Prisma.TransactionClient) => {
      const written = new Set(
        (
          await tx.webhookDelivery.findMany({
            where: { id: { in: outcomes.map((o) => o.deliveryId) } },
            select: { id: true },
          })
        ).map((row) => row.id),
      );
      const done = outcomes.filter((o) => written.has(o.deliveryId));
      if (done.length === 0) return written;
      await tx.webhookAttempt.createMany({
        data: done.map((o) => ({
          id: timeOrderedId("att_"),
          deliveryId: o.deliveryId,
          statusCode: o.statusCode,
          durationMs: o.durationMs,
          responseBody: o.responseBody,
          error: o.error,
          createdAt: now,
        })),
      });
      // The successes in one update per status code; each failure with its own next attempt.
      const successes = new Map<number | null, Outcome[]>();
      for (const o of done) {
        if (!o.ok) {
          await tx.webhookDelivery.updateMany({
            where: { id: o.deliveryId },
            data: {
              status: status(o),
              attempts: o.attempts,
              lastStatusCode: o.statusCode,
              lockedUntil: null,
              ...(o.nextAttemptAt ? { nextAttemptAt: o.nextAttemptAt } : {}),
            },
          });
          continue;
        }
        successes.set(o.statusCode, [...(successes.get(o.statusCode) ?? []), o]);
      }
      for (const [statusCode, list] of successes) {
        await tx.webhookDelivery.updateMany({
          where: { id: { in: list.map((o) => o.deliveryId) } },
          data: { status: "succeeded", attempts: { increment: 1 }, lastStatusCode: statusCode, lockedUntil: null },
        });
      }
      const { succeeded, failed } = healthOf(done);
      if (succeeded.size > 0) {
        await tx.webhookEndpoint.updateMany({
          where: {
            id: { in: [...succeeded] },
            OR: [
              { failingSince: { not: null } },
              { lastSuccessAt: null },
              { lastSuccessAt: { lt: new Date(now.getTime() - SUCCESS_RESOLUTION_MS) } },
            ],
          },
          data: { lastSuccessAt: now, failingSince: null },
        });
      }
      if (failed.size > 0) {
        await tx.webhookEndpoint.updateMany({
          where: { id: { in: [...failed] }, failingSince: null },
          data: { failingSince: now },
        });
      }
      return written;
    });
  },
};
