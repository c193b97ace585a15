// The LeadStore on SQLite: better-sqlite3 on the connection under Prisma (decision 003).
// Times are written and compared as the Prisma adapter stores them (ISO 8601 text with
// `+00:00`), booleans as 0/1, the data as JSON text, so Prisma reads these rows unchanged.
import { idleSqlite, isoFromUtcText, prepared, sqliteTime, type SqliteConnection } from "~/storage/db.server";
import { timeOrderedId } from "~/utils/random-text.server";
import { writeConsentsSqlite, type NewConsent } from "../consent-store.server";
import { filesGone, linkFilesSql } from "../lead-file-store.server";
import { writeOutboxEmailsSqlite, type StaffEmail } from "../outbox-store.server";
import { notePersonSqlite, type Arrival } from "../people/person-arrival.server";
import {
  writeLeadCreatedSqlite,
  writeLeadUpdatedSqlite,
  type LeadCreatedEventRow,
} from "../webhooks/webhook-event-store.server";
import { leadDailyFromSql, SQLITE_DAY } from "./lead-daily-sql";
import { addLeadDailySqlite, dailyCounts, dayOf, pickDailyKey, type LeadDailyKeyOf } from "./lead-daily-store.server";
import {
  LEAD_ROW_COLUMNS,
  leadPageSql,
  mergedRuns,
  NEW_LEAD_COLUMNS,
  newLeadValues,
  quoted,
  formIdsMatchingSql,
  leadCountSql,
  changeSql,
  commitBatchSizes,
  type Dialect,
  type LeadRow,
  type LeadStore,
  type ChangedLead,
  fieldHasValueSql,
} from "./lead-store";
import { spamValues, type LeadData } from "./lead-types";

const sqlite: Dialect = {
  placeholder: () => "?",
  time: sqliteTime,
  bool: (value) => (value ? 1 : 0),
  // instr: a literal substring (LIKE on SQLite has no default escape for % and _).
  contains: (column, placeholder) => `instr(${column}, ${placeholder}) > 0`,
  fieldText: (placeholder) => `json_extract("data", ${placeholder})`,
  // Keys are letters, digits and underscores (FieldKeySchema); quoted all the same.
  fieldParam: (key) => `$."${key}"`,
};

type StoredRow = Omit<LeadRow, "createdAt" | "isSpam" | "awaitingConfirmation" | "schemaVersion" | "data"> & {
  createdAt: string;
  isSpam: number | bigint;
  awaitingConfirmation: number | bigint;
  schemaVersion: number | bigint;
  data: string;
};

const rowOf = (row: StoredRow): LeadRow => ({
  ...row,
  createdAt: isoFromUtcText(row.createdAt),
  isSpam: Number(row.isSpam) === 1,
  awaitingConfirmation: Number(row.awaitingConfirmation) === 1,
  schemaVersion: Number(row.schemaVersion),
  data: JSON.parse(row.data) as LeadData,
});

const insertOf = (columns: readonly string[]) =>
  `INSERT INTO "Lead" (${quoted(columns)}) VALUES (${columns.map(() => "?").join(", ")})`;
// A lead awaiting its visitor's confirmation (decision 067) names the column; every other lead
// leaves it to its default, so the common INSERT is the one it was before double opt-in.
// awaitingConfirmation is the last of NEW_LEAD_COLUMNS (checked in the module below).
const INSERT_AWAITING = insertOf(NEW_LEAD_COLUMNS);
const INSERT = insertOf(NEW_LEAD_COLUMNS.slice(0, -1));
if (NEW_LEAD_COLUMNS.at(-1) !== "awaitingConfirmation") throw new Error("awaitingConfirmation must come last");
const ROW_COLUMNS = quoted(LEAD_ROW_COLUMNS);

const INSERT_ACTIVITY = `INSERT INTO "LeadActivity" ("id", "leadId", "kind", "fromValue", "toValue", "actorId", "createdAt") VALUES (?, ?, ?, ?, ?, ?, ?)`;

const DELETE_PARTIAL = `DELETE FROM "PartialLead" WHERE "key" = ? AND "formId" = ?`;

const linkFiles = (count: number) =>
  linkFilesSql({ lead: "?", ids: Array.from({ length: count }, () => "?").join(", ") });

