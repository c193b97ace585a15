// The autoresponder's per-address daily counter (decision 066): one atomic upsert, the
// same statement on SQLite and PostgreSQL, so parallel submits cannot pass the limit.
import { db } from "~/storage/db.server";

/** Counts one more autoresponse to `email` on `day` (YYYY-MM-DD) and answers the new count. */
export async function countAutoresponse(email: string, day: string): Promise<number> {
  const rows = await db.$queryRaw<Array<{ count: number | bigint }>>`
    INSERT INTO "AutoresponderQuota" ("email", "day", "count") VALUES (${email}, ${day}, 1)
    ON CONFLICT ("email", "day") DO UPDATE SET "count" = "AutoresponderQuota"."count" + 1
    RETURNING "count"`;
  return Number(rows[0]?.count ?? Number.MAX_SAFE_INTEGER);
}
