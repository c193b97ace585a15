// The backfill migration of people (decision 071: prisma/migrations/*_people_backfill, and its
// PostgreSQL twin) on a database of 100,000 leads and 1,200 tickets, seeded with raw SQL: one
// person per address, named 'p' || their first lead's or ticket's id, first seen then, with
// their leads and tickets counted and their first touch found through their addresses. It
// must take seconds, not minutes.
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPerson, listPeople } from "~/people/people.server";
import { db } from "~/storage/db.server";
import { createForm, field } from "../support/leads";

const LEADS = 100_000;
/** Each address sends LEADS / ADDRESSES leads: lead i is address i % ADDRESSES. */
const ADDRESSES = 20_000;
/** Addresses 0 … 999 also open a ticket; 200 more addresses only open one. */
const TICKETS_OF_LEAD_PEOPLE = 1_000;
const TICKET_ONLY = 200;
const START = Date.parse("2026-01-01T00:00:00.000Z");
const databaseUrl = process.env.DATABASE_URL!;
const onSqlite = databaseUrl.startsWith("file:");

let formId: string;

/**
 * Lead i: address p(i % ADDRESSES), at START + i ms, utm_source src(i / ADDRESSES) and a
 * campaign per address; an address's first lead is spam when its number ends in 0 (its first
 * touch is then its second lead).
 */
const SQLITE_LEADS = `INSERT INTO "Lead" ("id", "formId", "schemaVersion", "data", "searchText", "createdAt", "email",
  "utmSource", "utmCampaign", "isSpam") VALUES (?, ?, 1, ?, '', ?, ?, ?, ?, ?)`;
const POSTGRES_LEADS = `INSERT INTO "Lead" ("id", "formId", "schemaVersion", "data", "searchText", "createdAt", "email",
    "utmSource", "utmCampaign", "isSpam")
  SELECT 'bf' || lpad(i::text, 9, '0'), $1, 1, jsonb_build_object('name', 'Person ' || (i % $3)), '',
    $2::timestamp + i * interval '1 millisecond', 'p' || (i % $3) || '@backfill.example',
    'src' || (i / $3), 'camp' || ((i % $3) % 10), (i < $3 AND i % 10 = 0)
  FROM generate_series(0, $4::int - 1) AS i`;

/** Ticket j: address p(j) for j < 1000, else a ticket-only address; after every lead. */
const SQLITE_TICKETS = `INSERT INTO "Ticket" ("id", "number", "reference", "email", "name", "subject", "threadMessageId",
  "createdAt", "updatedAt", "lastMessageAt") VALUES (?, ?, ?, ?, ?, 'Help', ?, ?, ?, ?)`;
const POSTGRES_TICKETS = `INSERT INTO "Ticket" ("id", "number", "reference", "email", "name", "subject", "threadMessageId",
    "createdAt", "updatedAt", "lastMessageAt")
  SELECT 'bt' || lpad(j::text, 6, '0'), 100000 + j, 'BF-' || j,
    CASE WHEN j < $2 THEN 'p' || j || '@backfill.example' ELSE 'only' || j || '@backfill.example' END,
    CASE WHEN j < $2 THEN 'Ticket person ' || j END, 'Help', '<bf' || j || '@backfill.example>', t, t, t
  FROM generate_series(0, $3::int - 1) AS j, LATERAL (SELECT $1::timestamp + j * interval '1 millisecond' AS t) AS x`;

const sqliteTime = (ms: number) => new Date(ms).toISOString().replace("Z", "+00:00");

function seedSqlite(file: string) {
  const sqlite = new Database(file);
  sqlite.pragma("busy_timeout = 5000");
  const lead = sqlite.prepare(SQLITE_LEADS);
  const ticket = sqlite.prepare(SQLITE_TICKETS);
  sqlite.transaction(() => {
    for (let i = 0; i < LEADS; i++) {
      const k = i % ADDRESSES;
      const id = `bf${String(i).padStart(9, "0")}`;
      const spam = i < ADDRESSES && k % 10 === 0 ? 1 : 0;
      const data = JSON.stringify({ name: `Person ${k}` });
      const at = sqliteTime(START + i);
      lead.run(
        id,
        formId,
        data,
        at,
        `p${k}@backfill.example`,
        `src${Math.floor(i / ADDRESSES)}`,
        `camp${k % 10}`,
        spam,
      );
    }
    for (let j = 0; j < TICKETS_OF_LEAD_PEOPLE + TICKET_ONLY; j++) {
      const ofLead = j < TICKETS_OF_LEAD_PEOPLE;
      const email = ofLead ? `p${j}@backfill.example` : `only${j}@backfill.example`;
      const at = sqliteTime(START + LEADS + j);
      ticket.run(
        `bt${String(j).padStart(6, "0")}`,
        100000 + j,
        `BF-${j}`,
        email,
        ofLead ? `Ticket person ${j}` : null,
        `<bf${j}@backfill.example>`,
        at,
        at,
        at,
      );
    }
  })();
  sqlite.close();
}

