// The worst email bodies we know of, sent to the real server while another client
// measures /healthz and the server itself records its event-loop delay
// (tests/support/loop-monitor.ts): reading and cleaning happen in worker threads with a
// time budget, so other requests are not held up, and every such email is still stored
// (2xx, never a 5xx).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { apiClient } from "../support/http";
import {
  loopStallBetween,
  percentile,
  pollHealthz,
  startMonitoredServer,
  type MonitoredServer,
} from "../support/loop-stall";
import { inboundSecret } from "../support/support-desk";
import type { TestServer } from "../support/server";

let monitored: MonitoredServer;
let server: TestServer;
let reference: string;
const customer = "stall@example.com";

beforeAll(async () => {
  monitored = await startMonitoredServer("loop", customer, "Stall");
  ({ server, reference } = monitored);
});
afterAll(() => monitored?.stop());

const NEAR_LIMIT = 1_000_000;
const MiB = 1024 * 1024;
const base64Of = (bytes: number) => Buffer.alloc(bytes, 7).toString("base64");

function sendGridPost(files: number[]): FormData {
  const form = new FormData();
  form.set("from", customer);
  form.set("subject", `Re: #${reference}`);
  form.set("text", "Screenshots attached.");
  files.forEach((size, i) =>
    form.set(`attachment${i + 1}`, new Blob([Buffer.alloc(size, i)], { type: "image/png" }), `shot-${i + 1}.png`),
  );
  return form;
}

const WORST: Array<{ name: string; body: Record<string, unknown> | (() => FormData) }> = [
  { name: "From: and 64 KiB of spaces", body: { text: `From:${" ".repeat(64 * 1024)}x` } },
  { name: "From: and 1 MiB of spaces", body: { text: `From:${" ".repeat(NEAR_LIMIT)}x` } },
  { name: "150,000 nested <div>s", body: { html: `${"<div>".repeat(150_000)}deep` } },
  { name: "nested <div>s closed too", body: { html: `${"<div>".repeat(80_000)}deep${"</div>".repeat(80_000)}` } },
  { name: "one 1 MiB line without the reply marker", body: { text: "x".repeat(NEAR_LIMIT) } },
  { name: "1 MiB of quoted lines", body: { text: "> quoted line of an old message\n".repeat(NEAR_LIMIT / 34) } },
  { name: "1 MiB of attribution-like lines", body: { text: "On Tue, someone wrote:\n".repeat(NEAR_LIMIT / 25) } },
  { name: "24 MiB of text", body: { text: "lorem ipsum dolor sit amet ".repeat((24 * MiB) / 27) } },
  { name: "From: and 24 MiB of spaces", body: { text: `From:${" ".repeat(24 * MiB)}x` } },
  { name: "24 MiB of nested <div>s", body: { html: "<div>".repeat((24 * MiB) / 5) } },
  {
    name: "JSON with 9.9 MiB and 7 MiB attachments (base64)",
    body: {
      text: "See attached.",
      attachments: [
        { filename: "big.bin", contentType: "application/octet-stream", content: base64Of(9.9 * MiB) },
        { filename: "over.bin", contentType: "application/octet-stream", content: base64Of(7 * MiB) },
      ],
    },
  },
  { name: "SendGrid multipart with 3 files of 8 MiB", body: () => sendGridPost([8 * MiB, 8 * MiB, 8 * MiB]) },
];

