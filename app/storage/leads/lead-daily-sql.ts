// The SQL of the daily lead rollup (LeadDaily, decision 055), without a database client: the
// app's stores (./lead-daily-store.server.ts) and the bench's seeders share it.

export const KEY = `"formId", "day", "utmSource", "utmCampaign", "referrerHost"`;
// `shard` is part of the primary key: writers that give none write shard 0.
export const ON_CONFLICT_ADD = `ON CONFLICT (${KEY}, "shard") DO UPDATE SET "leads" = "LeadDaily"."leads" + excluded."leads"`;

/** The UTC day (YYYY-MM-DD) of a lead's createdAt, as SQL on each database. */
export const SQLITE_DAY = `substr("createdAt", 1, 10)`;
export const POSTGRES_DAY = `to_char("createdAt", 'YYYY-MM-DD')`;

/**
 * An INSERT adding, per key, `count` over the rows of `from` (a table or a CTE with the lead's
 * columns) that `where` keeps: the counts of a set statement (PostgreSQL's batch insert and
 * status change, SQLite's status change, the backfill), under `shard` (an SQL expression; 0).
 */
export function leadDailyFromSql(parts: {
  from: string;
  where: string;
  day: string;
  count: string;
  shard?: string;
}): string {
  return `INSERT INTO "LeadDaily" (${KEY}, "leads", "shard")
    SELECT "formId", ${parts.day}, COALESCE("utmSource", ''), COALESCE("utmCampaign", ''), COALESCE("referrerHost", ''), ${parts.count}, ${parts.shard ?? "0"}
    FROM ${parts.from} WHERE ${parts.where}
    GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ${ON_CONFLICT_ADD}`;
}

/**
 * Counts every lead into the rollup, as the migration's backfill does: for seeders that write
 * leads straight into the table (into an empty rollup, or the leads would count twice).
 */
export const LEAD_DAILY_BACKFILL = {
  sqlite: leadDailyFromSql({ from: `"Lead"`, where: `"isSpam" = 0`, day: SQLITE_DAY, count: "COUNT(*)" }),
  postgres: leadDailyFromSql({ from: `"Lead"`, where: `"isSpam" = false`, day: POSTGRES_DAY, count: "COUNT(*)" }),
};
