// Memory stays flat while a 20 MB file streams in (issue 31 item 4, decision 064): what the
// server process holds, measured inside it after a full garbage collection every 250 ms
// (support/live-memory.ts), grows by less than the file while the upload runs. A
// server that held the body or the file whole would hold its 20 MB for the length of the
// request, across every collection.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newForm } from "../support/forms";
import { preloadInto, startServer, type TestServer } from "../support/server";
import { pdfBytes } from "../support/uploads";

let server: TestServer;
let formId: string;
let memoryFile: string;

beforeAll(async () => {
  memoryFile = path.join(os.tmpdir(), `live-memory-${process.pid}-${Date.now()}.ndjson`);
  server = await startServer({
    SUBMIT_RATE_LIMIT_PER_MINUTE: "0",
    LIVE_MEMORY_FILE: memoryFile,
    NODE_OPTIONS: `--expose-gc ${preloadInto("tests/support/live-memory.ts")}`,
  });
  formId = await newForm({
    name: "Memory",
    fields: [
      { key: "name", label: "Name", type: "text", required: true },
      { key: "file", label: "File", type: "file", accept: [".pdf"], maxSizeMb: 25 },
    ],
  });
});
afterAll(async () => {
  await server?.stop();
  fs.rmSync(memoryFile, { force: true });
});

const MiB = 1024 * 1024;

/** The most the server held (after its collections) between two moments. */
function heldBetween(from: number, to: number): { live: number; rss: number } {
  const samples = fs
    .readFileSync(memoryFile, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { at: number; live: number; rss: number })
    .filter((sample) => sample.at >= from && sample.at <= to);
  expect(samples.length).toBeGreaterThan(1);
  return {
    live: Math.max(...samples.map((sample) => sample.live)),
    rss: Math.max(...samples.map((sample) => sample.rss)),
  };
}

/** A multipart post of one PDF of `size` bytes, encoded before any measuring starts. */
async function upload(size: number, i: number) {
  const form = new FormData();
  form.set("formId", formId);
  form.set("name", `Upload ${i}`);
  form.set("file", new Blob([new Uint8Array(pdfBytes(size, i))]), `file-${i}.pdf`);
  const encoded = new Response(form);
  const body = await encoded.arrayBuffer();
  return () =>
    fetch(`${server.url}/api/leads/submit`, {
      method: "POST",
      headers: { "Content-Type": encoded.headers.get("content-type")!, Accept: "application/json" },
      body,
    });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a 20 MB upload", () => {
  it("grows what the server holds by less than the file while it streams in", async () => {
    // The path warmed (parser, type detection, chunk writes) with a small file first.
    const warm = await (await upload(2 * MiB, 0))();
    expect(warm.status, await warm.text()).toBe(201);
    const send = await upload(20 * MiB, 1);
    const idleFrom = Date.now();
    await pause(1500);
    const idle = heldBetween(idleFrom, Date.now());
    const from = Date.now();
    const res = await send();
    expect(res.status, await res.text()).toBe(201);
    await pause(300);
    const during = heldBetween(from, Date.now());
    const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;
    console.log(
      `20 MB upload: held ${mib(idle.live)} idle, at most ${mib(during.live)} while it streamed; ` +
        `resident ${mib(idle.rss)} idle, at most ${mib(during.rss)}`,
    );
    // Usually under 1 MiB; on SQLite, in about one run of three, a transient 11-12 MiB (seen
    // and not yet explained, left in the closing note of 2026-11-29). A server holding the
    // file whole holds 20 MiB and more.
    expect(during.live - idle.live).toBeLessThan(15 * MiB);
  }, 60_000);
});