/** One lead with its event and emails: written in a savepoint of its batch's transaction. */
function writeLead(connection: SqliteConnection, pending: Pending) {
  const { id, values, event, emails, partial, consents, files, person } = pending;
  prepared(connection, values.length === NEW_LEAD_COLUMNS.length ? INSERT_AWAITING : INSERT).run(values);
  // Its person (decision 071), in the same savepoint.
  if (person) notePersonSqlite(connection, person);
  // The event's and the emails' rows as their pipelines write them (decision 045).
  if (event) writeLeadCreatedSqlite(connection, id, event);
  writeOutboxEmailsSqlite(connection, emails);
  if (partial) prepared(connection, DELETE_PARTIAL).run(partial.key, partial.formId);
  if (consents.length > 0) writeConsentsSqlite(connection, id, consents);
  // Its uploaded files, in its own savepoint: linked with it, or the lead is not stored.
  if (files && prepared(connection, linkFiles(files.length)).run(id, ...files).changes !== files.length) {
    throw filesGone();
  }
}

// Group commit: the leads submitted in one turn of the event loop are written in one
// transaction, so a commit's fixed cost (the WAL frames of every index page it touched, the
// checkpoints they cause) is paid once per batch instead of once per lead (decision 026).
// Each lead is written in a savepoint of its own: one refused row (an idempotency key seen
// before) is rolled back alone and answered alone. Every caller's promise settles only
// after its batch committed, so a 2xx still means the lead is stored.
type Pending = {
  id: string;
  values: unknown[];
  /** Its key in the daily rollup; null for spam, which the rollup does not count. */
  daily: LeadDailyKeyOf | null;
  event: LeadCreatedEventRow | null | undefined;
  emails: readonly StaffEmail[];
  /** The partial lead it finishes, deleted with it. */
  partial: { key: string; formId: string } | null;
  /** What its visitor agreed to (decision 065): written with it. */
  consents: readonly NewConsent[];
  /** The ids of its uploaded files (decision 064), linked with it; null for most leads. */
  files: readonly string[] | null;
  /** Its person (decision 071); null when it has no address. */
  person: Arrival | null;
  resolve: () => void;
  reject: (error: unknown) => void;
};
const MAX_BATCH = 64;
const NO_CONSENTS: readonly NewConsent[] = [];
let queue: Pending[] = [];
let flushScheduled = false;

async function flush(): Promise<void> {
  flushScheduled = false;
  const batch = queue;
  queue = [];
  if (batch.length === 0) return;
  commitBatchSizes.observe(batch.length);
  const outcomes: unknown[] = new Array(batch.length).fill(null);
  try {
    const connection = await idleSqlite();
    const [only] = batch;
    if (
      batch.length === 1 &&
      !only.event &&
      only.emails.length === 0 &&
      !only.daily &&
      !only.partial &&
      only.consents.length === 0 &&
      !only.files &&
      !only.person
    ) {
      // Alone, spam (no rollup count) and without an address: a single INSERT needs no transaction.
      writeLead(connection, only);
    } else {
      connection.transaction(() => {
        if (batch.length === 1) writeLead(connection, only);
        else {
          batch.forEach((pending, i) => {
            try {
              // Nested: better-sqlite3 makes it a SAVEPOINT, released or rolled back alone.
              connection.transaction(() => writeLead(connection, pending))();
            } catch (error) {
              outcomes[i] = error;
            }
          });
        }
        // The stored leads' daily counts, one per distinct key, in the same commit (decision 055).
        const stored = batch.flatMap((pending, i) => (outcomes[i] === null && pending.daily ? [pending.daily] : []));
        addLeadDailySqlite(connection, dailyCounts(stored, 1));
      })();
    }
  } catch (error) {
    for (const pending of batch) pending.reject(error);
    return;
  }
  batch.forEach((pending, i) => (outcomes[i] === null ? pending.resolve() : pending.reject(outcomes[i])));
}

