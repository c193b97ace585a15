// The worst email bodies we know of, sent to the real server while another client
// measures /healthz: cleaning happens in worker threads with a time budget, so other
// requests are not held up, and every such email is still stored (2xx, never a 5xx).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/utils/db.server";
import { apiClient } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import { inboundSecret } from "./support-mail.helpers";

let server: TestServer;
let reference: string;
const customer = "stall@example.com";

beforeAll(async () => {
  server = await startServer({ SUPPORT_RATE_LIMIT_PER_HOUR: "0" });
  const res = await apiClient(server.url)("POST", "/api/support-requests", { email: customer, subject: "Stall", message: "Hi" });
  reference = res.body.reference;
});
afterAll(async () => {
  await server?.stop();
});

const NEAR_LIMIT = 1_000_000; // under the webhook's 1 MiB body limit, with room for the JSON around it

const WORST: Array<{ name: string; body: Record<string, string> }> = [
  { name: "From: and 64 KiB of spaces", body: { text: `From:${" ".repeat(64 * 1024)}x` } },
  { name: "From: and 1 MiB of spaces", body: { text: `From:${" ".repeat(NEAR_LIMIT)}x` } },
  { name: "150,000 nested <div>s", body: { html: `${"<div>".repeat(150_000)}deep` } },
  { name: "nested <div>s closed too", body: { html: `${"<div>".repeat(80_000)}deep${"</div>".repeat(80_000)}` } },
  { name: "one 1 MiB line without the reply marker", body: { text: "x".repeat(NEAR_LIMIT) } },
  { name: "1 MiB of quoted lines", body: { text: "> quoted line of an old message\n".repeat(NEAR_LIMIT / 34) } },
  { name: "1 MiB of attribution-like lines", body: { text: "On Tue, someone wrote:\n".repeat(NEAR_LIMIT / 25) } },
];

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

describe("hostile email bodies", () => {
  it("never hold up other requests: /healthz answers within 200 ms at p99 while they are parsed, and each is stored", async () => {
    const latencies: number[] = [];
    let sending = true;
    const poller = (async () => {
      while (sending) {
        const started = performance.now();
        const res = await fetch(`${server.url}/healthz`);
        await res.arrayBuffer();
        latencies.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();

    const answers: Array<{ name: string; status: number; ms: number }> = [];
    for (const { name, body } of WORST) {
      const started = performance.now();
      const res = await apiClient(server.url)(
        "POST",
        "/api/support-requests/inbound",
        { from: customer, subject: `Re: #${reference}`, ...body },
        inboundSecret(),
      );
      answers.push({ name, status: res.status, ms: Math.round(performance.now() - started) });
    }
    sending = false;
    await poller;

    const p99 = percentile(latencies, 99);
    const worst = Math.max(...latencies);
    console.log(
      `inbound stall: ${latencies.length} /healthz samples, p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${worst.toFixed(1)} ms; ` +
        answers.map((a) => `${a.name}: ${a.status} in ${a.ms} ms`).join("; "),
    );
    for (const answer of answers) expect(answer.status, answer.name).toBe(201);
    expect(latencies.length).toBeGreaterThan(20);
    expect(p99).toBeLessThan(200);

    const stored = await db.ticketMessage.findMany({ where: { ticket: { reference }, direction: "inbound" }, select: { body: true, fullBody: true } });
    expect(stored.length).toBe(WORST.length + 1);
    for (const message of stored) expect(message.body.length).toBeGreaterThan(0);
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
