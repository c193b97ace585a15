// Every JSON body of the API takes only the keys it documents: an unknown one (a typo, a
// field of another endpoint) is refused with 422 naming it, and nothing is changed. A bulk
// action names its leads: an unknown filter key, or a filter that narrows nothing, never
// means "every lead"; that takes an explicit `"all": true` (decision 036).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { apiClient, loginAsStaff, STAFF, type ApiClient } from "../support/http";
import { createForm, createLeads, field } from "../support/leads";
import { startServer, type TestServer } from "../support/server";
import { bearer } from "../support/support-desk";

let server: TestServer;
let api: ApiClient;
let formId: string;

beforeAll(async () => {
  server = await startServer({
    WEBHOOK_ALLOW_HTTP: "true",
    WEBHOOK_ALLOW_PRIVATE: "true",
    SUBMIT_RATE_LIMIT_PER_MINUTE: "0",
    SUPPORT_RATE_LIMIT_PER_HOUR: "0",
    SUPPORT_ACKS_PER_RECIPIENT_PER_DAY: "0",
  });
  api = apiClient(server.url, await loginAsStaff(server.url));
  formId = (await createForm("Strict", [[field("name", "Name"), field("email", "Email", "email")]])).id;
});
afterAll(async () => {
  await server?.stop();
});

type Res = Awaited<ReturnType<ApiClient>>;

function expectUnknownKey(res: Res, path: string) {
  expect(res.status, res.text).toBe(422);
  expect(res.body.error.code).toBe("validation_failed");
  expect(res.body.error.details).toContainEqual({ path, message: expect.any(String) });
}

describe("an unknown key in a JSON body", () => {
  it("is refused with 422 naming it on every route that takes a body, and the same body without it is accepted", async () => {
    const ticket = (
      await apiClient(server.url)("POST", "/api/support-requests", {
        email: "c@example.com",
        subject: "Help",
        message: "Hello",
      })
    ).body.reference as string;
    const lead = (await apiClient(server.url)("POST", "/api/leads/submit", { formId, data: { name: "Ada" } })).body
      .id as string;
    const form = (await api("POST", "/api/forms", { name: "Edited", fields: [] })).body.id as string;
    const hook = (await api("POST", "/api/webhooks", { url: "http://127.0.0.1:9/hook", events: ["lead.created"] })).body
      .id as string;
    const reply = (await api("POST", "/api/saved-replies", { name: "Hi", body: "Hello" })).body.id as string;
    const staff = (await api("POST", "/api/staff", { email: "invited@example.com", role: "agent" })).body.id as string;

    const cases: Array<
      [method: string, path: string, body: Record<string, unknown>, headers?: Record<string, string>]
    > = [
      ["POST", "/api/forms", { name: "New", fields: [] }],
      ["PATCH", `/api/forms/${form}`, { name: "Renamed" }],
      ["PUT", `/api/forms/${form}/schema`, { fields: [] }],
      ["PATCH", `/api/leads/${lead}`, { status: "contacted" }],
      ["POST", `/api/leads/${lead}/notes`, { body: "Called." }],
      ["POST", "/api/leads/bulk", { ids: [lead], action: "tag", value: "vip" }],
      ["POST", "/api/staff", { email: "second@example.com", role: "agent" }],
      ["PATCH", `/api/staff/${staff}`, { role: "admin" }],
      ["POST", "/api/tokens", { name: "CI", scopes: ["leads:read"] }],
      ["POST", "/api/webhooks", { url: "http://127.0.0.1:9/other", events: ["lead.created"] }],
      ["PATCH", `/api/webhooks/${hook}`, { description: "Renamed" }],
      ["POST", "/api/saved-replies", { name: "Bye", body: "Goodbye" }],
      ["PATCH", `/api/saved-replies/${reply}`, { name: "Hello" }],
      ["POST", "/api/support-requests", { email: "d@example.com", subject: "Again", message: "Hi" }],
      ["POST", `/api/support-requests/${ticket}/replies`, { message: "On it." }, bearer()],
      ["POST", `/api/support-requests/${ticket}/notes`, { body: "Internal." }, bearer()],
      ["PATCH", `/api/support-requests/${ticket}`, { status: "pending" }, bearer()],
      ["POST", "/api/leads/submit", { formId, data: { name: "Bo" } }],
    ];
    for (const [method, path, body, headers] of cases) {
      const refused = await api(method, path, { ...body, colour: "red" }, headers);
      expectUnknownKey(refused, "colour");
      const accepted = await api(method, path, body, headers);
      expect(accepted.status, `${method} ${path}: ${accepted.text}`).toBeLessThan(300);
    }
    const login = await apiClient(server.url)("POST", "/api/auth/login", {
      email: "staff@example.com",
      password: "correct horse battery staple",
      remember: true,
    });
    expectUnknownKey(login, "remember");
    expect(login.headers.get("set-cookie")).toBeNull();
  });

  it("is named with its path when it sits inside an object: form settings, field definitions, UTM values", async () => {
    const form = (await api("POST", "/api/forms", { name: "Nested", fields: [] })).body.id as string;
    expectUnknownKey(
      await api("PATCH", `/api/forms/${form}`, { settings: { notifications: { mode: "instant", cc: "x" } } }),
      "settings.notifications.cc",
    );
    expectUnknownKey(
      await api("POST", "/api/forms", { name: "F", fields: [{ key: "a", label: "A", type: "text", colour: "red" }] }),
      "fields.0.colour",
    );
    const submit = await apiClient(server.url)("POST", "/api/leads/submit", {
      formId,
      data: { name: "Cy" },
      utm: { utm_source: "x", utm_sorce: "typo" },
    });
    expect(submit.status).toBe(422);
    expect(submit.body.error.details.map((detail: { path: string }) => detail.path)).toContain("utm.utm_sorce");
  });

  it("takes `password` beside a new token's fields (sudo mode's re-authentication reads it)", async () => {
    const withPassword = { name: "With password", scopes: ["leads:read"], password: STAFF.password };
    const res = await api("POST", "/api/tokens", withPassword);
    expect(res.status, res.text).toBe(201);
    // Read, not only let through: a wrong one is refused by name.
    const wrong = await api("POST", "/api/tokens", { ...withPassword, password: "not the password" });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.details[0].path).toBe("password");
  });

  it("is dropped, not refused, from a site's plain HTML form posts, which carry the site's own inputs", async () => {
    const posted = await apiClient(server.url)(
      "POST",
      "/api/support-requests",
      new URLSearchParams({ email: "e@example.com", subject: "Form", message: "Hi", submit: "Send" }),
      { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
    );
    expect(posted.status, posted.text).toBe(201);
  });
});

