// The one Prisma client of the process, for SQLite or PostgreSQL as DATABASE_URL says.
// Both generated clients share the same models; the SQLite client's types stand for both.
//
// It also hands out the driver underneath Prisma (the same connection, or the same pool)
// for the few hot paths where Prisma's per-query cost (hundreds of µs) would be most of a
// request: see docs/decisions/003-driver-for-hot-paths.md.
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient as PostgresClient } from "~/generated/postgres/client";
import { PrismaClient as SqliteClient } from "~/generated/sqlite/client";
import { env } from "../utils/env.server";
import { log } from "../utils/log.server";
import { sqliteFilePath } from "./database-url";
import type BetterSqlite3 from "better-sqlite3";

export type Db = SqliteClient;
export { Prisma } from "~/generated/sqlite/client";
export type * from "~/generated/sqlite/client";

export type SqliteConnection = BetterSqlite3.Database;

type Driver = { pool: pg.Pool | null; sqlite: SqliteConnection | null };

// Prisma's defaults (2 s to start an interactive transaction, 5 s to finish it) are short for
// SQLite, whose one connection runs one transaction at a time: on a loaded machine, with every
// commit synced (FULL), a transaction could fail only for having queued behind another.
const transactionOptions = { maxWait: 10_000, timeout: 15_000 };

function createClient(driver: Driver): Db {
  if (env.DATABASE_PROVIDER === "postgresql") {
    driver.pool = new pg.Pool({ connectionString: env.DATABASE_URL, max: env.DATABASE_POOL_SIZE });
    driver.pool.on("error", (error) => log.error(`PostgreSQL pool error: ${error.message}`));
    return new PostgresClient({ adapter: new PrismaPg(driver.pool), transactionOptions }) as unknown as Db;
  }
  // better-sqlite3's `timeout` is SQLite's busy timeout: writers wait rather than fail.
  const factory = new PrismaBetterSQLite3({ url: sqliteFilePath(env.DATABASE_URL), timeout: 5000 });
  // Keep hold of the connection the adapter opens, so hot paths can share it.
  const adapter = {
    provider: factory.provider,
    adapterName: factory.adapterName,
    async connect() {
      const connected = await factory.connect();
      const connection = (connected as unknown as { client: SqliteConnection }).client;
      // WAL lets readers run beside the writer. FULL syncs the WAL on every commit, so a
      // commit (and the 2xx after it) survives a power cut; group commit (decision 026)
      // pays that sync once per batch. NORMAL (SQLITE_SYNCHRONOUS=normal) survives a
      // killed process but an OS crash can lose the last commits (decision 027).
      connection.pragma("journal_mode = WAL");
      connection.pragma(`synchronous = ${env.SQLITE_SYNCHRONOUS === "full" ? "FULL" : "NORMAL"}`);
      driver.sqlite = connection;
      return connected;
    },
    connectToShadowDb: () => factory.connectToShadowDb(),
  };
  return new SqliteClient({ adapter: adapter as unknown as PrismaBetterSQLite3, transactionOptions });
}

// One client per process and database, kept on globalThis so that reloading modules
// (Vite's dev server, a test runner's module isolation) does not open another. Keyed by
// the URL, so a process that moves to another database gets a client for it.
const globalForDb = globalThis as unknown as { __db?: { url: string; db: Db; driver: Driver } };
if (globalForDb.__db?.url !== env.DATABASE_URL) {
  const fresh: Driver = { pool: null, sqlite: null };
  globalForDb.__db = { url: env.DATABASE_URL, db: createClient(fresh), driver: fresh };
}
const driver: Driver = globalForDb.__db.driver;
export const db: Db = globalForDb.__db.db;

export const isPostgres = env.DATABASE_PROVIDER === "postgresql";

/**
 * Values one Prisma `in` list may hold. Prisma binds at most 999 values in a SQLite
 * statement and splits a long list itself only when it is the whole filter: beside another
 * condition it refuses the query (P2029), so such lists are read in slices of this size.
 */
export const IN_LIST_SLICE = 500;

/** `list` in consecutive slices of at most `size` items. */
export function slices<T>(list: readonly T[], size = IN_LIST_SLICE): T[][] {
  const parts: T[][] = [];
  for (let i = 0; i < list.length; i += size) parts.push(list.slice(i, i + size));
  return parts;
}

/** A unique constraint refused the write: Prisma (P2002), better-sqlite3 and PostgreSQL (23505) each name it their own way. */
export function isUniqueViolation(error: unknown): boolean {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === "P2002" || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "23505";
}

