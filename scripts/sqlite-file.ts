// What the backup and restore scripts share: which SQLite file DATABASE_URL names, and
// whether a file is a whole database of ours (decision 050).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { DEFAULT_DATABASE_URL, databaseProvider, sqliteFilePath } from "../app/storage/database-url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** The SQLite file the service uses, or an exit with the PostgreSQL tools to use instead. */
export function serviceDatabaseFile(command: "backup" | "restore"): string {
  // The same environment the server reads: .env, or the file ENV_FILE names ("" for none).
  const envFile = process.env.ENV_FILE ?? ".env";
  if (envFile && fs.existsSync(path.resolve(root, envFile))) process.loadEnvFile(path.resolve(root, envFile));
  const url = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  if (databaseProvider(url) === "postgresql") {
    const tool = command === "backup" ? "pg_dump --format=custom" : "pg_restore --clean --if-exists";
    fail(`DATABASE_URL names PostgreSQL: use ${tool} (docs/operations.md shows how).`);
  }
  return path.resolve(sqliteFilePath(url));
}

/** Why `file` is not a whole database of this service, or null when it is. */
export function notAWholeDatabase(file: string): string | null {
  if (!fs.existsSync(file)) return `${file} does not exist.`;
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const verdict = db.pragma("integrity_check", { simple: true });
    if (verdict !== "ok") return `${file} fails SQLite's integrity check: ${String(verdict)}`;
    const migrations = db
      .prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = '_prisma_migrations'")
      .get() as { n: number };
    if (migrations.n === 0) return `${file} is an SQLite database, but not one of this service's.`;
    return null;
  } catch (error) {
    return `${file} is not an SQLite database (${(error as Error).message}).`;
  } finally {
    db?.close();
  }
}

/**
 * Whether another process has the database open. Every connection to a WAL database holds a
 * shared lock while it is open, so an exclusive lock taken without waiting fails exactly when
 * the service (or anything else) has it open.
 */
export function inUse(file: string): boolean {
  if (!fs.existsSync(file)) return false;
  const db = new Database(file, { timeout: 0 });
  try {
    db.pragma("locking_mode = EXCLUSIVE");
    db.exec("BEGIN EXCLUSIVE");
    db.exec("COMMIT");
    return false;
  } catch (error) {
    if ((error as { code?: string }).code === "SQLITE_BUSY") return true;
    throw error;
  } finally {
    db.close();
  }
}

export function fail(message: string): never {
  console.error(message);
  process.exit(2);
}
