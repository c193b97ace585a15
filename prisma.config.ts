// The Prisma CLI's configuration. Prisma's native engines cannot be downloaded on our
// machines, so the CLI runs its WebAssembly schema engine through the same driver
// adapters the app uses (see ../shared/STACK.md and docs/decisions/001-*).
import fs from "node:fs";
import path from "node:path";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { defineConfig } from "prisma/config";
import { DEFAULT_DATABASE_URL, databaseProvider, sqliteFilePath } from "./app/storage/database-url";

const url = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
const provider = databaseProvider(url);

/**
 * prisma/orm#27403: migrating through adapter-pg fails with "Column type 'name'
 * could not be deserialized". Reporting `name` (oid 19) columns as `text` (oid 25)
 * is enough for the schema engine; the app's own client does not need this.
 */
class NameAsTextPool extends pg.Pool {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  query(...args: any[]): any {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const result = (super.query as any)(...args);
    if (result && typeof result.then === "function") {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      return result.then((res: any) => {
        for (const field of res?.fields ?? []) {
          if (field.dataTypeID === 19) field.dataTypeID = 25;
        }
        return res;
      });
    }
    return result;
  }
}

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema:
    provider === "postgresql" ? path.join("prisma", "postgres", "schema.prisma") : path.join("prisma", "schema.prisma"),
  async adapter() {
    if (provider === "postgresql") {
      return new PrismaPg(new NameAsTextPool({ connectionString: url }));
    }
    const file = sqliteFilePath(url);
    fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    return new PrismaBetterSQLite3({ url: file });
  },
});
