// A bulk status change over 20,000 leads of a form with an endpoint subscribed to
// lead.updated (SQLite, seeded with the benchmark's seeder): one event per lead changed,
// written in each batch's transaction, costs the change little beside the same change
// without a subscriber, timed before and after it in the same run (decision 041).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedLeads } from "../../bench/seed";
import { apiClient, loginAsStaff, type ApiClient } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import { startReceiver, type Receiver } from "../support/webhook-receiver";

const LEADS = 60_000;
const onSqlite = process.env.TEST_DATABASE === "sqlite";

let server: TestServer;
let api: ApiClient;
let receiver: Receiver;

beforeAll(async () => {
  if (!onSqlite) return;
  seedLeads(process.env.DATABASE_URL!, LEADS);
  [server, receiver] = await Promise.all([
    startServer({ WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE: "true" }),
    startReceiver(),
  ]);
  api = apiClient(server.url, await loginAsStaff(server.url));
}, 300_000);
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

async function timedBulk(formId: string): Promise<{ affected: number; seconds: number }> {
  const started = performance.now();
  const res = await api("POST", "/api/leads/bulk", { filter: { formId }, action: "set_status", value: "won" });
  const seconds = (performance.now() - started) / 1000;
  expect(res.status, res.text).toBe(200);
  return { affected: res.body.affected, seconds };
}

describe.skipIf(!onSqlite)("a bulk status change over 20,000 leads", () => {
  it("writes one lead.updated per lead, in about the time of the same change without one", async () => {
    const { db } = await import("~/storage/db.server");
    // The seeder gives lead i form i % 3: 20,000 leads each.
    const quiet = await timedBulk("benchform0");
    const endpoint = await api("POST", "/api/webhooks", {
      url: `${receiver.url}/scale`,
      events: ["lead.updated"],
      formId: "benchform1",
    });
    expect(endpoint.status, endpoint.text).toBe(201);
    const announced = await timedBulk("benchform1");
    // Once more without a subscriber, the database as warm as for the change announced.
    const quietAgain = await timedBulk("benchform2");
    console.log(
      `bulk set_status over ${announced.affected} leads: ${announced.seconds.toFixed(2)} s with a lead.updated ` +
        `subscriber; without one, ${quiet.seconds.toFixed(2)} s before it and ${quietAgain.seconds.toFixed(2)} s after`,
    );
    expect([quiet.affected, quietAgain.affected]).toEqual([LEADS / 3, LEADS / 3]);
    expect(announced.affected).toBe(LEADS / 3);
    expect(await db.webhookEvent.count({ where: { type: "lead.updated" } })).toBe(LEADS / 3);
    // Relative to the same change without events in the same run: on a shared machine the
    // absolute figure swings by 2x from one minute to the next.
    expect(announced.seconds).toBeLessThan(1.5 * Math.max(quiet.seconds, quietAgain.seconds));
  }, 300_000);
});
