// The reads and writes of people (decision 071) that need SQL: a page of people by search,
// what is counted of them from their leads and tickets (through their addresses), their first
// touch, support requests by first-touch source, a merge and an address's erasure. The same
// statements on both databases; only a time's parameter and a read time differ.
import { isoFromUtcText, isPostgres, Prisma, sqliteTime } from "~/storage/db.server";
import { containsLower } from "~/storage/person-store.server";

type Client = Pick<Prisma.TransactionClient, "$queryRaw" | "$executeRaw">;

/** A person's own row, its time as ISO 8601. */
export type PersonRow = { id: string; email: string; name: string | null; firstSeenAt: string };

/** What their leads and tickets say of a person now. */
export type PersonStats = { leadCount: number; ticketCount: number; lastSeenAt: string | null };

/** Their earliest lead not marked spam: where they came from. */
export type FirstTouchRow = {
  utmSource: string | null;
  utmCampaign: string | null;
  referrerHost: string | null;
  landingPageUrl: string | null;
  formId: string;
  createdAt: string;
};

/** A time as this database compares it with a stored one. */
function timeParam(date: Date): Prisma.Sql {
  return isPostgres ? Prisma.sql`${date.toISOString().slice(0, 23)}::timestamp` : Prisma.sql`${sqliteTime(date)}`;
}

/** A time read by raw SQL (text on SQLite, a Date or text on PostgreSQL) as ISO 8601. */
function isoOf(value: unknown): string {
  return value instanceof Date ? value.toISOString() : isoFromUtcText(value);
}

const rowOf = (row: { id: string; email: string; name: string | null; firstSeenAt: unknown }): PersonRow => ({
  ...row,
  firstSeenAt: isoOf(row.firstSeenAt),
});

/**
 * One keyset page of people, newest first (firstSeenAt desc, id desc); `q` (lower case) is a
 * substring of one of their addresses or of their name. instr/strpos, not LIKE: `_` is common
 * in addresses.
 */
export async function peoplePage(
  client: Client,
  q: string | undefined,
  cursor: { at: Date; id: string } | undefined,
  take: number,
): Promise<PersonRow[]> {
  const conditions: Prisma.Sql[] = [];
  if (q) {
    const address = isPostgres ? Prisma.sql`strpos(a."email", ${q}) > 0` : Prisma.sql`instr(a."email", ${q}) > 0`;
    conditions.push(
      Prisma.sql`(${containsLower("name", q)} OR EXISTS (SELECT 1 FROM "PersonAddress" a WHERE a."personId" = "Person"."id" AND ${address}))`,
    );
  }
  if (cursor) {
    const at = timeParam(cursor.at);
    conditions.push(Prisma.sql`"firstSeenAt" <= ${at} AND ("firstSeenAt" < ${at} OR "id" < ${cursor.id})`);
  }
  const where = conditions.length > 0 ? Prisma.sql`WHERE ${Prisma.join(conditions, " AND ")}` : Prisma.empty;
  const rows = await client.$queryRaw<Array<PersonRow & { firstSeenAt: unknown }>>`
    SELECT "id", "email", "name", "firstSeenAt" FROM "Person" ${where}
    ORDER BY "firstSeenAt" DESC, "id" DESC LIMIT ${take}`;
  return rows.map(rowOf);
}

/** One person's row, or null. */
export async function personRow(client: Client, id: string): Promise<PersonRow | null> {
  const rows = await client.$queryRaw<Array<PersonRow & { firstSeenAt: unknown }>>`
    SELECT "id", "email", "name", "firstSeenAt" FROM "Person" WHERE "id" = ${id}`;
  return rows.length > 0 ? rowOf(rows[0]) : null;
}

/** The id of the person who holds the address (lower case), or null. */
export async function personIdOf(client: Client, email: string): Promise<string | null> {
  const rows = await client.$queryRaw<Array<{ personId: string }>>`
    SELECT "personId" FROM "PersonAddress" WHERE "email" = ${email}`;
  return rows[0]?.personId ?? null;
}

/** Their leads (any), their tickets, and when they last sent one or wrote in one. */
export async function personStats(client: Client, ids: readonly string[]): Promise<Map<string, PersonStats>> {
  const stats = new Map<string, PersonStats>(ids.map((id) => [id, { leadCount: 0, ticketCount: 0, lastSeenAt: null }]));
  if (ids.length === 0) return stats;
  const chosen = Prisma.join(ids);
  const leads = await client.$queryRaw<Array<{ id: string; count: number | bigint; last: unknown }>>`
    SELECT a."personId" AS "id", COUNT(*) AS "count", MAX(l."createdAt") AS "last"
    FROM "PersonAddress" a JOIN "Lead" l ON l."email" = a."email"
    WHERE a."personId" IN (${chosen}) GROUP BY a."personId"`;
  const tickets = await client.$queryRaw<Array<{ id: string; count: number | bigint; last: unknown }>>`
    SELECT a."personId" AS "id", COUNT(DISTINCT t."id") AS "count", MAX(m."createdAt") AS "last"
    FROM "PersonAddress" a JOIN "Ticket" t ON t."email" = a."email"
    LEFT JOIN "TicketMessage" m ON m."ticketId" = t."id" AND m."direction" = 'inbound'
    WHERE a."personId" IN (${chosen}) GROUP BY a."personId"`;
  for (const [rows, key] of [
    [leads, "leadCount"],
    [tickets, "ticketCount"],
  ] as const) {
    for (const row of rows) {
      const entry = stats.get(row.id);
      if (!entry) continue;
      entry[key] = Number(row.count);
      const last = row.last === null ? null : isoOf(row.last);
      if (last && (!entry.lastSeenAt || last > entry.lastSeenAt)) entry.lastSeenAt = last;
    }
  }
  return stats;
}

