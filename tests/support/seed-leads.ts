// Many leads at once, written straight into a test file's database (the app's own write
// path would take minutes for 100,000): on SQLite through better-sqlite3, as bench/seed.ts
// does; on PostgreSQL in one INSERT … SELECT over generate_series. Ids are the prefix and
// a 9-digit number; lead i is i milliseconds after `start`.
import Database from "better-sqlite3";
import pg from "pg";

export type LeadRun = { formId: string; count: number; prefix: string; start?: Date };

export async function insertLeads(
  databaseUrl: string,
  { formId, count, prefix, start = new Date("2026-01-01T00:00:00.000Z") }: LeadRun,
): Promise<void> {
  if (databaseUrl.startsWith("file:")) {
    insertIntoSqlite(databaseUrl.slice("file:".length), { formId, count, prefix, start });
    return;
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO "Lead" ("id", "formId", "schemaVersion", "data", "searchText", "createdAt", "email")
       SELECT $1 || lpad(i::text, 9, '0'), $2, 1,
              jsonb_build_object('name', 'Lead ' || i, 'email', 'lead' || i || '@example.com'),
              'lead ' || i || ' lead' || i || '@example.com',
              $3::timestamp + i * interval '1 millisecond', 'lead' || i || '@example.com'
       FROM generate_series(0, $4::int - 1) AS i`,
      [prefix, formId, start.toISOString().slice(0, 23), count],
    );
    // The planner's statistics, as autovacuum would gather them after a load this size.
    await client.query(`ANALYZE "Lead"`);
  } finally {
    await client.end();
  }
}

function insertIntoSqlite(file: string, { formId, count, prefix, start }: Required<LeadRun>) {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("busy_timeout = 5000");
  const insert = db.prepare(
    `INSERT INTO "Lead" ("id", "formId", "schemaVersion", "data", "searchText", "createdAt", "email")
     VALUES (?, ?, 1, ?, ?, ?, ?)`,
  );
  const batch = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const email = `lead${i}@example.com`;
      const createdAt = new Date(start.getTime() + i).toISOString().replace("Z", "+00:00");
      insert.run(
        `${prefix}${String(i).padStart(9, "0")}`,
        formId,
        JSON.stringify({ name: `Lead ${i}`, email }),
        `lead ${i} ${email}`,
        createdAt,
        email,
      );
    }
  });
  for (let i = 0; i < count; i += 10_000) batch(i, Math.min(count, i + 10_000));
  db.close();
}
