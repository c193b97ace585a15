// Every lead that got a 2xx is kept, whatever happens to the process afterwards.
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { NAME_AND_EMAIL, newForm } from "../support/forms";
import { startServer, type TestServer } from "../support/server";

const running: TestServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.kill()));
});

const CRASH_FORM = {
  name: "Crash",
  fields: [...NAME_AND_EMAIL, { key: "notes", label: "Notes", type: "textarea" }],
};

type Tally = {
  acknowledged: Set<string>;
  serverErrors: number;
  connectionErrors: number;
  sent: number;
  /** When each request that got no answer was started (performance.now()). */
  unansweredStarts: number[];
};

/** Keeps `concurrency` submissions in flight against `url` until `stop()`. */
function submitLoad(url: string, formId: string, concurrency = 16) {
  const tally: Tally = {
    acknowledged: new Set(),
    serverErrors: 0,
    connectionErrors: 0,
    sent: 0,
    unansweredStarts: [],
  };
  let stopped = false;
  const worker = async (w: number) => {
    for (let i = 0; !stopped; i++) {
      tally.sent++;
      const startedAt = performance.now();
      try {
        const res = await fetch(`${url}/api/leads/submit`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({
            formId,
            data: { name: `Worker ${w} lead ${i}`, email: `w${w}.${i}@example.com`, notes: "x".repeat(2000) },
            utm: { utm_source: "crash-test" },
          }),
        });
        const body = (await res.json()) as { id?: string };
        if (res.status === 201 && body.id) tally.acknowledged.add(body.id);
        else if (res.status >= 500) tally.serverErrors++;
      } catch {
        tally.connectionErrors++;
        tally.unansweredStarts.push(startedAt);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  };
  const done = Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)));
  return {
    tally,
    async stop() {
      stopped = true;
      await done;
    },
  };
}

async function expectEveryAcknowledgedLeadWhole(formId: string, acknowledged: Set<string>) {
  const rows = await db.lead.findMany({
    where: { formId },
    select: { id: true, data: true, searchText: true, utmSource: true, schemaVersion: true, createdAt: true },
  });
  const stored = new Map(rows.map((row) => [row.id, row]));
  const missing = [...acknowledged].filter((id) => !stored.has(id));
  expect(missing).toEqual([]);
  // Nothing half-written: every stored row, acknowledged or caught in flight, is complete.
  for (const row of rows) {
    const data = row.data as { name?: string; email?: string; notes?: string };
    expect(data.name).toMatch(/^Worker \d+ lead \d+$/);
    expect(data.notes).toHaveLength(2000);
    expect(row.searchText).toContain(data.email);
    expect(row.utmSource).toBe("crash-test");
    expect(row.schemaVersion).toBe(1);
    expect(row.createdAt).toBeInstanceOf(Date);
  }
  return rows.length;
}

describe("crash safety", () => {
  it("keeps every acknowledged lead, whole, when the server is killed with SIGKILL mid-load", async () => {
    const formId = await newForm(CRASH_FORM);
    const server = await startServer({ SUBMIT_RATE_LIMIT_PER_MINUTE: "0" });
    running.push(server);
    const load = submitLoad(server.url, formId);
    await expect.poll(() => load.tally.acknowledged.size, { timeout: 15_000, interval: 10 }).toBeGreaterThan(300);
    await server.kill();
    await load.stop();
    expect(load.tally.serverErrors).toBe(0);
    expect(load.tally.connectionErrors).toBeGreaterThan(0); // the kill did land mid-load

    // A new process on the same database finds them all, and takes new ones.
    const restarted = await startServer({ SUBMIT_RATE_LIMIT_PER_MINUTE: "0" });
    running.push(restarted);
    const stored = await expectEveryAcknowledgedLeadWhole(formId, load.tally.acknowledged);
    expect(stored).toBeGreaterThanOrEqual(load.tally.acknowledged.size);
    const after = await fetch(`${restarted.url}/api/leads/submit`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        formId,
        data: { name: "Worker 0 lead 999999", email: "after@example.com", notes: "x".repeat(2000) },
        utm: { utm_source: "crash-test" },
      }),
    });
    expect(after.status).toBe(201);
  });

  it("finishes the requests in flight and exits 0 on SIGTERM, losing no acknowledged lead", async () => {
    const formId = await newForm(CRASH_FORM);
    const server = await startServer({ SUBMIT_RATE_LIMIT_PER_MINUTE: "0" });
    running.push(server);
    const load = submitLoad(server.url, formId);
    await expect.poll(() => load.tally.acknowledged.size, { timeout: 15_000, interval: 10 }).toBeGreaterThan(300);
    const signalledAt = performance.now();
    const exitCode = await server.stop();
    await load.stop();
    expect(exitCode, server.output().slice(-4000)).toBe(0);
    expect(load.tally.serverErrors).toBe(0);
    // A request already on its way when the signal came is answered, not reset. (One sent in
    // the last moments may still be in the kernel's queue when the listener closes.)
    const resetEarly = load.tally.unansweredStarts.filter((startedAt) => startedAt < signalledAt - 250);
    expect(resetEarly).toEqual([]);
    expect(server.output()).toContain("SIGTERM: finishing requests in flight");
    await expectEveryAcknowledgedLeadWhole(formId, load.tally.acknowledged);
  });

  it("exits within SHUTDOWN_TIMEOUT_MS though a client holds a half-sent request open", async () => {
    const server = await startServer({ SHUTDOWN_TIMEOUT_MS: "2000" });
    running.push(server);
    const { port, hostname } = new URL(server.url);
    // A body that is promised and never sent: no handler runs until it has arrived, so
    // nothing of it was stored, and it must not hold the process up.
    const socket = net.connect(Number(port), hostname);
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.on("error", () => {});
    const closed = new Promise((resolve) => socket.once("close", resolve));
    socket.write(
      "POST /api/leads/submit HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{",
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = performance.now();
    const exitCode = await server.stop();
    const tookMs = performance.now() - started;
    expect(exitCode, server.output().slice(-2000)).toBe(0);
    expect(tookMs).toBeLessThan(2000 + 1500); // the timeout, and the process's own exit
    await closed;
  });
});
