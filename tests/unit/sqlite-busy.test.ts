// SQLite's "busy" comes to us in two shapes: better-sqlite3's own error, and through Prisma's
// driver adapter as "Operation has timed out" (P1008) with SQLite's code kept inside. Both
// must be retried (retryWhileBusy): a digest race in CI failed when only the first was known.
import { describe, expect, it } from "vitest";
import { isSqliteBusy } from "~/storage/db.server";

describe("isSqliteBusy", () => {
  it("knows SQLite's own error and Prisma's wrapping of it", () => {
    expect(isSqliteBusy({ code: "SQLITE_BUSY", message: "database is locked" })).toBe(true);
    expect(isSqliteBusy({ code: "SQLITE_BUSY_SNAPSHOT", message: "x" })).toBe(true);
    const wrapped = {
      code: "P1008",
      message: "Invalid `tx.notificationDigest.create()` invocation: Operation has timed out",
      meta: { driverAdapterError: { cause: { kind: "SocketTimeout", originalCode: "SQLITE_BUSY_SNAPSHOT" } } },
    };
    expect(isSqliteBusy(wrapped)).toBe(true);
    expect(isSqliteBusy({ ...wrapped, meta: {} })).toBe(true);
  });

  it("leaves every other error alone", () => {
    expect(isSqliteBusy({ code: "P2002", message: "Unique constraint failed" })).toBe(false);
    expect(isSqliteBusy({ code: "SQLITE_CONSTRAINT_UNIQUE", message: "x" })).toBe(false);
    expect(isSqliteBusy(new Error("boom"))).toBe(false);
    expect(isSqliteBusy(null)).toBe(false);
  });
});
