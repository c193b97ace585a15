// The LeadStore on PostgreSQL: node-postgres on the pool under Prisma (decision 003).
// Prisma's DateTime is `timestamp(3)` without a time zone, holding UTC: times are sent as
// ISO 8601 text (PostgreSQL drops the `Z` for this type, keeping the UTC wall time; a JS
// Date would be sent in the process's local time) and read back as text, never through
// node-postgres's parser, which would read them as local time.
import pg from "pg";
import { spamValues } from "~/models/lead-filters.server";
import { isoFromUtcText, postgresPool } from "~/utils/db.server";
import {
  LEAD_ROW_COLUMNS,
  leadConditions,
  leadPageSql,
  mergedRuns,
  NEW_LEAD_COLUMNS,
  newLeadValues,
  quoted,
  type Dialect,
  type LeadRow,
  type LeadStore,
  WEBHOOK_DELIVERY_INSERT,
  WEBHOOK_EVENT_INSERT,
} from "./lead-store";

const postgres: Dialect = {
  placeholder: (n) => `$${n}`,
  time: (date) => date.toISOString(),
  bool: (value) => value,
  contains: (column, placeholder) => `strpos(${column}, ${placeholder}) > 0`,
};

const TIMESTAMP_OID = 1114;
/** Type parsers that leave `timestamp` as PostgreSQL's text (`2026-03-01 10:00:00.123`). */
const timestampsAsText: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === TIMESTAMP_OID ? (value: string) => value : pg.types.getTypeParser(oid, format as "text")) as never,
};

function query<Row extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<Row[]> {
  return postgresPool()
    .query<Row>({ text, values, types: timestampsAsText })
    .then((result) => result.rows);
}

const INSERT = `INSERT INTO "Lead" (${quoted(NEW_LEAD_COLUMNS)}) VALUES (${NEW_LEAD_COLUMNS.map(
  (column, i) => `$${i + 1}${column === "data" ? "::jsonb" : ""}`,
).join(", ")})`;
const ROW_COLUMNS = quoted(LEAD_ROW_COLUMNS);
const INSERT_WITH_EVENT = (n: number) => `WITH lead AS (${INSERT} RETURNING "id"),
  event AS (${WEBHOOK_EVENT_INSERT} SELECT $${n + 1}, $${n + 2}, $${n + 3}, $${n + 4}::timestamp FROM lead RETURNING "id", "createdAt")
  ${WEBHOOK_DELIVERY_INSERT}
  SELECT d.id, event."id", d.endpoint, 'pending'::"WebhookDeliveryStatus", 0, event."createdAt", event."createdAt"
  FROM event CROSS JOIN unnest($${n + 5}::text[], $${n + 6}::text[]) AS d(id, endpoint)
  JOIN "WebhookEndpoint" endpoint ON endpoint."id" = d.endpoint`;

export const postgresLeadStore: LeadStore = {
  async insert(lead, event) {
    const values = newLeadValues(lead, postgres);
    if (!event) {
      await postgresPool().query(INSERT, values);
      return;
    }
    // One statement, so one transaction: the event and its deliveries are written only
    // if the lead is (each insert reads the row the one before returned), and only to
    // endpoints that still exist (one deleted since the subscription cache was read).
    const n = values.length;
    await postgresPool().query(INSERT_WITH_EVENT(n), [
      ...values,
      event.id,
      event.type,
      event.payload,
      event.createdAt.toISOString(),
      event.deliveries.map((delivery) => delivery.id),
      event.deliveries.map((delivery) => delivery.endpointId),
    ]);
  },

  page(filters, cursor, take) {
    return mergedRuns(filters, take, async (isSpam) => {
      const { sql, params } = leadPageSql(filters, cursor, take, isSpam, postgres, ROW_COLUMNS);
      const rows = await query<Omit<LeadRow, "createdAt"> & { createdAt: string }>(sql, params);
      // jsonb arrives parsed; the time as text in UTC.
      return rows.map((row) => ({ ...row, createdAt: isoFromUtcText(row.createdAt) }));
    });
  },

  async formIdsMatching(filters) {
    const ids = new Set<string>();
    for (const isSpam of spamValues(filters.spam)) {
      const { where, params } = leadConditions(filters, undefined, isSpam, postgres);
      for (const row of await query<{ formId: string }>(`SELECT DISTINCT "formId" FROM "Lead" WHERE ${where}`, params))
        ids.add(row.formId);
    }
    return [...ids];
  },

  async formNames(formIds) {
    const unique = [...new Set(formIds)];
    if (unique.length === 0) return new Map();
    const rows = await query<{ id: string; name: string }>(`SELECT "id", "name" FROM "Form" WHERE "id" = ANY($1)`, [
      unique,
    ]);
    return new Map(rows.map((row) => [row.id, row.name]));
  },

  async countPerDay(formId, from, to) {
    const rows = await query<{ day: string; count: string }>(
      `SELECT to_char("createdAt", 'YYYY-MM-DD') AS "day", COUNT(*) AS "count" FROM "Lead"
       WHERE "formId" = $1 AND "isSpam" = false AND "createdAt" >= $2 AND "createdAt" < $3 GROUP BY 1`,
      [formId, from.toISOString(), to.toISOString()],
    );
    return new Map(rows.map((row) => [row.day, Number(row.count)]));
  },
};
