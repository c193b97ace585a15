// npm run backup / restore: a consistent copy of a serving SQLite database, and putting one
// back only when nothing has it open (docs/operations.md, decision 050).
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { newForm } from "../support/forms";
import { startServer, type TestServer } from "../support/server";

const onSqlite = process.env.TEST_DATABASE === "sqlite";
const running: TestServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.kill()));
});

type Run = { code: number | null; output: string };

function npmScript(script: "backup" | "restore", args: string[], env: Record<string, string> = {}): Promise<Run> {
  const child = spawn(process.execPath, ["--import", "tsx", `scripts/${script}.ts`, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, output })));
}

const scratch = () => fs.mkdtempSync(path.join(process.env.TEST_RUN_DIR ?? "/tmp", "backup-"));

/** Keeps `concurrency` submissions in flight until `stop()`, noting when each was acknowledged. */
function submitLoad(url: string, formId: string, concurrency = 8) {
  const acknowledged: { id: string; at: number }[] = [];
  let stopped = false;
  let failures = 0;
  const worker = async (w: number) => {
    for (let i = 0; !stopped; i++) {
      try {
        const res = await fetch(`${url}/api/leads/submit`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ formId, data: { name: `W${w} ${i}`, email: `w${w}.${i}@example.com` } }),
        });
        const body = (await res.json()) as { id?: string };
        if (res.status === 201 && body.id) acknowledged.push({ id: body.id, at: performance.now() });
        else failures++;
      } catch {
        failures++;
        stopped = true;
      }
    }
  };
  const done = Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)));
  return {
    acknowledged,
    failures: () => failures,
    async stop() {
      stopped = true;
      await done;
    },
  };
}

function leadIdsIn(file: string): Set<string> {
  const copy = new Database(file, { readonly: true });
  try {
    expect(copy.pragma("integrity_check", { simple: true })).toBe("ok");
    return new Set((copy.prepare("SELECT id FROM Lead").all() as { id: string }[]).map((row) => row.id));
  } finally {
    copy.close();
  }
}

// Each test runs the scripts as separate processes (tsx compiles them on start).
describe.runIf(onSqlite)("backup and restore on SQLite", { timeout: 120_000 }, () => {
  it("copies a database under write load with every lead acknowledged before the backup began", async () => {
    const formId = await newForm({ name: "Backup" });
    const server = await startServer({ SUBMIT_RATE_LIMIT_PER_MINUTE: "0" });
    running.push(server);
    const load = submitLoad(server.url, formId);
    await expect.poll(() => load.acknowledged.length, { timeout: 60_000, interval: 10 }).toBeGreaterThan(50);

    const backup = path.join(scratch(), "copy.db");
    const began = performance.now();
    const before = load.acknowledged.filter((lead) => lead.at < began).map((lead) => lead.id);
    const run = await npmScript("backup", [backup]);
    const during = load.acknowledged.filter((lead) => lead.at >= began).length;
    await load.stop();

    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain("integrity check ok");
    expect(load.failures()).toBe(0);
    expect(during).toBeGreaterThan(0); // the service kept taking leads while the copy was made
    const copied = leadIdsIn(backup);
    expect(before.filter((id) => !copied.has(id))).toEqual([]);
    expect(fs.readdirSync(path.dirname(backup))).toEqual(["copy.db"]); // no partial file left

    // Restored as another service's database, the copy serves those leads.
    const restoredFile = path.join(scratch(), "restored.db");
    const restore = await npmScript("restore", [backup], { DATABASE_URL: `file:${restoredFile}` });
    expect(restore.code, restore.output).toBe(0);
    const restored = await startServer({ DATABASE_URL: `file:${restoredFile}` });
    running.push(restored);
    const health = await fetch(`${restored.url}/healthz`);
    expect(health.status).toBe(200);
    expect(leadIdsIn(restoredFile).size).toBe(copied.size);
  });

  it("refuses to back up over an existing file", async () => {
    const existing = path.join(scratch(), "taken.db");
    fs.writeFileSync(existing, "keep me");
    const run = await npmScript("backup", [existing]);
    expect(run.code).toBe(2);
    expect(run.output).toContain("exists already");
    expect(fs.readFileSync(existing, "utf8")).toBe("keep me");
  });

  it("refuses a database that is open in a running service unless --force, and files that are no backup", async () => {
    const dir = scratch();
    const backup = path.join(dir, "good.db");
    expect((await npmScript("backup", [backup])).code).toBe(0);
    const live = path.join(dir, "live.db");
    fs.copyFileSync(backup, live);
    // What a running service does: keep it open in WAL mode, having read from it.
    const holder = new Database(live);
    holder.pragma("journal_mode = WAL");
    holder.prepare("SELECT count(*) FROM Lead").get();
    try {
      const refused = await npmScript("restore", [backup], { DATABASE_URL: `file:${live}` });
      expect(refused.code).toBe(2);
      expect(refused.output).toContain("open in a running service");
      const forced = await npmScript("restore", [backup, "--force"], { DATABASE_URL: `file:${live}` });
      expect(forced.code, forced.output).toBe(0);
    } finally {
      holder.close();
    }

    const junk = path.join(dir, "junk.db");
    fs.writeFileSync(junk, "not a database at all, just some bytes ".repeat(200));
    const notDb = await npmScript("restore", [junk], { DATABASE_URL: `file:${path.join(dir, "other.db")}` });
    expect(notDb.code).toBe(2);
    expect(notDb.output).toMatch(/not an SQLite database|integrity check/);
    expect(fs.existsSync(path.join(dir, "other.db"))).toBe(false);
  });
});

describe.runIf(!onSqlite)("backup on PostgreSQL", { timeout: 120_000 }, () => {
  it("points at pg_dump and pg_restore rather than copying anything", async () => {
    const dir = scratch();
    const backup = await npmScript("backup", [path.join(dir, "copy.db")]);
    expect(backup.code).toBe(2);
    expect(backup.output).toContain("pg_dump");
    const restore = await npmScript("restore", [path.join(dir, "copy.db")]);
    expect(restore.code).toBe(2);
    expect(restore.output).toContain("pg_restore");
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
