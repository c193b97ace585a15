// The submit benchmark's baseline: the least a lead endpoint can do. A bare node:http
// server that parses the same JSON and inserts the same row, one per request: a prepared
// better-sqlite3 statement (SQLite, WAL, `synchronous` as SQLITE_SYNCHRONOUS says: full is
// the "naive durable" baseline, normal the "naive fast" one) or one parameterised pg query
// on a pool of DATABASE_POOL_SIZE connections, as the app's (PostgreSQL).
//
//   DATABASE_URL=file:... node --import tsx bench/baseline-submit.ts   prints "listening on http://127.0.0.1:PORT"
import { createHash, randomBytes } from "node:crypto";
import http, { type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

const url = process.env.DATABASE_URL ?? "";
const columns = [
  "id",
  "formId",
  "schemaVersion",
  "data",
  "searchText",
  "utmSource",
  "utmMedium",
  "utmCampaign",
  "utmTerm",
  "utmContent",
  "referrerUrl",
  "referrerHost",
  "landingPageUrl",
  "userAgent",
  "ipHash",
  "isSpam",
  "createdAt",
];
const quoted = columns.map((column) => `"${column}"`).join(", ");

type Row = Array<string | number | boolean | null>;
let insert: (row: Row) => Promise<unknown>;
if (url.startsWith("postgres")) {
  const { default: pg } = await import("pg");
  const pool = new pg.Pool({ connectionString: url, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) });
  const sql = `INSERT INTO "Lead" (${quoted}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(", ")})`;
  insert = (row) => pool.query(sql, row);
} else {
  const { default: Database } = await import("better-sqlite3");
  const db = new Database(url.replace(/^file:/, ""), { timeout: 5000 });
  db.pragma("journal_mode = WAL");
  db.pragma(`synchronous = ${process.env.SQLITE_SYNCHRONOUS === "normal" ? "NORMAL" : "FULL"}`);
  const statement = db.prepare(`INSERT INTO "Lead" (${quoted}) VALUES (${columns.map(() => "?").join(", ")})`);
  insert = async (row) => statement.run(row);
}

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
}

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  const finish = async () => {
    let body: {
      formId: string;
      data: Record<string, unknown>;
      utm?: Record<string, string>;
      referrerUrl?: string;
      landingPageUrl?: string;
    };
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return send(res, 400, { error: { code: "malformed_json" } });
    }
    const id = randomBytes(12).toString("hex");
    const createdAt = new Date().toISOString();
    const utm = body.utm ?? {};
    const row: Row = [
      id,
      body.formId,
      1,
      JSON.stringify(body.data),
      Object.values(body.data).join(" ").toLowerCase(),
      utm.utm_source ?? null,
      utm.utm_medium ?? null,
      utm.utm_campaign ?? null,
      utm.utm_term ?? null,
      utm.utm_content ?? null,
      body.referrerUrl ?? null,
      body.referrerUrl ? new URL(body.referrerUrl).host : null,
      body.landingPageUrl ?? null,
      req.headers["user-agent"] ?? null,
      createHash("sha256")
        .update(req.socket.remoteAddress ?? "")
        .digest("hex"),
      url.startsWith("postgres") ? false : 0,
      createdAt,
    ];
    try {
      await insert(row);
      send(res, 201, { id, formId: body.formId, createdAt });
    } catch (error) {
      send(res, 500, { error: { code: "internal_error", message: String(error) } });
    }
  };
  req.on("end", () => void finish());
});
server.listen(0, "127.0.0.1", () =>
  console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`),
);
process.on("SIGTERM", () => server.close(() => process.exit(0)));
