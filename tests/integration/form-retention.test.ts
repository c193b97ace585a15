// Retention per form (issue 32, item 5; decision 069): settings.retentionDays, set through the
// forms API and the builder's Settings section, makes the retention pass delete that form's
// leads older than it, in keyset batches, with their webhook events, tags and notes, and one
// audit entry per form and pass. Leads are seeded with old timestamps straight into the
// database, and the pass runs in this process against the server's database.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runRetention, type RetentionPeriods } from "~/retention/retention.server";
import { db } from "~/storage/db.server";
import { createFormThroughApi } from "../support/forms";
import { apiClient, loginAsStaff, postForm, type ApiClient } from "../support/http";
import { createLeads } from "../support/leads";
import { startServer, type TestServer } from "../support/server";

const DAY_MS = 24 * 60 * 60_000;
const NOW = Date.now();
const daysAgo = (days: number) => new Date(NOW - days * DAY_MS);
const OFF: RetentionPeriods = {
  webhookDays: null,
  emailDays: null,
  auditDays: null,
  attachmentDays: null,
  partialLeadDays: null,
  unconfirmedLeadDays: null,
};

let server: TestServer;
let call: ApiClient;
let cookie: string;

beforeAll(async () => {
  server = await startServer();
  cookie = await loginAsStaff(server.url);
  call = apiClient(server.url, cookie);
});
afterAll(async () => {
  await server?.stop();
});

let forms = 0;
async function newForm(retentionDays?: number) {
  forms++;
  const form = await createFormThroughApi(call, {
    name: `Retained ${forms}`,
    fields: [{ key: "email", label: "Email", type: "email", required: true }],
    settings: retentionDays ? { retentionDays } : {},
  });
  return form.id as string;
}

/** Leads of `formId`, each `age` days old, marked by `label` in their address. */
async function seed(formId: string, label: string, ages: number[], isSpam = false) {
  await createLeads(
    formId,
    ages.map((age, i) => ({ data: { email: `${label}-${i}@example.com` }, createdAt: daysAgo(age), isSpam })),
  );
  return db.lead.findMany({ where: { formId, email: { startsWith: `${label}-` } }, select: { id: true } });
}

describe("settings.retentionDays", () => {
  it("takes a whole number of days of at least 1 or null, and refuses anything else with 422 naming it", async () => {
    const formId = await newForm();
    for (const bad of [0, -3, 1.5, "30", true, 36_501, {}]) {
      const refused = await call("PATCH", `/api/forms/${formId}`, { settings: { retentionDays: bad } });
      expect(refused.status, JSON.stringify(bad)).toBe(422);
      expect(refused.body.error.details.map((detail: { path: string }) => detail.path)).toContain(
        "settings.retentionDays",
      );
    }
    const set = await call("PATCH", `/api/forms/${formId}`, { settings: { retentionDays: 90 } });
    expect(set.status, set.text).toBe(200);
    expect(set.body.settings.retentionDays).toBe(90);
    const cleared = await call("PATCH", `/api/forms/${formId}`, { settings: { retentionDays: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.settings.retentionDays).toBeUndefined();
  });

  it("is set in the builder's Settings section, which says what it does", async () => {
    const formId = await newForm();
    const url = `${server.url}/forms/${formId}/settings`;
    const headers = { Cookie: cookie, Origin: server.url };
    const refused = await postForm(url, { intent: "update-retention", retentionDays: "ten" }, headers);
    expect(refused.status).toBe(422);
    expect(refused.html).toContain("Give a whole number of days from 1 to 36500");
    expect((await postForm(url, { intent: "update-retention", retentionDays: "90" }, headers)).status).toBe(200);
    const page = await (await fetch(url, { headers: { Cookie: cookie } })).text();
    expect(page).toContain("Leads older than 90 days are deleted.");
    expect((await db.form.findUniqueOrThrow({ where: { id: formId } })).settings).toMatchObject({ retentionDays: 90 });
    await postForm(url, { intent: "update-retention", retentionDays: "" }, headers);
    expect(await (await fetch(url, { headers: { Cookie: cookie } })).text()).toContain(
      "Leads are kept until you delete them.",
    );
  });
});

describe("the retention pass with a form's retentionDays", () => {
  it("deletes that form's older leads with their webhook events, keeps the rest, and audits once per form", async () => {
    const retained = await newForm(30);
    const other = await newForm();
    const longer = await newForm(60);
    const old = await seed(retained, "old", [31, 40, 45, 400]);
    const oldSpam = await seed(retained, "spam", [50], true);
    const recent = await seed(retained, "recent", [1, 29]);
    const untouched = await seed(other, "other", [400, 500]);
    const younger = await seed(longer, "younger", [40]);

    // The first old lead has a tag, a note, and a lead.created event with a delivery still pending.
    const endpoint = await db.webhookEndpoint.create({
      data: { url: "https://hooks.example.com/in", events: ["lead.created"], secret: "whsec_test", formId: retained },
    });
    await db.leadTag.create({ data: { leadId: old[0].id, tag: "vip" } });
    await db.leadActivity.create({ data: { leadId: old[0].id, kind: "note", body: "call back" } });
    await db.webhookEvent.create({
      data: {
        id: "msg_retained_lead",
        type: "lead.created",
        payload: JSON.stringify({ data: { id: old[0].id } }),
        leadId: old[0].id,
        deliveries: { create: { endpointId: endpoint.id, status: "pending" } },
      },
    });
    const recentEvent = await db.webhookEvent.create({
      data: { id: "msg_recent_lead", type: "lead.created", payload: "{}", leadId: recent[0].id },
    });

    const counts = await runRetention({ now: NOW, periods: OFF, batchSize: 2, pauseMs: 1 });
    expect(counts.formLeads).toBe(5);

    const left = async (rows: Array<{ id: string }>) =>
      db.lead.count({ where: { id: { in: rows.map((row) => row.id) } } });
    expect(await left([...old, ...oldSpam])).toBe(0);
    expect(await left(recent)).toBe(2);
    expect(await left(untouched)).toBe(2);
    expect(await left(younger)).toBe(1);
    expect(await db.webhookEvent.count({ where: { id: "msg_retained_lead" } })).toBe(0);
    expect(await db.webhookDelivery.count({ where: { endpointId: endpoint.id } })).toBe(0);
    expect(await db.leadTag.count({ where: { leadId: old[0].id } })).toBe(0);
    expect(await db.leadActivity.count({ where: { leadId: old[0].id } })).toBe(0);
    expect(await db.webhookEvent.count({ where: { id: recentEvent.id } })).toBe(1);
    // The sources' daily rollup lost the 4 old leads that were not spam.
    const daily = await db.leadDaily.aggregate({ where: { formId: retained }, _sum: { leads: true } });
    expect(daily._sum.leads).toBe(2);

    const entries = await db.auditEntry.findMany({ where: { action: "retention.form_leads" } });
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ target: `form:${retained}`, actorId: null, ipHash: null });
    expect(JSON.parse(entries[0].details)).toEqual({ count: 5, days: 30 });
    const listed = await call("GET", "/api/audit?action=retention.form_leads");
    expect(listed.body.entries[0].summary).toBe(
      `Retention deleted 5 leads of the form Retained ${forms - 2} older than 30 days.`,
    );

    // A second pass finds nothing, and writes no entry.
    expect((await runRetention({ now: NOW, periods: OFF, batchSize: 2, pauseMs: 1 })).formLeads).toBe(0);
    expect(await db.auditEntry.count({ where: { action: "retention.form_leads" } })).toBe(1);
  });
});
