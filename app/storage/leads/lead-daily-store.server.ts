// The daily lead rollup (LeadDaily, decision 055): a form's leads that are not spam, per UTC
// day of createdAt and per utm_source, utm_campaign and referrer host ("" when absent), what
// the sources page reads instead of the period's leads. It is kept exact by the writes that
// change those counts, each in its own transaction:
//   - a batch of new leads (lead-store.sqlite/postgres.server.ts): +1 per stored lead;
//   - a status change that sets or clears the spam flag (changeLeads there, and one lead's
//     change through setSpamInLeadDaily below): -1 marked spam, +1 no longer spam;
//   - deleting leads (../transactions.server.ts, deleteLeadsReturning): -1 per lead deleted;
//   - deleting a form takes its rows with it (the foreign key cascades).
// Every batch adds one signed count per distinct key (ON CONFLICT ... leads + excluded.leads), in
// key order, so two transactions lock the rows they share in the same order. A row taken down
// to 0 stays (a later lead of that key finds it); readers skip sums of 0.
import { isPostgres, Prisma, prepared, type LeadDaily, type SqliteConnection } from "~/storage/db.server";
import { KEY, leadDailyFromSql, ON_CONFLICT_ADD, POSTGRES_DAY, SQLITE_DAY } from "./lead-daily-sql";

/** One key of the rollup and the leads to add to it (negative: to take off). */
export type LeadDailyCount = Pick<LeadDaily, "formId" | "day" | "utmSource" | "utmCampaign" | "referrerHost" | "leads">;

/** What a lead contributes its key from; absent values may be null or "". */
export type LeadDailyKeyOf = {
  formId: string;
  day: string;
  utmSource: string | null;
  utmCampaign: string | null;
  referrerHost: string | null;
};

/** The key columns of a lead but its day. */
export const pickDailyKey = (lead: Omit<LeadDailyKeyOf, "day">): Omit<LeadDailyKeyOf, "day"> => ({
  formId: lead.formId,
  utmSource: lead.utmSource,
  utmCampaign: lead.utmCampaign,
  referrerHost: lead.referrerHost,
});

/** A lead's day, in JS, as both databases' expressions above give it. */
export const dayOf = (createdAt: Date) => createdAt.toISOString().slice(0, 10);

/**
 * Adds `delta` per lead to its key: one count per distinct key, in key order (the lock order
 * every writer of the table follows).
 */
export function dailyCounts(leads: Iterable<LeadDailyKeyOf>, delta: 1 | -1): LeadDailyCount[] {
  const counts = new Map<string, LeadDailyCount>();
  for (const lead of leads) {
    const key = {
      formId: lead.formId,
      day: lead.day,
      utmSource: lead.utmSource ?? "",
      utmCampaign: lead.utmCampaign ?? "",
      referrerHost: lead.referrerHost ?? "",
    };
    const id = JSON.stringify([key.formId, key.day, key.utmSource, key.utmCampaign, key.referrerHost]);
    const count = counts.get(id);
    if (count) count.leads += delta;
    else counts.set(id, { ...key, leads: delta });
  }
  return [...counts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, count]) => count);
}

const SQLITE_ADD = `INSERT INTO "LeadDaily" (${KEY}, "leads") VALUES (?, ?, ?, ?, ?, ?) ${ON_CONFLICT_ADD}`;

/** Adds the counts on SQLite's connection, inside the caller's transaction. */
export function addLeadDailySqlite(connection: SqliteConnection, counts: readonly LeadDailyCount[]): void {
  const statement = prepared(connection, SQLITE_ADD);
  for (const c of counts) statement.run(c.formId, c.day, c.utmSource, c.utmCampaign, c.referrerHost, c.leads);
}

/** Adds the counts inside a Prisma transaction (either database): one statement. */
export async function addLeadDaily(
  tx: Pick<Prisma.TransactionClient, "$executeRaw">,
  counts: readonly LeadDailyCount[],
): Promise<void> {
  if (counts.length === 0) return;
  const rows = counts.map(
    (c) => Prisma.sql`(${c.formId}, ${c.day}, ${c.utmSource}, ${c.utmCampaign}, ${c.referrerHost}, ${c.leads})`,
  );
  await tx.$executeRaw`INSERT INTO "LeadDaily" (${Prisma.raw(KEY)}, "leads") VALUES ${Prisma.join(rows)} ${Prisma.raw(ON_CONFLICT_ADD)}`;
}

/**
 * One lead's spam flag is about to change (lead-work's update): its key moves by -1 when it
 * becomes spam, +1 when it stops being. The caller holds the lead's row (lockLeadRow) from
 * before it read the flag to its commit, so the flag it read is the one it changes.
 */
export async function setSpamInLeadDaily(
  tx: Pick<Prisma.TransactionClient, "$executeRaw">,
  leadId: string,
  spam: boolean,
): Promise<void> {
  const day = isPostgres ? POSTGRES_DAY : SQLITE_DAY;
  const sql = leadDailyFromSql({ from: `"Lead"`, where: `"id" = $LEAD`, day, count: spam ? "-COUNT(*)" : "COUNT(*)" });
  const [head, tail] = sql.split("$LEAD");
  await tx.$executeRaw`${Prisma.raw(head)}${leadId}${Prisma.raw(tail)}`;
}

/** Holds a lead's row to the end of the transaction (PostgreSQL; SQLite writes one at a time). */
export async function lockLeadRow(tx: Pick<Prisma.TransactionClient, "$queryRaw">, leadId: string): Promise<void> {
  if (isPostgres) await tx.$queryRaw`SELECT 1 FROM "Lead" WHERE "id" = ${leadId} FOR UPDATE`;
}