describe("which leads a bulk action means", () => {
  let form: string;
  let other: string;
  const newCount = (id: string) => db.lead.count({ where: { formId: id, status: "new", isSpam: false } });

  beforeAll(async () => {
    form = (await createForm("Bulk A", [[field("name", "Name")]])).id;
    other = (await createForm("Bulk B", [[field("name", "Name")]])).id;
    const leads = (n: number) => Array.from({ length: n }, (_, i) => ({ data: { name: `L${i}` } }));
    await createLeads(form, leads(5));
    await createLeads(other, leads(3));
    await createLeads(form, [{ data: { name: "Spam" }, isSpam: true }]);
  });

  it("refuses an unknown filter key with 422 naming it, changing no lead (set_status and delete alike)", async () => {
    const before = await db.lead.count();
    for (const action of [{ action: "set_status", value: "lost" }, { action: "delete" }]) {
      expectUnknownKey(
        await api("POST", "/api/leads/bulk", { ...action, filter: { formid: "nope" } }),
        "filter.formid",
      );
      expectUnknownKey(
        await api("POST", "/api/leads/bulk", { ...action, filter: { formId: form, utm_campaing: "x" } }),
        "filter.utm_campaing",
      );
    }
    expect(await db.lead.count()).toBe(before);
    expect(await newCount(form)).toBe(5);
  });

  it("refuses a filter that narrows nothing (empty, empty values, spam alone) unless `all` is true", async () => {
    for (const filter of [{}, { formId: "" }, { spam: "false" }, { spam: "all" }]) {
      const res = await api("POST", "/api/leads/bulk", { action: "set_status", value: "lost", filter });
      expect(res.status, JSON.stringify(filter)).toBe(422);
      expect(res.body.error.details).toEqual([{ path: "filter", message: expect.stringContaining('"all": true') }]);
    }
    const none = await api("POST", "/api/leads/bulk", { action: "delete" });
    expect(none.status).toBe(422);
    expect(none.body.error.details[0]).toMatchObject({ path: "(body)" });
    expect(await newCount(form)).toBe(5);
  });

  it("refuses ids beside a filter or `all`, and an `all` that is not a boolean", async () => {
    for (const body of [
      { ids: ["x"], filter: { formId: form }, action: "delete" },
      { ids: ["x"], all: true, action: "delete" },
    ]) {
      const res = await api("POST", "/api/leads/bulk", body);
      expect(res.status).toBe(422);
      expect(res.body.error.details[0].path).toBe("ids");
    }
    const res = await api("POST", "/api/leads/bulk", { all: "yes", action: "delete" });
    expect(res.status).toBe(422);
    expect(res.body.error.details[0].path).toBe("all");
    expect(await db.lead.count({ where: { formId: { in: [form, other] } } })).toBe(9);
  });

  it("acts on every lead the unfiltered list shows with `all: true` (spam left alone unless the filter says spam)", async () => {
    const res = await api("POST", "/api/leads/bulk", { action: "tag", value: "everyone", all: true });
    expect(res.status, res.text).toBe(200);
    const tagged = await db.leadTag.count({ where: { tag: "everyone", lead: { formId: { in: [form, other] } } } });
    expect(tagged).toBe(8);
    expect(await db.leadTag.count({ where: { tag: "everyone", lead: { isSpam: true } } })).toBe(0);
    const spam = await api("POST", "/api/leads/bulk", { action: "delete", filter: { spam: "true" } });
    expect(spam.body).toEqual({ affected: 1 });
  });

  it("still takes a filter that narrows, as before", async () => {
    const res = await api("POST", "/api/leads/bulk", { action: "set_status", value: "won", filter: { formId: other } });
    expect(res.body).toEqual({ affected: 3 });
    expect(await newCount(form)).toBe(5);
  });
});
