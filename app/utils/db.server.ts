// The one Prisma client of the process, for SQLite or PostgreSQL as DATABASE_URL says.
// Both generated clients share the same models; the SQLite client's types stand for both.
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient as PostgresClient } from "~/generated/postgres/client";
import { PrismaClient as SqliteClient } from "~/generated/sqlite/client";
import { sqliteFilePath } from "./database-url";
import { env } from "./env.server";

export type Db = SqliteClient;
export { Prisma } from "~/generated/sqlite/client";
export type * from "~/generated/sqlite/client";

function createClient(): Db {
  if (env.DATABASE_PROVIDER === "postgresql") {
    const adapter = new PrismaPg({ connectionString: env.DATABASE_URL, max: env.DATABASE_POOL_SIZE });
    return new PostgresClient({ adapter }) as unknown as Db;
  }
  // better-sqlite3's `timeout` is SQLite's busy timeout: writers wait rather than fail.
  const adapter = new PrismaBetterSQLite3({ url: sqliteFilePath(env.DATABASE_URL), timeout: 5000 });
  const client = new SqliteClient({ adapter });
  // WAL lets readers run beside the writer; NORMAL sync is crash-safe for the
  // application in WAL mode (only an OS crash can lose the last transactions).
  for (const pragma of ["journal_mode = WAL", "synchronous = NORMAL"]) {
    client.$queryRawUnsafe(`PRAGMA ${pragma}`).catch((error: unknown) => {
      console.error(`SQLite: PRAGMA ${pragma} failed`, error);
    });
  }
  return client;
}

const globalForDb = globalThis as unknown as { __db?: Db };
export const db: Db = (globalForDb.__db ??= createClient());

export const isPostgres = env.DATABASE_PROVIDER === "postgresql";
