// Claiming due outbox emails so that two instances never send the same one (decision 021).
import { db } from "~/utils/db.server";

export interface OutboxStore {
  /** Marks up to `limit` pending emails due by `now` as sending until `lockedUntil`; returns their ids. */
  claimDue(now: Date, lockedUntil: Date, limit: number): Promise<string[]>;
}

export const postgresOutboxStore: OutboxStore = {
  async claimDue(now, lockedUntil, limit) {
    // SKIP LOCKED: concurrent instances each take different rows instead of waiting.
    // Prisma keeps DateTime as UTC in `timestamp` columns, whatever the session time zone.
    const rows = await db.$queryRaw<Array<{ id: string }>>`
      UPDATE "OutboxEmail"
      SET status = 'sending', "lockedUntil" = (${lockedUntil.toISOString()}::timestamptz AT TIME ZONE 'UTC')
      WHERE id IN (
        SELECT id FROM "OutboxEmail"
        WHERE status = 'pending'
          AND "nextAttemptAt" <= (${now.toISOString()}::timestamptz AT TIME ZONE 'UTC')
        ORDER BY "nextAttemptAt"
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED
      )
      RETURNING id`;
    return rows.map((row) => row.id);
  },
};

export const sqliteOutboxStore: OutboxStore = {
  async claimDue(now, lockedUntil, limit) {
    // SQLite has one writer at a time; each claim is conditional on the status it was
    // read with, so of two claimers, one updates one row.
    const due = await db.outboxEmail.findMany({
      where: { status: "pending", nextAttemptAt: { lte: now } },
      orderBy: { nextAttemptAt: "asc" },
      take: limit,
      select: { id: true },
    });
    const claimed: string[] = [];
    for (const { id } of due) {
      const { count } = await db.outboxEmail.updateMany({
        where: { id, status: "pending" },
        data: { status: "sending", lockedUntil },
      });
      if (count === 1) claimed.push(id);
    }
    return claimed;
  },
};
