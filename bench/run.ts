// npm run bench: measures the public endpoints and the exports, each beside a baseline
// taken in the same run on the same machine, so the ratio holds on a noisy machine.
//
//   BENCH_LEADS     leads seeded for the export and list figures (default 200000)
//   BENCH_SECONDS   measured seconds per load run (default 10; a 3 s warm-up precedes each)
//   BENCH_ONLY      comma list of sections to run: submit,submit-pg,submit-webhook,submit-webhook-pg,
//                   export,list,inbound
//   TEST_POSTGRES_URL  PostgreSQL admin URL (default postgresql://postgres@127.0.0.1:5432/postgres)
//
// Prints a table and writes bench/results/<time>.json (the newest 5 are kept).
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import Database from "better-sqlite3";
import pg from "pg";
import { startServer, type TestServer } from "../tests/support/server";
import type { AddressInfo } from "node:net";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const tmp = path.join(root, "bench", ".tmp");
const resultsDir = path.join(root, "bench", "results");
const LEADS = Number(process.env.BENCH_LEADS ?? 200_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ONLY = new Set(
  (process.env.BENCH_ONLY ?? "submit,submit-pg,submit-webhook,submit-webhook-pg,export,list,inbound").split(","),
);
const PG_ADMIN = process.env.TEST_POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const STAFF = { email: "bench@example.com", password: "benchmark password 1" };
const SECRETS = {
  SESSION_SECRET: randomBytes(24).toString("hex"),
  SUPPORT_API_KEY: randomBytes(24).toString("hex"),
  INBOUND_SECRET: randomBytes(24).toString("hex"),
  // The measured servers run NODE_ENV=production on plain http://127.0.0.1.
  ALLOW_INSECURE_HTTP: "true",
};

type Row = { figure: string; app: string; baseline: string; ratio: string; goal: string; ok: boolean | null };
const rows: Row[] = [];
const results: Record<string, unknown> = {
  startedAt: new Date().toISOString(),
  machine: { cpus: (await import("node:os")).cpus().length, node: process.version },
  leads: LEADS,
  seconds: SECONDS,
};

fs.rmSync(tmp, { recursive: true, force: true });
fs.mkdirSync(tmp, { recursive: true });

// ---------------------------------------------------------------- databases

function migrate(databaseUrl: string) {
  execFileSync(process.execPath, ["--import", "tsx", path.join(root, "scripts", "prisma.ts"), "migrate", "deploy"], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

let sqliteTemplate: string | undefined;
function freshSqlite(name: string): string {
  if (!sqliteTemplate) {
    sqliteTemplate = path.join(tmp, "template.db");
    migrate(`file:${sqliteTemplate}`);
  }
  const file = path.join(tmp, `${name}.db`);
  fs.copyFileSync(sqliteTemplate, file);
  return `file:${file}`;
}

const pgDatabases: string[] = [];
let pgTemplate: string | undefined;
async function freshPostgres(name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin.connect();
  try {
    if (!pgTemplate) {
      pgTemplate = `lc_bench_template_${process.pid}`;
      await admin.query(`DROP DATABASE IF EXISTS "${pgTemplate}"`);
      await admin.query(`CREATE DATABASE "${pgTemplate}"`);
      pgDatabases.push(pgTemplate);
      migrate(PG_ADMIN.replace(/\/[^/]*$/, `/${pgTemplate}`));
    }
    const db = `lc_bench_${name}_${process.pid}`;
    await admin.query(`DROP DATABASE IF EXISTS "${db}"`);
    await admin.query(`CREATE DATABASE "${db}" TEMPLATE "${pgTemplate}"`);
    pgDatabases.push(db);
    return PG_ADMIN.replace(/\/[^/]*$/, `/${db}`);
  } finally {
    await admin.end();
  }
}

async function countLeads(databaseUrl: string, formId?: string): Promise<number> {
  const where = formId ? ` WHERE "formId" = '${formId.replace(/[^A-Za-z0-9_-]/g, "")}'` : "";
  if (databaseUrl.startsWith("file:")) {
    const db = new Database(databaseUrl.slice(5), { readonly: true });
    const { n } = db.prepare(`SELECT COUNT(*) AS n FROM "Lead"${where}`).get() as { n: number };
    db.close();
    return n;
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const { rows } = await client.query(`SELECT COUNT(*)::int AS n FROM "Lead"${where}`);
  await client.end();
  return rows[0].n;
}

// ---------------------------------------------------------------- servers

async function startApp(databaseUrl: string, extra: Record<string, string> = {}): Promise<TestServer> {
  return startServer({
    ...SECRETS,
    DATABASE_URL: databaseUrl,
    ENV_FILE: "",
    SUBMIT_RATE_LIMIT_PER_MINUTE: "0",
    SUPPORT_RATE_LIMIT_PER_HOUR: "0",
    ...extra,
  });
}

async function startBaseline(databaseUrl: string): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(root, "bench", "baseline-submit.ts")], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk) => {
      out += chunk;
      const match = out.match(/listening on (\S+)/);
      if (match) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`baseline exited ${code}`)));
  });
  return { url, stop: () => child.kill("SIGTERM") };
}

