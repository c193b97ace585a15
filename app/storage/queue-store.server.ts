// Claiming due rows of a work queue (the email outbox, the webhook deliveries) so that
// two instances never take the same one (decision 021). A row is claimed by moving it
// from `pending` to its working status with a lock time; one implementation per database.
import { sqliteTime, db } from "~/storage/db.server";

export interface QueueStore {
  /** Marks up to `limit` pending rows due by `now` as claimed until `lockedUntil`; returns their ids. */
  claimDue(now: Date, lockedUntil: Date, limit: number): Promise<string[]>;
}

/**
 * A queue table: its rows have id, status, nextAttemptAt and lockedUntil. `first`: an SQL
 * expression (of this module's constants, never input) whose true rows are claimed before
 * the others that are due.
 */
export type Queue = {
  table: "OutboxEmail" | "WebhookDelivery";
  claimedStatus: "sending" | "delivering";
  first?: string;
};

const orderOf = (first: string | undefined) => (first ? `(${first}) DESC, "nextAttemptAt"` : `"nextAttemptAt"`);

export function postgresQueueStore({ table, claimedStatus, first }: Queue): QueueStore {
  // Table and status are constants of this module, never input.
  const sql = `
    UPDATE "${table}"
    SET status = '${claimedStatus}', "lockedUntil" = ($1::timestamptz AT TIME ZONE 'UTC')
    WHERE id IN (
      SELECT id FROM "${table}"
      WHERE status = 'pending' AND "nextAttemptAt" <= ($2::timestamptz AT TIME ZONE 'UTC')
      ORDER BY ${orderOf(first)}
      LIMIT $3
      FOR UPDATE SKIP LOCKED
    )
    RETURNING id`;
  return {
    async claimDue(now, lockedUntil, limit) {
      // SKIP LOCKED: concurrent instances each take different rows instead of waiting.
      // Times cross as ISO text read as UTC (Prisma keeps DateTime as UTC in `timestamp`).
      const rows = await db.$queryRawUnsafe<Array<{ id: string }>>(
        sql,
        lockedUntil.toISOString(),
        now.toISOString(),
        limit,
      );
      return rows.map((row) => row.id);
    },
  };
}

export function sqliteQueueStore({ table, claimedStatus, first }: Queue): QueueStore {
  // One statement: SQLite has one writer at a time, so of two claimers each row goes to
  // one. Times as the Prisma adapter stores them (ISO text), which compares as text.
  const sql = `
    UPDATE "${table}" SET status = '${claimedStatus}', "lockedUntil" = ?
    WHERE id IN (
      SELECT id FROM "${table}"
      WHERE status = 'pending' AND "nextAttemptAt" <= ?
      ORDER BY ${orderOf(first)}
      LIMIT ?
    )
    RETURNING id`;
  return {
    async claimDue(now, lockedUntil, limit) {
      const rows = await db.$queryRawUnsafe<Array<{ id: string }>>(
        sql,
        sqliteTime(lockedUntil),
        sqliteTime(now),
        limit,
      );
      return rows.map((row) => row.id);
    },
  };
}
