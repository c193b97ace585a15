// Bulk actions of any size on both databases: 100,000 leads chosen by a filter and 40,000
// named by id (more values than SQLite binds in one statement, 32,766, and far more than
// Prisma binds on SQLite, 999) are marked and deleted in one request each, every change on
// its lead's timeline, other forms untouched. A request refused for a bad value changes
// nothing, however many leads it names. Each figure is printed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { apiClient, loginAsStaff, type ApiClient } from "../support/http";
import { createForm, createLeads, field } from "../support/leads";
import { insertLeads } from "../support/seed-leads";
import { startServer, type TestServer } from "../support/server";

const BY_FILTER = 100_000;
const BY_IDS = 40_000;

let server: TestServer;
let api: ApiClient;
let filtered: string;
let named: string;
let bystander: string;

beforeAll(async () => {
  const fields = [[field("name", "Name"), field("email", "Email", "email")]];
  [filtered, named, bystander] = await Promise.all(
    ["By filter", "By ids", "Bystander"].map(async (name) => (await createForm(name, fields)).id),
  );
  const started = performance.now();
  await insertLeads(process.env.DATABASE_URL!, { formId: filtered, count: BY_FILTER, prefix: "flt" });
  await insertLeads(process.env.DATABASE_URL!, { formId: named, count: BY_IDS, prefix: "ids" });
  await createLeads(bystander, [{ data: { name: "Stays" } }, { data: { name: "Stays too" } }]);
  console.log(`seeded ${BY_FILTER + BY_IDS} leads in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  // The webhook worker waits: the lead.created events seeded below must still be unbuilt
  // when their leads are deleted.
  server = await startServer({ WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_POLL_MS: "600000" });
  api = apiClient(server.url, await loginAsStaff(server.url));
}, 300_000);
afterAll(async () => {
  await server?.stop();
});

async function timed(label: string, body: Record<string, unknown>) {
  const started = performance.now();
  const res = await api("POST", "/api/leads/bulk", body);
  const seconds = (performance.now() - started) / 1000;
  expect(res.status, res.text).toBe(200);
  console.log(`${process.env.TEST_DATABASE}: ${label} of ${res.body.affected} leads: ${seconds.toFixed(2)} s`);
  return res.body.affected as number;
}

const idsOf = async (formId: string) =>
  (await db.lead.findMany({ where: { formId }, select: { id: true } })).map((row) => row.id);

describe(`bulk actions over ${BY_FILTER.toLocaleString("en")} leads`, () => {
  it("refuses a bad value before the first batch: not one of the leads is changed", async () => {
    const res = await api("POST", "/api/leads/bulk", {
      filter: { formId: filtered },
      action: "assign",
      value: "nobody",
    });
    expect(res.status).toBe(422);
    expect(await db.lead.count({ where: { ownerId: { not: null } } })).toBe(0);
  });

  it("sets the status of every lead of a filter, and of leads named by id, each on its timeline", async () => {
    expect(
      await timed("set_status by filter", { filter: { formId: filtered }, action: "set_status", value: "lost" }),
    ).toBe(BY_FILTER);
    const ids = await idsOf(named);
    expect(ids).toHaveLength(BY_IDS);
    expect(await timed("set_status by ids", { ids, action: "set_status", value: "won" })).toBe(BY_IDS);
    expect(await db.lead.count({ where: { formId: filtered, status: "lost" } })).toBe(BY_FILTER);
    expect(await db.lead.count({ where: { formId: named, status: "won" } })).toBe(BY_IDS);
    expect(await db.leadActivity.count({ where: { kind: "status" } })).toBe(BY_FILTER + BY_IDS);
    expect(await db.lead.count({ where: { formId: bystander, status: "new" } })).toBe(2);
  }, 300_000);

  it("deletes every lead of a filter, and leads named by id, with their timelines; other forms keep theirs", async () => {
    expect(await timed("delete by ids", { ids: await idsOf(named), action: "delete" })).toBe(BY_IDS);
    expect(await timed("delete by filter", { filter: { formId: filtered }, action: "delete" })).toBe(BY_FILTER);
    expect(await db.lead.count({ where: { formId: { in: [filtered, named] } } })).toBe(0);
    expect(await db.leadActivity.count()).toBe(0);
    expect(await db.lead.count({ where: { formId: bystander } })).toBe(2);
  }, 300_000);

  it("deletes 1,100 leads whose lead.created still waits for its fan-out, announcing each deletion", async () => {
    const hooked = (await createForm("Hooked", [[field("name", "Name")]])).id;
    const hook = await api("POST", "/api/webhooks", {
      url: "http://127.0.0.1:9/hook",
      events: ["lead.created", "lead.deleted"],
    });
    expect(hook.status, hook.text).toBe(201);
    await insertLeads(process.env.DATABASE_URL!, { formId: hooked, count: 1100, prefix: "hok" });
    const leads = await db.lead.findMany({ where: { formId: hooked }, select: { id: true, createdAt: true } });
    await db.webhookEvent.createMany({
      data: leads.map((lead) => ({
        id: `msg_${lead.id}`,
        type: "lead.created",
        createdAt: lead.createdAt,
        fanOutTo: hook.body.id,
        fanOutAt: lead.createdAt,
        leadId: lead.id,
      })),
    });
    expect(await timed("delete with unbuilt events", { filter: { formId: hooked }, action: "delete" })).toBe(1100);
    // Each lead.created was built from its lead before the lead went, and each deletion announced.
    expect(await db.webhookEvent.count({ where: { type: "lead.created", payload: null } })).toBe(0);
    expect(await db.webhookEvent.count({ where: { type: "lead.deleted" } })).toBe(1100);
  }, 120_000);
});
