// The first `npm start` (scripts/setup.ts --build, then the server): on a database with no
// staff user it creates one and ends with its sign-in details, after the migration's (and
// the build's) lines, so they are not lost above other output; a second start prints none.
// Run here without --build: a build during the suite would replace the one its servers run.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";

const root = path.resolve(import.meta.dirname, "..", "..");

function setup(env: Record<string, string>) {
  const run = spawnSync(process.execPath, ["--import", "tsx", path.join(root, "scripts", "setup.ts")], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, ...env },
  });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout.trimEnd().split("\n");
}

describe("the first start", () => {
  it("ends with the new staff user's sign-in details, and a later start shows them no more", async () => {
    await db.user.deleteMany();
    const lines = setup({ ADMIN_EMAIL: "first@start.example", PORT: "3999", APP_URL: "" });
    expect(lines.slice(-4)).toEqual([
      "First staff user created. Open http://localhost:3999 and log in with:",
      "  email:    first@start.example",
      expect.stringMatching(/^ {2}password: \S{16}$/),
      "  (shown once: write it down, or reset it with npm run user:create)",
    ]);
    // The database's line came before them.
    expect(lines.some((line) => /^Database (up to date|migrated)\.$/.test(line))).toBe(true);
    expect(await db.user.count()).toBe(1);

    const again = setup({ PORT: "3999" });
    expect(again.join("\n")).not.toContain("password:");
  }, 120_000);
});