describe("hostile email bodies", () => {
  it("never hold up other requests: /healthz answers as fast at p99 as beside ordinary email while they are parsed, and each is stored", async () => {
    // The baseline, from the same minute: /healthz beside as many ordinary emails.
    const quiet = pollHealthz(server.url);
    const quietFrom = Date.now();
    for (let i = 0; i < WORST.length; i++) {
      const ordinary = { from: customer, subject: `Re: #${reference}`, text: `Thanks, noted (${i}).` };
      await apiClient(server.url)("POST", "/api/support-requests/inbound", ordinary, inboundSecret());
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    const baselineP99 = percentile(await quiet.stop(), 99);
    const baselineStall = loopStallBetween(monitored.loopFile, quietFrom, Date.now());

    // Every post is built before the polling starts: serialising 24 MiB on the test's own
    // event loop would hold up its /healthz poller and be counted against the server.
    const json = { "Content-Type": "application/json", ...inboundSecret() };
    const prepared = WORST.map(({ name, body }) =>
      typeof body === "function"
        ? { name, payload: body(), headers: inboundSecret() }
        : { name, payload: JSON.stringify({ from: customer, subject: `Re: #${reference}`, ...body }), headers: json },
    );
    const poller = pollHealthz(server.url);

    const answers: Array<{ name: string; status: number; ms: number; stallMs: number }> = [];
    for (const { name, payload, headers } of prepared) {
      const from = Date.now();
      const started = performance.now();
      const res = await apiClient(server.url)("POST", "/api/support-requests/inbound", payload, headers);
      const ms = Math.round(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 150));
      answers.push({
        name,
        status: res.status,
        ms,
        stallMs: Math.round(loopStallBetween(monitored.loopFile, from, Date.now())),
      });
    }
    const latencies = await poller.stop();

    const p99 = percentile(latencies, 99);
    const worst = Math.max(...latencies);
    console.log(
      `inbound stall: baseline p99 ${baselineP99.toFixed(1)} ms, stall ${baselineStall.toFixed(0)} ms; ${latencies.length} /healthz samples, p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${worst.toFixed(1)} ms; ` +
        answers.map((a) => `${a.name}: ${a.status} in ${a.ms} ms, longest event-loop stall ${a.stallMs} ms`).join("; "),
    );
    const worstStall = answers.reduce((a, b) => (b.stallMs > a.stallMs ? b : a));
    console.log(`inbound stall: worst event-loop stall ${worstStall.stallMs} ms, on "${worstStall.name}"`);
    for (const answer of answers) expect(answer.status, answer.name).toBe(201);
    expect(latencies.length).toBeGreaterThan(20);
    // Parsing one of these bodies on the server's event loop takes seconds; the bound (500 ms,
    // or three times what ordinary email gets on a loaded machine) catches that without
    // failing on CI's swings, which once put a healthy run's p99 at 200 ms. The server's own
    // event-loop stalls, measured below, are the finer check.
    expect(p99).toBeLessThan(Math.max(500, 3 * baselineP99));
    // The goal is 50 ms; the bound leaves room for this machine's threefold swings in speed
    // and for the test's own client, which builds 24 MiB posts on the same two cores (a run
    // beside another test file measured 195 ms for the 24 MiB body, whose bytes the server
    // still receives and hands over on its loop). Parsing it there would take seconds.
    // (Or, on a loaded machine, three times the longest stall beside ordinary email.)
    for (const answer of answers) expect(answer.stallMs, answer.name).toBeLessThan(Math.max(300, 3 * baselineStall));

    const stored = await db.ticketMessage.findMany({
      where: { ticket: { reference }, direction: "inbound" },
      select: { body: true, fullBody: true },
    });
    expect(stored.length).toBe(2 * WORST.length + 1);
    for (const message of stored) expect(message.body.length).toBeGreaterThan(0);
    // What could not be kept is said, and what fits is kept.
    const notes = (
      await db.ticketMessage.findMany({
        where: { ticket: { reference }, notKept: { not: null } },
        select: { notKept: true },
      })
    ).map((m) => m.notKept!);
    expect(notes.some((note) => note.includes("over.bin (7 MB)"))).toBe(true);
    expect(notes.some((note) => note.includes("shot-2.png (8 MB)") && note.includes("shot-3.png (8 MB)"))).toBe(true);
    expect(notes.some((note) => /The text part was 24 MB; only its first 1 MB is kept/.test(note))).toBe(true);
    expect(await db.ticketAttachment.count({ where: { message: { ticket: { reference } } } })).toBe(2);
  }, 120_000);

  it("still cuts quoted history from ordinary replies", async () => {
    const res = await apiClient(server.url)(
      "POST",
      "/api/support-requests/inbound",
      {
        from: customer,
        subject: `Re: #${reference}`,
        text: "Thanks, that fixed it.\n\nOn Tue, 4 Mar 2025 at 09:12, Support <support@localhost> wrote:\n> Try turning it off and on.\n",
      },
      inboundSecret(),
    );
    expect(res.status).toBe(201);
    const message = await db.ticketMessage.findUniqueOrThrow({ where: { id: res.body.messageId } });
    expect(message.body).toBe("Thanks, that fixed it.");
    expect(message.fullBody).toContain("Try turning it off and on.");
  });
});
