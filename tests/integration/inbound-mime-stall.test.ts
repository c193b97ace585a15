// A whole email (message/rfc822) with a 20 MiB base64 attachment (a previous attempt held
// the server's event loop ~1 s with one: body collection, string conversion or a header
// scan on the main thread). Here the body is received into one shared buffer with its size
// cap and handed to a worker thread, which alone parses it (mailparser) and decodes the
// base64: the server's event loop (tests/support/loop-monitor.ts) is held hardly longer
// than by a one-line email, within the bounds of inbound-stall.test.ts and
// inbound-attachment-stall.test.ts, and /healthz keeps answering.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import {
  loopStallBetween,
  percentile,
  pollHealthz,
  startMonitoredServer,
  type MonitoredServer,
} from "../support/loop-stall";
import { buildEmail, postRaw } from "../support/raw-email";
import type { TestServer } from "../support/server";

let monitored: MonitoredServer;
let server: TestServer;
let reference: string;
const customer = "mime-stall@example.com";

beforeAll(async () => {
  monitored = await startMonitoredServer("loop-mime", customer, "Raw MIME");
  ({ server, reference } = monitored);
});
afterAll(() => monitored?.stop());

const MiB = 1024 * 1024;
/** 15 MiB of bytes: 20 MiB of base64 (over the 10 MB kept per email, so listed as not kept). */
const HUGE = 15 * MiB;
/** Kept: written in chunks as the providers' attachments are. */
const KEPT = 9.5 * MiB;

type Kind = "small" | "huge" | "kept";

/** Every email built before the clock starts: base64 of 15 MiB takes this machine's CPU too. */
function email(kind: Kind, i: number): Buffer {
  const base = { from: customer, subject: `Re: #${reference}`, text: `Reply ${i}.` };
  if (kind === "small") return buildEmail(base);
  const size = kind === "huge" ? HUGE : KEPT;
  return buildEmail({
    ...base,
    attachments: [
      { filename: `${kind}-${i}.bin`, contentType: "application/octet-stream", data: Buffer.alloc(size, i) },
    ],
  });
}

describe("a raw MIME email with a 20 MiB base64 attachment", () => {
  it("holds the event loop hardly longer than a one-line email, and /healthz keeps answering", async () => {
    expect((await postRaw(server.url, email("small", 0))).status).toBe(201); // warm
    const kinds: Kind[] = Array.from({ length: 12 }, (_, i) => (["small", "huge", "kept"] as const)[i % 3]);
    const payloads = kinds.map((kind, i) => ({ kind, bytes: email(kind, i + 1) }));
    expect(payloads.find((p) => p.kind === "huge")!.bytes.length).toBeGreaterThan(20 * MiB);

    const poller = pollHealthz(server.url);
    let latencies: number[] = [];
    const stalls: Record<Kind, number[]> = { small: [], huge: [], kept: [] };
    try {
      for (const { kind, bytes } of payloads) {
        const from = Date.now();
        const res = await postRaw(server.url, bytes);
        expect(res.status, `${kind}: ${JSON.stringify(res.body)}`).toBe(201);
        await new Promise((resolve) => setTimeout(resolve, 150));
        stalls[kind].push(Math.round(loopStallBetween(monitored.loopFile, from, Date.now())));
      }
    } finally {
      latencies = await poller.stop();
    }
    const median = (kind: Kind) => percentile(stalls[kind], 50);
    const p99 = percentile(latencies, 99);
    console.log(
      `raw MIME stall: event loop held ${JSON.stringify(stalls)} ms (median 20 MiB base64 ${median("huge")}, ` +
        `9.5 MiB kept ${median("kept")}, one-line ${median("small")}); /healthz ${latencies.length} samples, ` +
        `p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms`,
    );
    expect(latencies.length).toBeGreaterThan(20);
    // inbound-attachment-stall.test.ts's bound: against one-line emails in the same run
    // (this machine's two shared cores hold the server off the CPU 50-200 ms at any moment).
    expect(median("huge")).toBeLessThan(median("small") + 150);
    expect(median("kept")).toBeLessThan(median("small") + 150);
    // inbound-stall.test.ts's bounds: no one email holds the loop 300 ms (or three times
    // what a one-line email did on a loaded machine), and /healthz's p99 stays under 500 ms.
    const baseline = Math.max(...stalls.small);
    for (const kind of ["huge", "kept"] as const) {
      for (const stall of stalls[kind]) expect(stall, kind).toBeLessThan(Math.max(300, 3 * baseline));
    }
    expect(p99).toBeLessThan(500);

    // The 9.5 MiB files kept whole; the 20 MiB ones said not kept.
    const kept = await db.ticketAttachment.findMany({
      where: { message: { ticket: { reference } } },
      select: { size: true },
    });
    expect(kept.map((file) => file.size)).toEqual(Array(4).fill(KEPT));
    const notKept = await db.ticketMessage.findMany({
      where: { ticket: { reference }, notKept: { contains: "huge-" } },
      select: { notKept: true },
    });
    expect(notKept).toHaveLength(4);
    expect(notKept[0].notKept).toMatch(/huge-\d+\.bin \(15 MB\)/);
  }, 180_000);
});