export const sqliteLeadStore: LeadStore = {
  insert(lead, event, emails = [], completesPartial = null, consents = NO_CONSENTS, files = []) {
    const values = newLeadValues(lead, sqlite);
    if (!lead.awaitingConfirmation) values.pop();
    const daily = lead.isSpam ? null : { ...pickDailyKey(lead), day: dayOf(lead.createdAt) };
    const partial = completesPartial ? { key: completesPartial, formId: lead.formId } : null;
    return new Promise<void>((resolve, reject) => {
      queue.push({
        id: lead.id,
        values,
        daily,
        event,
        emails,
        partial,
        consents,
        files: files.length > 0 ? files : null,
        person: lead.email
          ? { email: lead.email, name: lead.personName ?? null, firstId: lead.id, at: lead.createdAt }
          : null,
        resolve,
        reject,
      });
      if (queue.length >= MAX_BATCH) void flush();
      else if (!flushScheduled) {
        flushScheduled = true;
        setImmediate(() => void flush());
      }
    });
  },

  async page(filters, cursor, take) {
    const connection = await idleSqlite();
    return mergedRuns(filters, take, async (isSpam) => {
      const { sql, params } = leadPageSql(filters, cursor, take, isSpam, sqlite, ROW_COLUMNS);
      return (prepared(connection, sql).all(...params) as StoredRow[]).map(rowOf);
    });
  },

  async positions(filters, cursor, take) {
    const connection = await idleSqlite();
    return mergedRuns(filters, take, async (isSpam) => {
      const { sql, params } = leadPageSql(filters, cursor, take, isSpam, sqlite, `"id", "createdAt"`);
      return (prepared(connection, sql).all(...params) as Array<{ id: string; createdAt: string }>).map((row) => ({
        id: row.id,
        createdAt: isoFromUtcText(row.createdAt),
      }));
    });
  },

  async changeLeads(ids, change, actorId, announce) {
    if (ids.length === 0) return 0;
    const connection = await idleSqlite();
    const { pending, set, before, daily } = changeSql(change, { to: "@to", yes: "1", no: "0", status: `"status"` });
    const chosen = `"id" IN (SELECT "value" FROM json_each(@ids))`;
    const at = new Date();
    const values = { ids: JSON.stringify(ids), to: change.to, actor: actorId, now: sqliteTime(at) };
    const used = (sql: string) =>
      Object.fromEntries(Object.entries(values).filter(([name]) => sql.includes(`@${name}`)));
    const select = `SELECT "id", "formId", ${before} AS "before" FROM "Lead" WHERE ${chosen} AND ${pending}`;
    const update = `UPDATE "Lead" SET ${set} WHERE ${chosen} AND ${pending}`;
    // The leads whose spam flag flips move in the daily rollup (decision 055), read before the update.
    const rollup = daily
      ? leadDailyFromSql({ from: `"Lead"`, where: `${chosen} AND ${daily.where}`, day: SQLITE_DAY, count: daily.count })
      : null;
    // IMMEDIATE: it reads before it writes, and a deferred transaction that must upgrade its
    // read lock while another process writes fails at once ("database is locked") instead of
    // waiting out the busy timeout.
    return connection
      .transaction(() => {
        const rows = prepared(connection, select).all(used(select)) as ChangedLead[];
        if (rows.length === 0) return 0;
        if (rollup) prepared(connection, rollup).run(used(rollup));
        prepared(connection, update).run(used(update));
        const insert = prepared(connection, INSERT_ACTIVITY);
        for (const row of rows) {
          insert.run(timeOrderedId("c", "hex"), row.id, change.kind, row.before, change.to, actorId, values.now);
        }
        // In the batch's transaction, which commits once.
        writeLeadUpdatedSqlite(connection, announce?.(rows, at) ?? []);
        return rows.length;
      })
      .immediate();
  },

  async count(filters) {
    const connection = await idleSqlite();
    let total = 0;
    for (const isSpam of spamValues(filters)) {
      const { sql, params } = leadCountSql(filters, isSpam, sqlite);
      total += Number((prepared(connection, sql).get(...params) as { count: number | bigint }).count);
    }
    return total;
  },

  async formIdsMatching(filters) {
    const connection = await idleSqlite();
    const ids = new Set<string>();
    for (const isSpam of spamValues(filters)) {
      const { sql, params } = formIdsMatchingSql(filters, isSpam, sqlite);
      for (const row of prepared(connection, sql).all(...params) as Array<{ formId: string }>) ids.add(row.formId);
    }
    return [...ids];
  },

  async fieldsWithValues(filters, fields) {
    const connection = await idleSqlite();
    return fields.filter((field) =>
      spamValues(filters).some((isSpam) => {
        const { sql, params } = fieldHasValueSql(filters, field, isSpam, sqlite);
        const row = prepared(connection, sql).get(...params) as { found: number | bigint } | undefined;
        return Number(row?.found) === 1;
      }),
    );
  },

  async formNames(formIds) {
    const unique = [...new Set(formIds)];
    if (unique.length === 0) return new Map();
    const sql = `SELECT "id", "name" FROM "Form" WHERE "id" IN (${unique.map(() => "?").join(", ")})`;
    const rows = prepared(await idleSqlite(), sql).all(...unique) as Array<{ id: string; name: string }>;
    return new Map(rows.map((row) => [row.id, row.name]));
  },
};
