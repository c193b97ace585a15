// What a transaction needs that differs between the two databases, so that no area checks
// the dialect or writes SQL of its own (issue 29, item 5): a named lock that concurrent
// transactions take in turn, the health check's round trip, a retry while SQLite is busy, and
// the statements whose RETURNING Prisma has no call for.
import { db, isPostgres, isSqliteBusy, Prisma } from "~/storage/db.server";
import { POSTGRES_DAY, SQLITE_DAY } from "./leads/lead-daily-sql";
import { addLeadDaily, dailyCounts, type LeadDailyKeyOf } from "./leads/lead-daily-store.server";

/**
 * Makes the transactions that take the lock `name` run one after another: on PostgreSQL an
 * advisory lock held to the end of the transaction; SQLite runs one writing transaction at
 * a time already.
 */
export async function takeLock(tx: Prisma.TransactionClient, name: string): Promise<void> {
  if (isPostgres) await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${name}))`;
}

/** Resolves when the database answers a query; throws otherwise. */
export async function pingDatabase(): Promise<void> {
  await db.$queryRawUnsafe("SELECT 1");
}

/**
 * Runs `work` again (up to `attempts` times, waiting a little longer each time) when SQLite
 * answers that another process holds the write lock; any other error is thrown at once.
 */
export async function retryWhileBusy<T>(work: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!isSqliteBusy(error) || attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}

/**
 * Deletes the leads `ids`, takes those that were not spam off the daily rollup (decision 055),
 * and names those this transaction deleted (not one another took first).
 */
export async function deleteLeadsReturning(
  tx: Prisma.TransactionClient,
  ids: readonly string[],
  options: { onlyAwaitingConfirmation?: boolean } = {},
): Promise<string[]> {
  const day = Prisma.raw(isPostgres ? POSTGRES_DAY : SQLITE_DAY);
  // Retention's expiry of double opt-in leads: one confirmed meanwhile stays.
  const awaiting = options.onlyAwaitingConfirmation ? Prisma.sql`AND "awaitingConfirmation"` : Prisma.empty;
  const gone = await tx.$queryRaw<Array<LeadDailyKeyOf & { id: string; spam: number | bigint }>>`
    DELETE FROM "Lead" WHERE "id" IN (${Prisma.join(ids)}) ${awaiting}
    RETURNING "id", "formId", ${day} AS "day", "utmSource", "utmCampaign", "referrerHost",
      CASE WHEN "isSpam" THEN 1 ELSE 0 END AS "spam"`;
  await addLeadDaily(
    tx,
    dailyCounts(
      gone.filter((row) => Number(row.spam) === 0),
      -1,
    ),
  );
  return gone.map((row) => row.id);
}

/** Tags the leads `ids` that lack `tag` and have fewer than `maxTags`; names those it tagged. */
export async function addTagReturning(
  tx: Prisma.TransactionClient,
  ids: readonly string[],
  tag: string,
  maxTags: number,
): Promise<string[]> {
  const rows = await tx.$queryRaw<Array<{ leadId: string }>>`
    INSERT INTO "LeadTag" ("leadId", "tag")
    SELECT "id", ${tag} FROM "Lead" WHERE "id" IN (${Prisma.join(ids)})
      AND (SELECT COUNT(*) FROM "LeadTag" t WHERE t."leadId" = "Lead"."id") < ${maxTags}
    ON CONFLICT DO NOTHING RETURNING "leadId"`;
  return rows.map((row) => row.leadId);
}

/** Takes `tag` off the leads `ids`; names those that had it. */
export async function removeTagReturning(
  tx: Prisma.TransactionClient,
  ids: readonly string[],
  tag: string,
): Promise<string[]> {
  const rows = await tx.$queryRaw<Array<{ leadId: string }>>`
    DELETE FROM "LeadTag" WHERE "tag" = ${tag} AND "leadId" IN (${Prisma.join(ids)}) RETURNING "leadId"`;
  return rows.map((row) => row.leadId);
}

export type TextPreviewRow = { id: string; body: string; bodyBytes: unknown; fullBody: string; fullBytes: unknown };

/**
 * The first `chars` characters of each message's text and full email, and their sizes in
 * bytes: octet_length reads neither SQLite's value nor PostgreSQL's compressed one, where
 * length() and a comparison of the whole texts would read (and decompress) both.
 */
export function messageTextPreviews(ids: readonly string[], chars: number): Promise<TextPreviewRow[]> {
  return db.$queryRaw<TextPreviewRow[]>`
    SELECT "id", substr("body", 1, ${chars}) AS "body", octet_length("body") AS "bodyBytes",
      substr("fullBody", 1, ${chars}) AS "fullBody", octet_length("fullBody") AS "fullBytes"
    FROM "TicketMessage" WHERE "id" IN (${Prisma.join(ids)})`;
}
