// The LeadStore on PostgreSQL: node-postgres on the pool under Prisma (decision 003).
// Prisma's DateTime is `timestamp(3)` without a time zone, holding UTC: times are sent as
// ISO 8601 text (PostgreSQL drops the `Z` for this type, keeping the UTC wall time; a JS
// Date would be sent in the process's local time) and read back as text, never through
// node-postgres's parser, which would read them as local time.
import pg from "pg";
import { isoFromUtcText, postgresPool } from "~/storage/db.server";
import { timeOrderedId } from "~/utils/random-text.server";
import { addConsentParams, consentInsertPostgres, consentParams, type NewConsent } from "../consent-store.server";
import { filesGone, linkFilesSql } from "../lead-file-store.server";
import {
  addOutboxParams,
  OUTBOX_PARAMS,
  outboxInsertPostgres,
  outboxParams,
  type StaffEmail,
} from "../outbox-store.server";
import { personInsertPostgres } from "../people/person-arrival.server";
import {
  addLeadCreatedParams,
  LEAD_CREATED_PARAMS,
  leadCreatedInsertPostgres,
  leadCreatedParams,
  leadUpdatedInsertPostgres,
  type LeadCreatedEventRow,
} from "../webhooks/webhook-event-store.server";
import { leadDailyFromSql, POSTGRES_DAY } from "./lead-daily-sql";
import {
  LEAD_ROW_COLUMNS,
  formIdsMatchingSql,
  leadCountSql,
  changeSql,
  commitBatchSizes,
  leadPageSql,
  mergedRuns,
  NEW_LEAD_COLUMNS,
  newLeadValues,
  quoted,
  type Dialect,
  type LeadRow,
  type LeadStore,
  type NewLead,
  type ChangedLead,
  fieldHasValueSql,
  type FormField,
} from "./lead-store";
import { spamValues } from "./lead-types";

