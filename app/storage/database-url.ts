// Which database a DATABASE_URL names. Shared by the app's Prisma client and
// prisma.config.ts (the CLI), so both always agree.
export const DEFAULT_DATABASE_URL = "file:./data/app.db";

export type DatabaseProvider = "sqlite" | "postgresql";

export function databaseProvider(url: string): DatabaseProvider {
  return /^postgres(ql)?:\/\//i.test(url) ? "postgresql" : "sqlite";
}

/** `file:./data/app.db` -> `./data/app.db` (relative to the working directory). */
export function sqliteFilePath(url: string): string {
  return url.replace(/^file:/, "");
}
