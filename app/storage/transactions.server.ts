// What a transaction needs that differs between the two databases, so that no area checks
// the dialect or writes SQL of its own (issue 29, item 5): a named lock that concurrent
// transactions take in turn, and the health check's round trip.
import { db, isPostgres, type Prisma } from "~/storage/db.server";

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