async function staffCookie(app: TestServer, databaseUrl: string): Promise<string> {
  execFileSync(
    process.execPath,
    [
      path.join(root, "node_modules", "tsx", "dist", "cli.mjs"),
      path.join(root, "scripts", "user-create.ts"),
      "--email",
      STAFF.email,
      "--password",
      STAFF.password,
    ],
    { cwd: root, env: { ...process.env, ...SECRETS, DATABASE_URL: databaseUrl, ENV_FILE: "" }, stdio: "ignore" },
  );
  const res = await fetch(`${app.url}/api/auth/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(STAFF),
  });
  if (!res.ok) throw new Error(`bench login failed: ${res.status}`);
  return res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}

const FIELDS = [
  { key: "name", label: "Name", type: "text", required: true },
  { key: "email", label: "Email", type: "email", required: true },
  { key: "company", label: "Company", type: "text" },
  { key: "size", label: "Team size", type: "number", min: 1 },
  { key: "message", label: "Message", type: "textarea" },
];

async function createForm(app: TestServer, cookie: string): Promise<string> {
  const res = await fetch(`${app.url}/api/forms`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Cookie: cookie },
    body: JSON.stringify({ name: "Contact", fields: FIELDS }),
  });
  if (res.status !== 201) throw new Error(`create form: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

function leadBody(formId: string) {
  return JSON.stringify({
    formId,
    data: {
      name: "Ada Lovelace",
      email: "ada@example.com",
      company: "Analytical Engines Ltd",
      size: 12,
      message: "We would like a demo of the product next week, please.",
    },
    utm: {
      utm_source: "newsletter",
      utm_medium: "email",
      utm_campaign: "spring-launch",
      utm_term: "forms",
      utm_content: "cta",
    },
    referrerUrl: "https://news.example.com/issue/42",
    landingPageUrl: "https://www.example.com/pricing?utm_source=newsletter",
  });
}

// ---------------------------------------------------------------- load

type Load = { requestsPerSec: number; p50: number; p99: number; ok: number; non2xx: number; errors: number };

async function load(
  url: string,
  options: Omit<autocannon.Options, "url" | "duration"> & { seconds?: number },
): Promise<Load> {
  const run = (seconds: number) => autocannon({ url, duration: seconds, ...options });
  const warm = await run(3);
  const result = await run(options.seconds ?? SECONDS);
  return {
    requestsPerSec: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: warm["2xx"] + result["2xx"],
    non2xx: warm.non2xx + result.non2xx,
    errors: warm.errors + warm.timeouts + result.errors + result.timeouts,
  };
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

// ---------------------------------------------------------------- sections

async function benchSubmit(kind: "sqlite" | "postgres") {
  const appDb = kind === "sqlite" ? freshSqlite("submit-app") : await freshPostgres("submit_app");
  const baseDb = kind === "sqlite" ? freshSqlite("submit-base") : await freshPostgres("submit_base");
  const app = await startApp(appDb);
  let appLoad: Load;
  let formId: string;
  try {
    const cookie = await staffCookie(app, appDb);
    formId = await createForm(app, cookie);
    appLoad = await load(`${app.url}/api/leads/submit`, {
      method: "POST",
      connections: 50,
      headers: { "Content-Type": "application/json" },
      body: leadBody(formId),
    });
  } finally {
    await app.stop();
  }
  const stored = await countLeads(appDb);

  // The baseline inserts into a copy of the same schema, with a form row for the foreign key.
  const baseline = await startBaseline(baseDb);
  let baseLoad: Load;
  try {
    if (baseDb.startsWith("file:")) {
      const db = new Database(baseDb.slice(5));
      db.prepare(
        `INSERT INTO "Form" (id, name, fields, settings, "createdAt", "updatedAt") VALUES (?, 'Contact', ?, '{}', ?, ?)`,
      ).run(formId, JSON.stringify(FIELDS), new Date().toISOString(), new Date().toISOString());
      db.close();
    } else {
      const client = new pg.Client({ connectionString: baseDb });
      await client.connect();
      await client.query(
        `INSERT INTO "Form" (id, name, fields, settings, "updatedAt") VALUES ($1, 'Contact', $2, '{}', now())`,
        [formId, JSON.stringify(FIELDS)],
      );
      await client.end();
    }
    baseLoad = await load(`${baseline.url}/`, {
      method: "POST",
      connections: 50,
      headers: { "Content-Type": "application/json" },
      body: leadBody(formId),
    });
  } finally {
    baseline.stop();
  }
  const ratio = appLoad.requestsPerSec / baseLoad.requestsPerSec;
  // Requests still in flight when a load run ends are stored but never counted as 2xx,
  // so stored may exceed the 2xx count by up to the connection count per run; a lead
  // is lost only when a 2xx answer has no row.
  const lost = Math.max(0, appLoad.ok - stored);
  results[`submit_${kind}`] = { app: appLoad, baseline: baseLoad, ratio, storedLeads: stored, lost };
  rows.push({
    figure: `submit req/s (${kind})`,
    app: fmt(appLoad.requestsPerSec),
    baseline: fmt(baseLoad.requestsPerSec),
    ratio: fmt(ratio, 2),
    goal: kind === "sqlite" ? ">= 0.50" : "-",
    ok: kind === "sqlite" ? ratio >= 0.5 : null,
  });
  rows.push({
    figure: `submit p50/p99 ms (${kind})`,
    app: `${appLoad.p50}/${appLoad.p99}`,
    baseline: `${baseLoad.p50}/${baseLoad.p99}`,
    ratio: "",
    goal: kind === "sqlite" ? "p99 < 25" : "-",
    ok: kind === "sqlite" ? appLoad.p99 < 25 : null,
  });
  rows.push({
    figure: `submit 2xx vs stored (${kind})`,
    app: `${fmt(appLoad.ok)} / ${fmt(stored)}`,
    baseline: "",
    ratio: "",
    goal: "0 lost",
    ok: lost === 0 && appLoad.errors === 0,
  });
}

/**
 * Submit throughput with one webhook endpoint subscribed to lead.created (a local receiver
 * answering 204), against the same server and form with none, alternated in one run: the
 * event rows and the deliveries running beside the load must keep 80% of the figure.
 */
async function benchSubmitWebhook(kind: "sqlite" | "postgres") {
  let delivered = 0;
  const receiver = http.createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      delivered++;
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const appDb = kind === "sqlite" ? freshSqlite("submit-webhook") : await freshPostgres("submit_webhook");
  const app = await startApp(appDb, { WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE: "true" });
  const submit = (formId: string) =>
    load(`${app.url}/api/leads/submit`, {
      method: "POST",
      connections: 50,
      headers: { "Content-Type": "application/json" },
      body: leadBody(formId),
    });
  let without: Load[] = [];
  let withHook: Load[] = [];
  let drained = false;
  try {
    const cookie = await staffCookie(app, appDb);
    const plainForm = await createForm(app, cookie);
    const hookedForm = await createForm(app, cookie);
    const res = await fetch(`${app.url}/api/webhooks`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Cookie: cookie },
      body: JSON.stringify({ url: receiverUrl, events: ["lead.created"], formId: hookedForm }),
    });
    if (res.status !== 201) throw new Error(`create webhook: ${res.status} ${await res.text()}`);
    // Alternated: without, with, without, with (the machine's speed drifts).
    without = [await submit(plainForm)];
    withHook = [await submit(hookedForm)];
    without.push(await submit(plainForm));
    withHook.push(await submit(hookedForm));
    const hooked = () => countLeads(appDb, hookedForm);
    const deadline = Date.now() + 120_000;
    while (delivered < (await hooked()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    drained = delivered >= (await hooked());
    results[`submit_webhook_delivered_${kind}`] = { leads: await hooked(), delivered };
  } finally {
    await app.stop();
    receiver.close();
  }
  const mean = (loads: Load[]) => loads.reduce((sum, l) => sum + l.requestsPerSec, 0) / loads.length;
  const ratio = mean(withHook) / mean(without);
  results[`submit_webhook_${kind}`] = { without, with: withHook, ratio };
  rows.push({
    figure: `submit req/s, 1 webhook vs none (${kind})`,
    app: fmt(mean(withHook)),
    baseline: fmt(mean(without)),
    ratio: fmt(ratio, 2),
    goal: ">= 0.80",
    ok: ratio >= 0.8,
  });
  rows.push({
    figure: `webhook deliveries drained (${kind})`,
    app: drained ? "all" : "not within 120 s",
    baseline: "",
    ratio: "",
    goal: "all",
    ok: drained,
  });
}

/** Seeds leads straight into SQLite (fast), shaped like real submissions across 3 forms. */
function seedLeads(databaseUrl: string, count: number): { formId: string; campaign: string } {
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
    db.prepare(`INSERT INTO "Lead" (id, "formId", "schemaVersion", data, "searchText", "utmSource", "utmMedium", "utmCampaign", "referrerUrl", "referrerHost", "landingPageUrl", "isSpam", "createdAt")
    VALUES (?, ?, 1, ?, ?, ?, 'email', ?, 'https://news.example.com/a', 'news.example.com', 'https://www.example.com/', 0, ?)`);
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
      );
    }
  });
  for (let i = 0; i < count; i += 10_000) batch(i, Math.min(count, i + 10_000));
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  return { formId: forms[0], campaign: "spring-launch" };
}

