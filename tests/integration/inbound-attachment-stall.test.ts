// An inbound email with a 9.5 MB attachment (issue 28 measured /healthz stalled 514 ms by one):
// read and decoded in a worker thread, its bytes written in 256 KiB chunks with a turn of the
// event loop between, so it holds the server's event loop (tests/support/loop-monitor.ts)
// hardly longer than a one-line email does, as JSON (base64) or as a multipart post.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
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
const customer = "attach@example.com";

beforeAll(async () => {
  monitored = await startMonitoredServer("loop-attach", customer, "Attachments");
  ({ server, reference } = monitored);
});
afterAll(() => monitored?.stop());

const SIZE = 9.5 * 1024 * 1024;

/** A post's bytes and type, built before the clock starts: building 13 MB takes this machine's CPU too. */
async function email(kind: "small" | "json" | "multipart", i: number): Promise<{ body: ArrayBuffer; type: string }> {
  const subject = `Re: #${reference}`;
  const json = (value: unknown) => ({
    body: new TextEncoder().encode(JSON.stringify(value)).buffer,
    type: "application/json",
  });
  if (kind === "small") return json({ from: customer, subject, text: `A one-line reply ${i}.` });
  const bytes = Buffer.alloc(SIZE, i);
  if (kind === "json") {
    const content = bytes.toString("base64");
    return json({
      from: customer,
      subject,
      text: `See attached ${i}.`,
      attachments: [{ filename: "big.bin", content }],
    });
  }
  const form = new FormData();
  form.set("from", customer);
  form.set("subject", subject);
  form.set("text", `See attached ${i}.`);
  form.set("attachment1", new Blob([bytes], { type: "application/octet-stream" }), "big.bin");
  const encoded = new Response(form);
  return { body: await encoded.arrayBuffer(), type: encoded.headers.get("content-type")! };
}

function post({ body, type }: { body: ArrayBuffer; type: string }) {
  return fetch(`${server.url}/api/support-requests/inbound`, {
    method: "POST",
    headers: { "Content-Type": type, ...inboundSecret() },
    body,
  });
}

describe("an inbound email with a 9.5 MB attachment", () => {
  it("holds the event loop hardly longer than a one-line email, as JSON or multipart", async () => {
    await (await post(await email("small", 0))).text(); // warm
    const poller = pollHealthz(server.url);
    let latencies: number[] = [];
    const stalls: Record<string, number[]> = { small: [], json: [], multipart: [] };
    try {
      for (let i = 1; i <= 12; i++) {
        const kind = (["small", "json", "multipart"] as const)[i % 3];
        const payload = await email(kind, i);
        const from = Date.now();
        const res = await post(payload);
        await res.text();
        expect(res.status, kind).toBe(201);
        await new Promise((resolve) => setTimeout(resolve, 150));
        stalls[kind].push(Math.round(loopStallBetween(monitored.loopFile, from, Date.now())));
      }
    } finally {
      latencies = await poller.stop();
    }
    const median = (kind: string) => percentile(stalls[kind], 50);
    console.log(
      `inbound attachment: event loop held ${JSON.stringify(stalls)} ms (median JSON ${median("json")}, ` +
        `multipart ${median("multipart")}, one-line ${median("small")}); /healthz p50 ` +
        `${percentile(latencies, 50).toFixed(1)} ms, p90 ${percentile(latencies, 90).toFixed(1)} ms`,
    );
    // Against one-line emails in the same run: other work on this machine's two shared cores
    // holds the server off the CPU for 50-200 ms at any moment, and the worker reading a
    // 10 MB post takes one of them. Measured: 40-50 ms (JSON) and 90-100 ms (multipart)
    // against 20 ms; on SQLite the rest is mostly the WAL checkpoints the chunk commits set off.
    expect(median("json")).toBeLessThan(median("small") + 150);
    expect(median("multipart")).toBeLessThan(median("small") + 150);
    // Every attachment kept, whole.
    const kept = await db.ticketAttachment.findMany({
      where: { message: { ticket: { reference } } },
      select: { size: true },
    });
    expect(kept.map((file) => file.size)).toEqual(Array(8).fill(SIZE));
  }, 120_000);
});
