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
  OUTBOX_EMAIL_INSERT,
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
// The lead, then (each reading the row the one before returned, so written only if the
// lead is) its staff notification emails and its webhook event with the deliveries to
// the endpoints that still exist (one deleted since the subscription cache was read is
// skipped). One statement, so one transaction.
const EMAILS = (p: number) => `emails AS (${OUTBOX_EMAIL_INSERT}
  SELECT e.id, e.to_email, e.subject, e.text, e.message_id, e.reply_to, $${p + 6}::timestamp, $${p + 6}::timestamp, 'pending'::"OutboxStatus", 0
  FROM lead CROSS JOIN unnest($${p}::text[], $${p + 1}::text[], $${p + 2}::text[], $${p + 3}::text[], $${p + 4}::text[], $${p + 5}::text[])
    AS e(id, to_email, subject, text, message_id, reply_to))`;
const EVENT = (
  p: number,
) => `event AS (${WEBHOOK_EVENT_INSERT} SELECT $${p}, $${p + 1}, $${p + 2}, $${p + 3}::timestamp FROM lead RETURNING "id", "createdAt")
  ${WEBHOOK_DELIVERY_INSERT}
  SELECT d.id, event."id", d.endpoint, 'pending'::"WebhookDeliveryStatus", 0, event."createdAt", event."createdAt"
  FROM event CROSS JOIN unnest($${p + 4}::text[], $${p + 5}::text[]) AS d(id, endpoint)
  JOIN "WebhookEndpoint" endpoint ON endpoint."id" = d.endpoint`;

const statements = new Map<string, string>();
function insertWith(n: number, event: boolean, emails: boolean): string {
  const key = `${event}:${emails}`;
  let sql = statements.get(key);
  if (!sql) {
    const parts = [`WITH lead AS (${INSERT} RETURNING "id")`];
    if (emails) parts.push(`, ${EMAILS(n + (event ? 6 : 0) + 1)}`);
    parts.push(event ? `, ${EVENT(n + 1)}` : " SELECT 1");
    sql = parts.join("\n");
    statements.set(key, sql);
  }
  return sql;
}

export const postgresLeadStore: LeadStore = {
  async insert(lead, event, emails = []) {
    const values = newLeadValues(lead, postgres);
    if (!event && emails.length === 0) {
      await postgresPool().query(INSERT, values);
      return;
    }
    const params: unknown[] = values;
    if (event) {
      params.push(
        event.id,
        event.type,
        event.payload,
        event.createdAt.toISOString(),
        event.deliveries.map((delivery) => delivery.id),
        event.deliveries.map((delivery) => delivery.endpointId),
      );
    }
    if (emails.length > 0) {
      params.push(
        emails.map((email) => email.id),
        emails.map((email) => email.toEmail),
        emails.map((email) => email.subject),
        emails.map((email) => email.text),
        emails.map((email) => email.messageId),
        emails.map((email) => email.replyTo),
        emails[0].createdAt.toISOString(),
      );
    }
    await postgresPool().query(insertWith(NEW_LEAD_COLUMNS.length, Boolean(event), emails.length > 0), params);
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