async function withPostgres<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function seed() {
  if (onSqlite) return seedSqlite(databaseUrl.slice("file:".length));
  const start = new Date(START).toISOString().slice(0, 23);
  await withPostgres(async (client) => {
    await client.query(POSTGRES_LEADS, [formId, start, ADDRESSES, LEADS]);
    const ticketsAt = new Date(START + LEADS).toISOString().slice(0, 23);
    await client.query(POSTGRES_TICKETS, [ticketsAt, TICKETS_OF_LEAD_PEOPLE, TICKETS_OF_LEAD_PEOPLE + TICKET_ONLY]);
    await client.query(`ANALYZE "Lead"`);
  });
}

/** The backfill migration's SQL for this database, run as `migrate deploy` would run it. */
async function runBackfill(): Promise<void> {
  const dir = path.resolve(import.meta.dirname, "../../prisma", ...(onSqlite ? [] : ["postgres"]), "migrations");
  const folder = fs.readdirSync(dir).find((name) => name.endsWith("_people_backfill"));
  const sql = fs.readFileSync(path.join(dir, folder!, "migration.sql"), "utf8");
  if (onSqlite) {
    const sqlite = new Database(databaseUrl.slice("file:".length));
    sqlite.pragma("busy_timeout = 5000");
    sqlite.transaction(() => sqlite.exec(sql))();
    sqlite.close();
    return;
  }
  await withPostgres(async (client) => {
    await client.query("BEGIN");
    await client.query(sql);
    await client.query("COMMIT");
  });
}

let backfillMs = 0;

beforeAll(async () => {
  formId = (await createForm("Backfill", [[field("name", "Name"), field("email", "Email", "email")]])).id;
  await seed();
  // The migrated database holds people of its own making: none yet, as before the migration.
  expect(await db.person.count()).toBe(0);
  const started = performance.now();
  await runBackfill();
  backfillMs = performance.now() - started;
  console.log(`people backfill of ${LEADS} leads: ${Math.round(backfillMs)} ms`);
}, 120_000);
afterAll(async () => {
  await db.$disconnect();
});

describe("the people backfill on 100,000 leads", () => {
  it("runs in seconds", () => {
    expect(backfillMs).toBeLessThan(30_000);
  });

  it("makes one person per address, each holding it, and leaves no lead or ticket without one", async () => {
    expect(await db.person.count()).toBe(ADDRESSES + TICKET_ONLY);
    expect(await db.personAddress.count()).toBe(ADDRESSES + TICKET_ONLY);
    for (const table of ["Lead", "Ticket"]) {
      const [{ count }] = await db.$queryRawUnsafe<Array<{ count: number | bigint }>>(
        `SELECT COUNT(*) AS "count" FROM "${table}" r WHERE NOT EXISTS (SELECT 1 FROM "PersonAddress" a WHERE a."email" = r."email")`,
      );
      expect(Number(count), table).toBe(0);
    }
  });

  it("counts each person's leads and tickets and finds their first touch", async () => {
    const first = `p${"bf" + String(3).padStart(9, "0")}`;
    const three = await getPerson(first, {});
    expect(three).toMatchObject({
      email: "p3@backfill.example",
      // A support request's name comes before a lead's.
      name: "Ticket person 3",
      leadCount: LEADS / ADDRESSES,
      ticketCount: 1,
      firstSeenAt: new Date(START + 3).toISOString(),
      firstTouch: { utm_source: "src0", utm_campaign: "camp3", formId, at: new Date(START + 3).toISOString() },
      addresses: ["p3@backfill.example"],
    });
    expect(three.timeline).toHaveLength(LEADS / ADDRESSES + 1);
    // Its first lead was spam: first seen then, first touch its second lead.
    const ten = await getPerson(`pbf${String(1010).padStart(9, "0")}`, {});
    expect(ten).toMatchObject({
      name: "Person 1010",
      leadCount: 5,
      ticketCount: 0,
      firstSeenAt: new Date(START + 1010).toISOString(),
      firstTouch: { utm_source: "src1", at: new Date(START + ADDRESSES + 1010).toISOString() },
    });
  });

  it("lists them newest first, the people of tickets alone with no first touch", async () => {
    const { people, nextCursor } = await listPeople({});
    expect(people).toHaveLength(50);
    expect(nextCursor).not.toBeNull();
    expect(people[0]).toMatchObject({
      id: `pbt${String(TICKETS_OF_LEAD_PEOPLE + TICKET_ONLY - 1).padStart(6, "0")}`,
      email: `only${TICKETS_OF_LEAD_PEOPLE + TICKET_ONLY - 1}@backfill.example`,
      name: null,
      leadCount: 0,
      ticketCount: 1,
      firstTouch: null,
    });
    const found = await listPeople({ q: "p19999@" });
    expect(found.people).toMatchObject([{ email: "p19999@backfill.example", leadCount: 5, ticketCount: 0 }]);
  });
});
