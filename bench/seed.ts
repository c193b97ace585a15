// Leads seeded straight into a SQLite database, shaped like real submissions across three
// forms: the benchmark's export, list and count figures, and the million-lead test
// (tests/integration/lead-scale.test.ts), read the same data.
import Database from "better-sqlite3";
import { LEAD_DAILY_BACKFILL } from "../app/storage/leads/lead-daily-sql";

export const FIELDS = [
  { key: "name", label: "Name", type: "text", required: true },
  { key: "email", label: "Email", type: "email", required: true },
  { key: "company", label: "Company", type: "text" },
  { key: "size", label: "Team size", type: "number", min: 1 },
  { key: "message", label: "Message", type: "textarea" },
];

/** Seeds leads straight into SQLite (fast), shaped like real submissions across 3 forms. */
export function seedLeads(databaseUrl: string, count: number): { formId: string; campaign: string } {
  const db = new Database(databaseUrl.slice(5));
  db.pragma("journal_mode = WAL");
  const now = new Date().toISOString();
  const forms = ["Contact", "Demo request", "Newsletter"].map((name, i) => {
    const id = `benchform${i}`;
    db.prepare(
      `INSERT INTO "Form" (id, name, fields, "schemaVersion", settings, "createdAt", "updatedAt") VALUES (?, ?, ?, 1, '{}', ?, ?)`,
    ).run(id, name, JSON.stringify(FIELDS), now, now);
    db.prepare(`INSERT INTO "FormVersion" ("formId", version, fields, "createdAt") VALUES (?, 1, ?, ?)`).run(
      id,
      JSON.stringify(FIELDS),
      now,
    );
    return id;
  });
  const insert =
    db.prepare(`INSERT INTO "Lead" (id, "formId", "schemaVersion", data, "searchText", "utmSource", "utmMedium", "utmCampaign", "referrerUrl", "referrerHost", "landingPageUrl", "isSpam", "createdAt", "email")
    VALUES (?, ?, 1, ?, ?, ?, 'email', ?, 'https://news.example.com/a', 'news.example.com', 'https://www.example.com/', 0, ?, ?)`);
  const sources = ["newsletter", "google", "linkedin", "partner"];
  const campaigns = ["spring-launch", "black-friday", "webinar", "retargeting", "brand"];
  const start = Date.now() - count * 1000;
  const batch = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const data = {
        name: `Lead ${i}, "quoted"`,
        email: `lead${i}@example.com`,
        company: `Company ${i % 997}`,
        size: i % 500,
        message: `Hello from lead ${i}\nsecond line`,
      };
      insert.run(
        `lead${String(i).padStart(9, "0")}`,
        forms[i % 3],
        JSON.stringify(data),
        Object.values(data).join(" ").toLowerCase(),
        sources[i % 4],
        campaigns[i % 5],
        new Date(start + i * 1000).toISOString().replace("Z", "+00:00"),
        data.email,
      );
    }
  });
  for (let i = 0; i < count; i += 10_000) batch(i, Math.min(count, i + 10_000));
  // The daily lead rollup the sources page reads, as the migration's backfill fills it.
  db.exec(LEAD_DAILY_BACKFILL.sqlite);
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  return { formId: forms[0], campaign: "spring-launch" };
}