function rssKb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(status.match(/VmRSS:\s+(\d+)/)![1]);
}

async function timedDownload(url: string, cookie: string, pid: number) {
  const before = rssKb(pid);
  let peak = before;
  const sampler = setInterval(() => {
    try {
      peak = Math.max(peak, rssKb(pid));
    } catch {
      /* process gone */
    }
  }, 50);
  const started = performance.now();
  const res = await fetch(url, { headers: { Cookie: cookie } });
  if (!res.ok || !res.body) throw new Error(`export ${url}: ${res.status} ${await res.text()}`);
  let bytes = 0;
  let firstByteMs = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!firstByteMs) firstByteMs = performance.now() - started;
    bytes += value.byteLength;
  }
  const ms = performance.now() - started;
  clearInterval(sampler);
  return { ms, bytes, firstByteMs, rssBeforeMb: before / 1024, peakGrowthMb: (peak - before) / 1024 };
}

function baselineCsv(databaseUrl: string): { ms: number; bytes: number } {
  const started = performance.now();
  const db = new Database(databaseUrl.slice(5), { readonly: true });
  const out = fs.openSync(path.join(tmp, "baseline.csv"), "w");
  const quote = (value: unknown) => {
    const text = value === null || value === undefined ? "" : String(value);
    return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  let buffer =
    "\ufeffid,submitted_at,form,name,email,company,size,message,utm_source,utm_medium,utm_campaign,utm_term,utm_content,referrer,landing\n";
  let bytes = 0;
  const rows = db
    .prepare(
      `SELECT l.id, l."createdAt", f.name AS form, l.data, l."utmSource", l."utmMedium", l."utmCampaign", l."utmTerm", l."utmContent", l."referrerUrl", l."landingPageUrl" FROM "Lead" l JOIN "Form" f ON f.id = l."formId" WHERE l."isSpam" = 0 ORDER BY l."createdAt" DESC, l.id DESC`,
    )
    .iterate() as Iterable<Record<string, unknown>>;
  for (const row of rows) {
    const data = JSON.parse(row.data as string);
    buffer +=
      [
        row.id,
        row.createdAt,
        row.form,
        data.name,
        data.email,
        data.company,
        data.size,
        data.message,
        row.utmSource,
        row.utmMedium,
        row.utmCampaign,
        row.utmTerm,
        row.utmContent,
        row.referrerUrl,
        row.landingPageUrl,
      ]
        .map(quote)
        .join(",") + "\n";
    if (buffer.length > 1 << 16) {
      bytes += fs.writeSync(out, buffer);
      buffer = "";
    }
  }
  bytes += fs.writeSync(out, buffer);
  fs.closeSync(out);
  db.close();
  return { ms: performance.now() - started, bytes };
}

let exportDb: string | undefined;
let exportSeed: { formId: string; campaign: string } | undefined;
function exportDatabase() {
  if (!exportDb) {
    exportDb = freshSqlite("export");
    const started = performance.now();
    exportSeed = seedLeads(exportDb, LEADS);
    console.log(`seeded ${fmt(LEADS)} leads in ${fmt((performance.now() - started) / 1000, 1)} s`);
  }
  return { databaseUrl: exportDb, ...exportSeed! };
}

async function benchExport() {
  const { databaseUrl } = exportDatabase();
  const baseline = baselineCsv(databaseUrl);
  const app = await startApp(databaseUrl);
  try {
    const cookie = await staffCookie(app, databaseUrl);
    const pid = app.process.pid!;
    for (const format of ["csv", "xlsx"] as const) {
      const run = await timedDownload(`${app.url}/api/leads/export?format=${format}`, cookie, pid);
      const ratio = run.ms / baseline.ms;
      const goal = format === "csv" ? 2 : 5;
      results[`export_${format}`] = { app: run, baseline, ratio };
      rows.push({
        figure: `export ${format} of ${fmt(LEADS)} (s)`,
        app: fmt(run.ms / 1000, 2),
        baseline: fmt(baseline.ms / 1000, 2),
        ratio: fmt(ratio, 2),
        goal: `<= ${goal}x`,
        ok: ratio <= goal,
      });
      rows.push({
        figure: `export ${format} memory growth (MB)`,
        app: fmt(run.peakGrowthMb, 1),
        baseline: "",
        ratio: "",
        goal: "< 100",
        ok: run.peakGrowthMb < 100,
      });
    }
  } finally {
    await app.stop();
  }
}

async function benchList() {
  const { databaseUrl, formId, campaign } = exportDatabase();
  const app = await startApp(databaseUrl);
  try {
    const cookie = await staffCookie(app, databaseUrl);
    const result = await load(`${app.url}/api/leads?formId=${formId}&utm_campaign=${campaign}&limit=50`, {
      connections: 10,
      headers: { Cookie: cookie },
    });
    results.list = result;
    rows.push({
      figure: `list p50/p99 ms at ${fmt(LEADS)}`,
      app: `${result.p50}/${result.p99}`,
      baseline: "",
      ratio: "",
      goal: "p99 < 20",
      ok: result.p99 < 20 && result.non2xx === 0,
    });
  } finally {
    await app.stop();
  }
}

async function benchInbound() {
  const databaseUrl = freshSqlite("inbound");
  const app = await startApp(databaseUrl);
  try {
    const references: string[] = [];
    for (let i = 0; i < 300; i++) {
      const res = await fetch(`${app.url}/api/support-requests`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          email: `customer${i}@example.com`,
          name: `Customer ${i}`,
          subject: `Question ${i}`,
          message: "Hello, I have a question.",
        }),
      });
      if (res.status !== 201) throw new Error(`create ticket: ${res.status} ${await res.text()}`);
      references.push(((await res.json()) as { reference: string }).reference);
    }
    let n = 0;
    const result = await load(`${app.url}/api/support-requests/inbound`, {
      method: "POST",
      connections: 20,
      headers: { "Content-Type": "application/json", "x-inbound-secret": SECRETS.INBOUND_SECRET },
      requests: [
        {
          setupRequest(request: autocannon.Request) {
            const i = n++;
            const reference = references[i % references.length];
            request.body = JSON.stringify({
              from: `customer${i % references.length}@example.com`,
              subject: `Re: Question [#${reference}]`,
              text: `Thanks, reply number ${i}.\n\nOn Monday someone wrote:\n> Hello`,
            });
            return request;
          },
        },
      ],
    });
    results.inbound = result;
    rows.push({
      figure: "inbound emails/s (20 conns)",
      app: fmt(result.requestsPerSec),
      baseline: "",
      ratio: "",
      goal: "-",
      ok: result.non2xx === 0 && result.errors === 0,
    });
  } finally {
    await app.stop();
  }
}

