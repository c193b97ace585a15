// Nothing lost, nothing twice: a lead's event is written with the lead, so a server
// killed right after acknowledging it still delivers it after a restart; and two
// instances on one database deliver each event once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { apiClient, loginAsStaff } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import { startReceiver, type Receiver } from "../support/webhook-receiver";

const QUICK = {
  WEBHOOK_ALLOW_HTTP: "true",
  WEBHOOK_ALLOW_PRIVATE: "true",
  WEBHOOK_RETRY_DELAYS: "0.5,0.5,0.5",
  WEBHOOK_TIMEOUT_MS: "1500",
  WEBHOOK_POLL_MS: "200",
  SUBMIT_RATE_LIMIT_PER_MINUTE: "0",
};

let receiver: Receiver;
const servers: TestServer[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await receiver?.close();
});

async function setUp(server: TestServer, path: string) {
  const call = apiClient(server.url, await loginAsStaff(server.url));
  const form = await call("POST", "/api/forms", { name: path, fields: [{ key: "name", label: "Name", type: "text" }] });
  const endpoint = await call("POST", "/api/webhooks", {
    url: `${receiver.url}${path}`,
    events: ["lead.created"],
    formId: form.body.id,
  });
  expect(endpoint.status, endpoint.text).toBe(201);
  return { formId: form.body.id as string, endpointId: endpoint.body.id as string };
}

async function submit(server: TestServer, formId: string, name: string) {
  const res = await apiClient(server.url)("POST", "/api/leads/submit", { formId, data: { name } });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

describe("a server killed right after acknowledging a lead", () => {
  it("delivers the lead's event after a restart", { timeout: 60_000 }, async () => {
    const first = await startServer(QUICK);
    const { formId } = await setUp(first, "/crash");
    // The receiver does not answer yet: whatever the worker had begun is cut by the kill.
    receiver.answer = (request, response) => {
      if (request.path !== "/crash") response.writeHead(204).end();
    };
    const leadId = await submit(first, formId, "Crash Cleo");
    await first.kill();
    // Written with the lead (its body and delivery may still be to come).
    const event = await db.webhookEvent.findFirstOrThrow({ where: { leadId, type: "lead.created" } });

    receiver.answer = (_, response) => response.writeHead(204).end();
    servers.push(await startServer(QUICK));
    await expect
      .poll(() => db.webhookDelivery.findFirst({ where: { eventId: event.id }, select: { status: true } }), {
        timeout: 30_000,
        interval: 200,
      })
      .toEqual({ status: "succeeded" });
    const arrived = receiver.received.filter((request) => request.path === "/crash");
    expect(arrived.length).toBeGreaterThanOrEqual(1);
    expect(new Set(arrived.map((request) => request.headers["webhook-id"]))).toEqual(new Set([event.id]));
    expect(JSON.parse(arrived[arrived.length - 1].body).data.id).toBe(leadId);
  });
});

describe("two instances on one database", () => {
  it("deliver each event once", { timeout: 60_000 }, async () => {
    const [a, b] = await Promise.all([startServer(QUICK), startServer(QUICK)]);
    servers.push(a, b);
    const { formId, endpointId } = await setUp(a, "/pair");
    const leads = 30;
    await Promise.all(Array.from({ length: leads }, (_, i) => submit(i % 2 ? a : b, formId, `Lead ${i}`)));
    const arrived = () => receiver.received.filter((request) => request.path === "/pair");
    await expect.poll(() => arrived().length, { timeout: 20_000, interval: 100 }).toBeGreaterThanOrEqual(leads);
    // Time for a second delivery of any of them to arrive, if one were made.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(arrived()).toHaveLength(leads);
    expect(new Set(arrived().map((request) => request.headers["webhook-id"])).size).toBe(leads);
    // Each event was fanned out once, by one of the two.
    expect(await db.webhookDelivery.count({ where: { endpointId } })).toBe(leads);
  });
});