/**
 * The id of the person's first-touch lead, as SQL over a column holding a person's id. The
 * spam test is a CASE so that no index on isSpam can serve it: with one, SQLite would walk
 * every lead in time order (the [isSpam, createdAt, id] index gives the ORDER BY) until one is
 * the person's, rather than read the person's few leads by address and sort them.
 */
function firstTouchLead(personId: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`(SELECT l2."id" FROM "PersonAddress" a2 JOIN "Lead" l2 ON l2."email" = a2."email"
    WHERE a2."personId" = ${personId} AND (CASE WHEN l2."isSpam" THEN 1 ELSE 0 END) = 0
    ORDER BY l2."createdAt", l2."id" LIMIT 1)`;
}

/** Each person's first touch (none: no lead, or only spam). */
export async function firstTouches(client: Client, ids: readonly string[]): Promise<Map<string, FirstTouchRow>> {
  if (ids.length === 0) return new Map();
  // MATERIALIZED: each person's first lead is found once (an index walk of their addresses'
  // leads), before the join; folded into it, the planner may run the subquery per lead.
  const rows = await client.$queryRaw<Array<FirstTouchRow & { personId: string; createdAt: unknown }>>`
    WITH f AS MATERIALIZED (
      SELECT p."id" AS "personId", ${firstTouchLead(Prisma.raw(`p."id"`))} AS "leadId"
      FROM "Person" p WHERE p."id" IN (${Prisma.join(ids)}))
    SELECT f."personId", l."utmSource", l."utmCampaign", l."referrerHost", l."landingPageUrl", l."formId", l."createdAt"
    FROM f JOIN "Lead" l ON l."id" = f."leadId"`;
  return new Map(rows.map(({ personId, ...row }) => [personId, { ...row, createdAt: isoOf(row.createdAt) }]));
}

/**
 * The support requests opened in [from, to) by people whose first touch was a lead of the
 * form, by that lead's utm_source (null: none).
 */
export async function ticketsByFirstTouchSource(
  client: Client,
  formId: string,
  from: Date,
  to: Date,
): Promise<Array<{ source: string | null; count: number }>> {
  const rows = await client.$queryRaw<Array<{ source: string | null; count: number | bigint }>>`
    WITH f AS MATERIALIZED (
      SELECT ${firstTouchLead(Prisma.raw(`a."personId"`))} AS "leadId"
      FROM "Ticket" t JOIN "PersonAddress" a ON a."email" = t."email"
      WHERE t."createdAt" >= ${timeParam(from)} AND t."createdAt" < ${timeParam(to)})
    SELECT l."utmSource" AS "source", COUNT(*) AS "count" FROM f JOIN "Lead" l ON l."id" = f."leadId"
    WHERE l."formId" = ${formId} GROUP BY l."utmSource" ORDER BY COUNT(*) DESC, l."utmSource"`;
  return rows.map((row) => ({ source: row.source, count: Number(row.count) }));
}

/**
 * Joins `fromId` into `intoId` (in the caller's transaction): every address of `fromId` moves
 * (and with them their leads and tickets), the earlier first-seen time and the name (when
 * `intoId` has none) stay, and `fromId`'s row goes. How many addresses moved.
 */
export async function mergePeople(client: Client, fromId: string, intoId: string): Promise<number> {
  await client.$executeRaw`UPDATE "Person" SET
    "firstSeenAt" = (SELECT MIN("firstSeenAt") FROM "Person" WHERE "id" IN (${fromId}, ${intoId})),
    "name" = COALESCE("name", (SELECT "name" FROM "Person" WHERE "id" = ${fromId}))
    WHERE "id" = ${intoId}`;
  const moved =
    await client.$executeRaw`UPDATE "PersonAddress" SET "personId" = ${intoId} WHERE "personId" = ${fromId}`;
  await client.$executeRaw`DELETE FROM "Person" WHERE "id" = ${fromId}`;
  return moved;
}

/**
 * Erases one address (decision 069): its row goes; its person goes with it when it was their
 * last, or else keeps another of their addresses as the primary one. How many rows went.
 */
export async function eraseAddress(client: Client, email: string): Promise<number> {
  const personId = await personIdOf(client, email);
  if (!personId) return 0;
  await client.$executeRaw`DELETE FROM "PersonAddress" WHERE "email" = ${email}`;
  const gone = await client.$executeRaw`DELETE FROM "Person" WHERE "id" = ${personId}
    AND NOT EXISTS (SELECT 1 FROM "PersonAddress" WHERE "personId" = ${personId})`;
  if (gone === 0) {
    await client.$executeRaw`UPDATE "Person" SET "email" = (SELECT MIN("email") FROM "PersonAddress" WHERE "personId" = ${personId})
      WHERE "id" = ${personId} AND "email" = ${email}`;
    // The name may have come with the erased address: it goes too, and the next lead or ticket
    // from a remaining address brings one again.
    await client.$executeRaw`UPDATE "Person" SET "name" = NULL WHERE "id" = ${personId}`;
  }
  return 1 + gone;
}