const postgres: Dialect = {
  placeholder: (n) => `$${n}`,
  time: (date) => date.toISOString(),
  bool: (value) => value,
  contains: (column, placeholder) => `strpos(${column}, ${placeholder}) > 0`,
  fieldText: (placeholder) => `"data"->>${placeholder}`,
  fieldParam: (key) => key,
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

const ROW_COLUMNS = quoted(LEAD_ROW_COLUMNS);

// Group commit (decision 027): the leads submitted in one turn of the event loop are written
// by one statement, so one transaction and one WAL flush, on one pooled connection. Every
// part comes in as parallel arrays (unnest), so the statement's text is the same for any
// batch and is prepared once per connection. Each CTE reads the rows the one before it
// returned: a lead's event and emails are written, and the partial lead it finishes deleted,
// only if the lead is. A lead that repeats
// an idempotency key is skipped (ON CONFLICT DO NOTHING) and answered alone with a unique
// violation, as a lone INSERT would be. The stored leads that are not spam are added to the
// daily rollup, one row per distinct key (decision 055), and their addresses noted as people
// (decision 071: ../people/person-arrival.server.ts). The event's body and deliveries are
// written by the webhook worker (./webhook-fan-out-store.server.ts).
const LEAD_TYPES: Partial<Record<(typeof NEW_LEAD_COLUMNS)[number], string>> = {
  schemaVersion: "int",
  isSpam: "bool",
  awaitingConfirmation: "bool",
};
const LEAD_CASTS: Partial<Record<(typeof NEW_LEAD_COLUMNS)[number], string>> = {
  data: "::jsonb",
  createdAt: "::timestamp",
};
const arrays = (from: number, types: readonly string[]) => types.map((type, i) => `$${from + i}::${type}[]`).join(", ");
const LEAD_PARAMS = NEW_LEAD_COLUMNS.length;
/** Two arrays: the leads that finish a partial lead, and that partial's stored key. */
const PARTIAL_PARAM = LEAD_PARAMS + LEAD_CREATED_PARAMS + OUTBOX_PARAMS + 1;
/** The batch's shard of the daily rollup. */
const SHARD_PARAM = PARTIAL_PARAM + 2;
/** The names the leads give their people (decision 071), parallel to the ids ($1). */
const NAMES_PARAM = SHARD_PARAM + 1;
const batchInsert = (consents: boolean) => `WITH lead AS (
  INSERT INTO "Lead" (${quoted(NEW_LEAD_COLUMNS)})
  SELECT ${NEW_LEAD_COLUMNS.map((column) => `i."${column}"${LEAD_CASTS[column] ?? ""}`).join(", ")}
  FROM unnest(${arrays(
    1,
    NEW_LEAD_COLUMNS.map((column) => LEAD_TYPES[column] ?? "text"),
  )}) AS i(${quoted(NEW_LEAD_COLUMNS)})
  ON CONFLICT DO NOTHING
  RETURNING "id", "formId", "createdAt", "utmSource", "utmCampaign", "referrerHost", "isSpam", "email"),
daily AS (
  ${leadDailyFromSql({ from: "lead", where: `NOT "isSpam"`, day: POSTGRES_DAY, count: "COUNT(*)", shard: `$${SHARD_PARAM}::int` })}),
event AS (
  ${leadCreatedInsertPostgres(LEAD_PARAMS + 1, "lead")}),
email AS (
  ${outboxInsertPostgres(LEAD_PARAMS + 1 + LEAD_CREATED_PARAMS, "lead")}),
partial AS (
  DELETE FROM "PartialLead" p
  USING lead, unnest(${arrays(PARTIAL_PARAM, ["text", "text"])}) AS c("leadId", "key")
  WHERE c."leadId" = lead."id" AND p."key" = c."key" AND p."formId" = lead."formId"),
${personInsertPostgres("$1", `$${NAMES_PARAM}`)}${
  consents
    ? `,
consent AS (
  ${consentInsertPostgres(NAMES_PARAM + 1, "lead")})`
    : ""
}
SELECT "id" FROM lead`;
// A batch with a lead that carries consents (decision 065) writes them in the same statement;
// every other batch runs the statement it ran before consent fields existed.
const BATCH_INSERT = batchInsert(false);
const BATCH_INSERT_CONSENTS = batchInsert(true);

type Pending = {
  lead: NewLead;
  event: LeadCreatedEventRow | null | undefined;
  emails: readonly StaffEmail[];
  /** The stored key of the partial lead it finishes, deleted with it. */
  partialKey: string | null;
  /** What its visitor agreed to (decision 065): written with it. */
  consents: readonly NewConsent[];
  resolve: () => void;
  reject: (error: unknown) => void;
};

/** The batch statement's parameters: one array per column of each part. */
function batchParams(batch: ReadonlyArray<Omit<Pending, "resolve" | "reject">>): unknown[] {
  const leadColumns: unknown[][] = NEW_LEAD_COLUMNS.map(() => []);
  // The event's and the emails' rows as their pipelines write them (decision 045).
  const events = leadCreatedParams();
  const emails = outboxParams();
  const partials: [string[], string[]] = [[], []];
  for (const { lead, event, emails: mail, partialKey } of batch) {
    newLeadValues(lead, postgres).forEach((value, i) => leadColumns[i].push(value));
    if (event) addLeadCreatedParams(events, lead.id, event);
    addOutboxParams(emails, lead.id, mail);
    if (partialKey) {
      partials[0].push(lead.id);
      partials[1].push(partialKey);
    }
  }
  return [...leadColumns, ...events, ...emails, ...partials];
}

// Batches are written side by side on the pool, and a burst into one form from one source
// gives them all the same daily-rollup key: on one row, each would wait for the one before to
// commit (its WAL flush), and PostgreSQL could no longer share one flush among them. So each
// batch in flight counts under a shard of the key no other batch in flight uses (the lowest
// free one); readers sum the shards (decision 055).
const shardsInUse = new Set<number>();
function takeShard(): number {
  let shard = 0;
  while (shardsInUse.has(shard)) shard++;
  shardsInUse.add(shard);
  return shard;
}

/** The consents of the batch's leads as consentInsertPostgres's arrays, or null when none has any. */
function batchConsents(batch: ReadonlyArray<Omit<Pending, "resolve" | "reject">>): unknown[][] | null {
  if (!batch.some((pending) => pending.consents.length > 0)) return null;
  const params = consentParams();
  for (const { lead, consents } of batch) addConsentParams(params, lead.id, consents);
  return params;
}

/** The names the batch's leads give their people, in the order of their ids. */
const personNames = (batch: ReadonlyArray<Omit<Pending, "resolve" | "reject">>) =>
  batch.map(({ lead }) => lead.personName ?? null);

/** The batch statement for these leads: with the consents step only when one has consents. */
function batchStatement(batch: ReadonlyArray<Omit<Pending, "resolve" | "reject">>, shard: number) {
  const consents = batchConsents(batch);
  return consents
    ? {
        name: "lead-batch-insert-consents",
        text: BATCH_INSERT_CONSENTS,
        values: [...batchParams(batch), shard, personNames(batch), ...consents],
      }
    : { name: "lead-batch-insert", text: BATCH_INSERT, values: [...batchParams(batch), shard, personNames(batch)] };
}

/** Writes a batch; the ids of the leads a repeated idempotency key kept out are refused. */
async function writeBatch(batch: readonly Pending[]): Promise<Set<string>> {
  const shard = takeShard();
  try {
    const { rows } = await postgresPool().query<{ id: string }>(batchStatement(batch, shard));
    return new Set(rows.map((row) => row.id));
  } finally {
    shardsInUse.delete(shard);
  }
}

function refusedAsDuplicate(): Error {
  // What PostgreSQL itself raises for a lone INSERT: the caller reads the earlier lead.
  return Object.assign(new Error('duplicate key value violates unique constraint "Lead_formId_idempotencyKey_key"'), {
    code: "23505",
  });
}

async function settle(batch: readonly Pending[]): Promise<void> {
  let stored: Set<string>;
  try {
    stored = await writeBatch(batch);
  } catch (error) {
    if (batch.length === 1) {
      batch[0].reject(error);
      return;
    }
    // One row broke the statement (its form deleted meanwhile, say): each lead alone, so
    // only that one fails.
    await Promise.all(batch.map((pending) => settle([pending])));
    return;
  }
  for (const pending of batch) {
    if (stored.has(pending.lead.id)) pending.resolve();
    else pending.reject(refusedAsDuplicate());
  }
}

const MAX_BATCH = 64;
const NO_CONSENTS: readonly NewConsent[] = [];
let queue: Pending[] = [];
let flushScheduled = false;

function flush() {
  flushScheduled = false;
  const batch = queue;
  queue = [];
  if (batch.length === 0) return;
  commitBatchSizes.observe(batch.length);
  void settle(batch);
}

const LINK_FILES = linkFilesSql({ lead: "$1", ids: "SELECT unnest($2::text[])" });

/**
 * A lead with uploaded files (decision 064) takes its own transaction beside the group
 * commit, so the batch statement stays the one every other lead shares: the same statement
 * for one lead, then its files linked; a repeated idempotency key or a file no longer there
 * rolls both back.
 */
async function insertWithFiles(pending: Omit<Pending, "resolve" | "reject">, files: readonly string[]): Promise<void> {
  const client = await postgresPool().connect();
  try {
    await client.query("BEGIN");
    const shard = takeShard();
    let stored: number | null;
    try {
      ({ rowCount: stored } = await client.query(batchStatement([pending], shard)));
    } finally {
      shardsInUse.delete(shard);
    }
    if (stored !== 1) throw refusedAsDuplicate();
    const { rowCount } = await client.query(LINK_FILES, [pending.lead.id, files]);
    if (rowCount !== files.length) throw filesGone();
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

export const postgresLeadStore: LeadStore = {
  insert(lead, event, emails = [], completesPartial = null, consents = NO_CONSENTS, files = []) {
    if (files.length > 0) {
      return insertWithFiles({ lead, event, emails, partialKey: completesPartial, consents }, files);
    }
    return new Promise<void>((resolve, reject) => {
      queue.push({ lead, event, emails, partialKey: completesPartial, consents, resolve, reject });
      if (queue.length >= MAX_BATCH) flush();
      else if (!flushScheduled) {
        flushScheduled = true;
        setImmediate(flush);
      }
    });
  },

  page(filters, cursor, take) {
    return mergedRuns(filters, take, async (isSpam) => {
      const { sql, params } = leadPageSql(filters, cursor, take, isSpam, postgres, ROW_COLUMNS);
      const rows = await query<Omit<LeadRow, "createdAt"> & { createdAt: string }>(sql, params);
      // jsonb arrives parsed; the time as text in UTC.
      return rows.map((row) => ({ ...row, createdAt: isoFromUtcText(row.createdAt) }));
    });
  },

  positions(filters, cursor, take) {
    return mergedRuns(filters, take, async (isSpam) => {
      const { sql, params } = leadPageSql(filters, cursor, take, isSpam, postgres, `"id", "createdAt"`);
      const rows = await query<{ id: string; createdAt: string }>(sql, params);
      return rows.map((row) => ({ id: row.id, createdAt: isoFromUtcText(row.createdAt) }));
    });
  },

  async changeLeads(ids, change, actorId, announce) {
    if (ids.length === 0) return 0;
    const { pending, set, before, daily } = changeSql(change, {
      to: "$2",
      yes: "true",
      no: "false",
      status: `"status"::text`,
    });
    // The new value is text for the timeline and, for a status, the enum for the column.
    const setTyped = change.kind === "status" ? set.replace(`"status" = $2`, `"status" = $2::"LeadStatus"`) : set;
    // One statement: the chosen leads not yet changed are locked, updated, and each gets its
    // timeline entry (ids made here, one per chosen lead, used for those that change), and
    // those whose spam flag flips move in the daily rollup (decision 055); it answers the
    // leads it changed.
    const at = new Date();
    const statement = {
      text: `WITH chosen AS (
         SELECT l."id", l."formId", ${before} AS "before", c.activity,
           l."createdAt", l."utmSource", l."utmCampaign", l."referrerHost", l."isSpam" FROM "Lead" l
         JOIN unnest($1::text[], $5::text[]) AS c(lead_id, activity) ON c.lead_id = l."id"
         WHERE ${pending} FOR UPDATE OF l),
       updated AS (UPDATE "Lead" SET ${setTyped} FROM chosen WHERE "Lead"."id" = chosen."id"),
       activity AS (INSERT INTO "LeadActivity" ("id", "leadId", "kind", "fromValue", "toValue", "actorId", "createdAt")
         SELECT chosen.activity, chosen."id", $6::"LeadActivityKind", chosen."before", $2::text, $3, $4::timestamp FROM chosen)${
           daily
             ? `,
       daily AS (${leadDailyFromSql({ from: "chosen", where: daily.where, day: POSTGRES_DAY, count: daily.count })})`
             : ""
         }
       SELECT "id", "formId", "before" FROM chosen`,
      values: [ids, change.to, actorId, at.toISOString(), ids.map(() => timeOrderedId("c", "hex")), change.kind],
    };
    if (!announce) return (await query<ChangedLead>(statement.text, statement.values)).length;
    // With its events: the change and their rows in one transaction, on one connection.
    const client = await postgresPool().connect();
    try {
      await client.query("BEGIN");
      const { rows } = await client.query<ChangedLead>({ ...statement, types: timestampsAsText });
      const events = announce(rows, at);
      if (events.length > 0) {
        await client.query(leadUpdatedInsertPostgres(at, events));
      }
      await client.query("COMMIT");
      return rows.length;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  },

  async count(filters) {
    let total = 0;
    for (const isSpam of spamValues(filters)) {
      const { sql, params } = leadCountSql(filters, isSpam, postgres);
      const [row] = await query<{ count: string }>(sql, params);
      total += Number(row.count);
    }
    return total;
  },

  async formIdsMatching(filters) {
    const ids = new Set<string>();
    for (const isSpam of spamValues(filters)) {
      const { sql, params } = formIdsMatchingSql(filters, isSpam, postgres);
      for (const row of await query<{ formId: string }>(sql, params)) ids.add(row.formId);
    }
    return [...ids];
  },

  async fieldsWithValues(filters, fields) {
    const found: FormField[] = [];
    for (const field of fields) {
      for (const isSpam of spamValues(filters)) {
        const { sql, params } = fieldHasValueSql(filters, field, isSpam, postgres);
        const [row] = await query<{ found: boolean }>(sql, params);
        if (row?.found) {
          found.push(field);
          break;
        }
      }
    }
    return found;
  },

  async formNames(formIds) {
    const unique = [...new Set(formIds)];
    if (unique.length === 0) return new Map();
    const rows = await query<{ id: string; name: string }>(`SELECT "id", "name" FROM "Form" WHERE "id" = ANY($1)`, [
      unique,
    ]);
    return new Map(rows.map((row) => [row.id, row.name]));
  },
};
