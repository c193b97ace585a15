// A person noted as their lead or ticket arrives (decision 071), in the write that stores it:
// a new address makes a new person, its id 'p' || the id of that first lead or ticket (as the
// backfill migration names existing people); a known address (their own or an alias left by
// a merge) adds nothing, except a name where the person has none yet. Three writers, three
// forms of the same statements: the SQLite lead batch (better-sqlite3), the PostgreSQL lead
// batch (CTEs of its one statement) and a ticket's Prisma transaction.
import { isPostgres, Prisma, prepared, sqliteTime, type SqliteConnection } from "~/storage/db.server";

/** What a new lead or ticket tells of its person. */
export type Arrival = { email: string; name: string | null; firstId: string; at: Date };

/** An address as people are keyed by it: trimmed and lower-cased. */
export const normalAddress = (email: string) => email.trim().toLowerCase();

const FIND_SQLITE = `SELECT "personId" FROM "PersonAddress" WHERE "email" = ?`;
const INSERT_SQLITE = `INSERT INTO "Person" ("id", "email", "name", "firstSeenAt") VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`;
const ADDRESS_SQLITE = `INSERT INTO "PersonAddress" ("email", "personId") VALUES (?, ?) ON CONFLICT DO NOTHING`;
const NAME_SQLITE = `UPDATE "Person" SET "name" = ? WHERE "id" = ? AND "name" IS NULL`;

/** In the SQLite lead batch's transaction (its writer is the only one: no race to lose). */
export function notePersonSqlite(connection: SqliteConnection, arrival: Arrival): void {
  const email = normalAddress(arrival.email);
  const known = prepared(connection, FIND_SQLITE).get(email) as { personId: string } | undefined;
  if (known) {
    if (arrival.name) prepared(connection, NAME_SQLITE).run(arrival.name, known.personId);
    return;
  }
  const id = `p${arrival.firstId}`;
  prepared(connection, INSERT_SQLITE).run(id, email, arrival.name, sqliteTime(arrival.at));
  prepared(connection, ADDRESS_SQLITE).run(email, id);
}

/**
 * The CTEs of the PostgreSQL lead batch that note its leads' people, reading the `lead` CTE
 * (id, email, createdAt); `ids` and `names` are the placeholders of two parallel text arrays.
 * A new address gets its person from the batch's first lead of it; two batches racing with
 * the same new address make one person (Person.email is unique; the loser's insert does
 * nothing, and so nothing of it reaches PersonAddress).
 */
export function personInsertPostgres(ids: string, names: string): string {
  const named = `SELECT lead."id", lead."email", lead."createdAt", n."name" FROM lead
    JOIN unnest(${ids}::text[], ${names}::text[]) AS n("leadId", "name") ON n."leadId" = lead."id"
    WHERE lead."email" IS NOT NULL AND lead."email" <> ''`;
  return `person AS (
  INSERT INTO "Person" ("id", "email", "name", "firstSeenAt")
  SELECT DISTINCT ON (a."email") 'p' || a."id", a."email", a."name", a."createdAt" FROM (${named}) a
  WHERE NOT EXISTS (SELECT 1 FROM "PersonAddress" pa WHERE pa."email" = a."email")
  ORDER BY a."email", a."createdAt", a."id"
  ON CONFLICT DO NOTHING RETURNING "id", "email"),
person_address AS (
  INSERT INTO "PersonAddress" ("email", "personId") SELECT "email", "id" FROM person ON CONFLICT DO NOTHING),
person_name AS (
  UPDATE "Person" p SET "name" = a."name" FROM (${named}) a, "PersonAddress" pa
  WHERE a."name" IS NOT NULL AND pa."email" = a."email" AND p."id" = pa."personId" AND p."name" IS NULL)`;
}

/** In a ticket's transaction (or any Prisma client): the same on either database. */
export async function notePerson(client: Prisma.TransactionClient, arrival: Arrival): Promise<void> {
  const email = normalAddress(arrival.email);
  const id = `p${arrival.firstId}`;
  const at = isPostgres
    ? Prisma.sql`${arrival.at.toISOString().slice(0, 23)}::timestamp`
    : Prisma.sql`${sqliteTime(arrival.at)}`;
  await client.$executeRaw`INSERT INTO "Person" ("id", "email", "name", "firstSeenAt")
    SELECT ${id}, ${email}, ${arrival.name}, ${at}
    WHERE NOT EXISTS (SELECT 1 FROM "PersonAddress" WHERE "email" = ${email}) ON CONFLICT DO NOTHING`;
  await client.$executeRaw`INSERT INTO "PersonAddress" ("email", "personId")
    SELECT "email", "id" FROM "Person" WHERE "id" = ${id} ON CONFLICT DO NOTHING`;
  if (arrival.name) {
    await client.$executeRaw`UPDATE "Person" SET "name" = ${arrival.name}
      WHERE "name" IS NULL AND "id" IN (SELECT "personId" FROM "PersonAddress" WHERE "email" = ${email})`;
  }
}