// ---------------------------------------------------------------- run

try {
  if (ONLY.has("submit")) await benchSubmit("sqlite");
  if (ONLY.has("submit-pg")) await benchSubmit("postgres");
  if (ONLY.has("submit-webhook")) await benchSubmitWebhook("sqlite");
  if (ONLY.has("submit-webhook-pg")) await benchSubmitWebhook("postgres");
  if (ONLY.has("export")) await benchExport();
  if (ONLY.has("list")) await benchList();
  if (ONLY.has("inbound")) await benchInbound();
} finally {
  if (pgDatabases.length) {
    const admin = new pg.Client({ connectionString: PG_ADMIN });
    await admin.connect();
    for (const db of pgDatabases.reverse()) await admin.query(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
    await admin.end();
  }
  fs.rmSync(tmp, { recursive: true, force: true });
}

const widths = ["figure", "app", "baseline", "ratio", "goal"].map((key) =>
  Math.max(key.length, ...rows.map((row) => String(row[key as keyof Row]).length)),
);
const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i])).join("  ");
console.log(`\n${line(["figure", "app", "baseline", "ratio", "goal"])}  met`);
for (const row of rows) {
  console.log(
    `${line([row.figure, row.app, row.baseline, row.ratio, row.goal])}  ${row.ok === null ? "" : row.ok ? "yes" : "NO"}`,
  );
}

fs.mkdirSync(resultsDir, { recursive: true });
const stamp = new Date().toISOString().replace(/[:.]/g, "-");
fs.writeFileSync(path.join(resultsDir, `${stamp}.json`), JSON.stringify({ ...results, table: rows }, null, 2) + "\n");
const kept = fs
  .readdirSync(resultsDir)
  .filter((file) => file.endsWith(".json"))
  .sort();
for (const old of kept.slice(0, -5)) fs.rmSync(path.join(resultsDir, old));
console.log(`\nwrote bench/results/${stamp}.json`);
