// The first half of `npm start`: makes sure there is an environment, migrates the
// database, and creates the first staff user when there is none.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_DATABASE_URL, databaseProvider, sqliteFilePath } from "../app/storage/database-url";
import { exitOnConfigError } from "../app/utils/config-error";
import { buildIfStale } from "./build-if-stale";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const envFile = path.join(root, ".env");

// A fresh clone has no .env: write one with a generated SESSION_SECRET, so sessions
// survive restarts, and ALLOW_INSECURE_HTTP=true, so the quick start serves plain
// http://localhost (a production start otherwise needs an https:// APP_URL).
// Everything else keeps the defaults of .env.example.
if (!fs.existsSync(envFile) && !process.env.SESSION_SECRET) {
  const example = fs.readFileSync(path.join(root, ".env.example"), "utf8");
  const secret = randomBytes(32).toString("hex");
  const local = example
    .replace(/^SESSION_SECRET=.*$/m, `SESSION_SECRET=${secret}`)
    .replace(/^ALLOW_INSECURE_HTTP=.*$/m, "ALLOW_INSECURE_HTTP=true");
  fs.writeFileSync(envFile, local);
  console.log("Wrote .env for a local trial on http://localhost (edit it to configure the service).");
}
if (fs.existsSync(envFile)) process.loadEnvFile(envFile);

/** Runs one read on the database with its driver (no Prisma client: it takes a second to load). */
async function readOne<Row>(url: string, sql: string): Promise<Row[]> {
  if (databaseProvider(url) === "sqlite") {
    const file = sqliteFilePath(url);
    if (!fs.existsSync(file)) throw new Error("no database file yet");
    const { default: Database } = await import("better-sqlite3");
    const sqlite = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return sqlite.prepare(sql).all() as Row[];
    } finally {
      sqlite.close();
    }
  }
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as Row[];
  } finally {
    await client.end();
  }
}

/**
 * Whether every migration in the provider's folder is recorded as applied in the database
 * (Prisma's `_prisma_migrations`): then a start skips the Prisma CLI, which takes seconds.
 * Any doubt (no database yet, no table, a failed or rolled-back one) says no.
 */
async function migrationsApplied(url: string): Promise<boolean> {
  const folder = path.join(root, "prisma", ...(databaseProvider(url) === "sqlite" ? [] : ["postgres"]), "migrations");
  const expected = fs.readdirSync(folder).filter((name) => fs.statSync(path.join(folder, name)).isDirectory());
  try {
    const rows = await readOne<{ migration_name: string }>(
      url,
      `SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    const done = new Set(rows.map((row) => row.migration_name));
    return expected.every((name) => done.has(name));
  } catch {
    return false;
  }
}

const databaseUrl = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
if (await migrationsApplied(databaseUrl)) {
  console.log("Database up to date.");
} else {
  execFileSync(process.execPath, ["--import", "tsx", path.join(root, "scripts", "prisma.ts"), "migrate", "deploy"], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
    env: process.env,
  });
  console.log("Database migrated.");
}

// `npm start` (setup.ts --build): the build, unless it is newer than its sources.
if (process.argv.includes("--build")) {
  try {
    buildIfStale();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
}

// Last, so that on a first start the sign-in details are the last lines before the
// server's own "listening" line, not lost above the build's output.
const [{ users }] = await readOne<{ users: number | string }>(databaseUrl, `SELECT COUNT(*) AS users FROM "User"`);
if (Number(users) === 0) {
  const { createOrResetUser } = await import("../app/staff/user.server").catch(exitOnConfigError);
  const email = process.env.ADMIN_EMAIL || "admin@example.com";
  const password = process.env.ADMIN_PASSWORD || randomBytes(12).toString("base64url");
  await createOrResetUser({ email, password });
  const url = process.env.APP_URL || `http://localhost:${process.env.PORT || 3000}`;
  console.log(`\nFirst staff user created. Open ${url} and log in with:`);
  console.log(`  email:    ${email}`);
  if (process.env.ADMIN_PASSWORD) console.log("  password: (ADMIN_PASSWORD)\n");
  else console.log(`  password: ${password}\n  (shown once: write it down, or reset it with npm run user:create)\n`);
  const { db } = await import("../app/storage/db.server");
  await db.$disconnect();
}