/**
 * SQLite refused a write because another process held the database ("database is locked"):
 * a transaction that read a snapshot before another process committed cannot wait for the
 * busy timeout, so its caller may run it again.
 */
export function isSqliteBusy(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  // Through the driver adapter, Prisma throws SQLITE_BUSY as "Operation has timed out"
  // (P1008), with SQLite's own code kept on the adapter's error.
  type Wrapped = { driverAdapterError?: { cause?: { originalCode?: unknown } } };
  const wrapped = error as Wrapped & { meta?: Wrapped };
  const original = (wrapped.meta?.driverAdapterError ?? wrapped.driverAdapterError)?.cause?.originalCode;
  return (
    (typeof code === "string" && code.startsWith("SQLITE_BUSY")) ||
    (typeof original === "string" && original.startsWith("SQLITE_BUSY")) ||
    (code === "P1008" && !isPostgres) ||
    (typeof message === "string" && message.includes("database is locked"))
  );
}

/** A foreign key refused the write (a referenced row is gone): Prisma (P2003), better-sqlite3, PostgreSQL (23503). */
export function isForeignKeyViolation(error: unknown): boolean {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === "P2003" || code === "SQLITE_CONSTRAINT_FOREIGNKEY" || code === "23503";
}

/** The PostgreSQL pool Prisma uses (PostgreSQL only). */
export function postgresPool(): pg.Pool {
  if (!driver.pool) throw new Error("postgresPool() needs DATABASE_URL to name PostgreSQL");
  return driver.pool;
}

/**
 * The SQLite connection Prisma uses (SQLite only). Statements on it run synchronously,
 * so nothing interleaves with them, but they would join a Prisma transaction that is
 * open on the connection: callers that write wait for `inTransaction` to clear first
 * (see withSqliteWrite).
 */
export async function sqliteConnection(): Promise<SqliteConnection> {
  if (!driver.sqlite) await db.$connect();
  if (!driver.sqlite) throw new Error("sqliteConnection() needs DATABASE_URL to name SQLite");
  return driver.sqlite;
}

/** Runs a synchronous write on the shared SQLite connection outside any open Prisma transaction. */
export async function withSqliteWrite<T>(write: (connection: SqliteConnection) => T): Promise<T> {
  return write(await idleSqlite());
}

// ---------------------------------------------------------------------------
// Reading SQLite through the driver on hot paths (docs/decisions/003-driver-for-hot-paths.md)

/** The adapter stores DateTime as `toISOString()` with `+00:00` for `Z`; bind the same. */
export const sqliteTime = (date: Date) => date.toISOString().replace("Z", "+00:00");

/**
 * A stored UTC time as ISO 8601: SQLite's text (`...+00:00`, or `YYYY-MM-DD HH:MM:SS`) or
 * PostgreSQL's `timestamp` text (`YYYY-MM-DD HH:MM:SS.fff`).
 */
export function isoFromUtcText(value: unknown): string {
  if (typeof value === "string") {
    if (value.length === 29 && value.endsWith("+00:00")) return `${value.slice(0, 23)}Z`;
    if (/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)?$/.test(value))
      return new Date(`${value.replace(" ", "T")}Z`).toISOString();
    return new Date(value).toISOString();
  }
  return new Date(Number(value)).toISOString();
}

const statements = new WeakMap<SqliteConnection, Map<string, BetterSqlite3.Statement>>();

/** A statement prepared once per connection; rows come as objects keyed by column name. */
export function prepared(connection: SqliteConnection, sql: string): BetterSqlite3.Statement {
  let cache = statements.get(connection);
  if (!cache) statements.set(connection, (cache = new Map()));
  let statement = cache.get(sql);
  if (!statement) cache.set(sql, (statement = connection.prepare(sql)));
  return statement;
}

const IDLE_WAIT_LIMIT_MS = 5_000;

/** The SQLite connection, once no Prisma transaction is open on it (its rows would show). */
export async function idleSqlite(): Promise<SqliteConnection> {
  const connection = await sqliteConnection();
  const deadline = Date.now() + IDLE_WAIT_LIMIT_MS;
  while (connection.inTransaction) {
    // A Prisma transaction holds the connection for milliseconds; one held this long is a bug
    // of ours, and waiting on would only pile requests up behind it.
    if (Date.now() > deadline)
      throw new Error(`SQLite connection busy in a transaction for over ${IDLE_WAIT_LIMIT_MS} ms`);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return connection;
}
