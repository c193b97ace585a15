// Conditional fields through the API and the submit endpoint (issue 31, item 2): what the
// forms API refuses when a form is saved, and what a submission must (and may not) carry.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { apiClient, loginAsStaff, postForm, type ApiClient } from "../support/http";
import { startServer, type TestServer } from "../support/server";

let server: TestServer;
let api: ApiClient;

beforeAll(async () => {
  server = await startServer({ SUBMIT_RATE_LIMIT_PER_MINUTE: "0" });
  api = apiClient(server.url, await loginAsStaff(server.url));
});
afterAll(async () => {
  await server?.stop();
});

const FIELDS = [
  { key: "email", label: "Email", type: "email", required: true },
  { key: "reason", label: "Reason", type: "select", options: ["sales", "support"], required: true },
  { key: "company", label: "Company", type: "text", required: true, showIf: { field: "reason", equals: "sales" } },
  { key: "order", label: "Order number", type: "text", required: true, showIf: { field: "reason", equals: "support" } },
];

describe("saving a form with conditions", () => {
  it("keeps the conditions and returns them", async () => {
    const created = await api("POST", "/api/forms", { name: "Routed", fields: FIELDS });
    expect(created.status).toBe(201);
    expect(created.body.fields[2].showIf).toEqual({ field: "reason", equals: "sales" });
    const schema = await api("PUT", `/api/forms/${created.body.id}/schema`, {
      fields: [
        ...FIELDS,
        { key: "size", label: "Size", type: "number", showIf: { all: [{ field: "company", notEmpty: true }] } },
      ],
    });
    expect(schema.status).toBe(200);
  });

  it("refuses an unknown key, a later field and a nesting bomb with 422, saving nothing", async () => {
    const before = await db.form.count();
    const unknown = await api("POST", "/api/forms", {
      name: "X",
      fields: [FIELDS[0], { ...FIELDS[2], showIf: { field: "reasons", equals: "sales" } }],
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.details).toEqual([
      { path: "fields.1.showIf", message: 'The condition looks at "reasons", which is not a field of this form.' },
    ]);
    const later = await api("POST", "/api/forms", { name: "X", fields: [FIELDS[2], FIELDS[1]] });
    expect(later.status).toBe(422);
    expect(later.body.error.details[0]).toMatchObject({ path: "fields.0.showIf" });
    let deep = '{"field":"email","notEmpty":true}';
    for (let i = 0; i < 20_000; i++) deep = `{"all":[${deep}]}`;
    const bomb = await api(
      "POST",
      "/api/forms",
      `{"name":"X","fields":[${JSON.stringify(FIELDS[0])},{"key":"b","label":"B","type":"text","showIf":${deep}}]}`,
      { "Content-Type": "application/json" },
    );
    expect(bomb.status).toBe(422);
    expect(bomb.body.error.details[0].message).toContain("at most 4 deep");
    expect(await db.form.count()).toBe(before);
  });
});

describe("submitting to a form with conditions", () => {
  let formId: string;
  beforeAll(async () => {
    formId = (await api("POST", "/api/forms", { name: "Routed", fields: FIELDS })).body.id;
  });

  it("requires a shown field, not a hidden one, and drops what is sent for a hidden one", async () => {
    const missing = await api("POST", "/api/leads/submit", {
      formId,
      data: { email: "a@example.com", reason: "sales" },
    });
    expect(missing.status).toBe(422);
    expect(missing.body.error.details).toEqual([{ path: "data.company", message: "This field is required." }]);

    const taken = await api("POST", "/api/leads/submit", {
      formId,
      data: { email: "a@example.com", reason: "support", order: "A-1", company: "Not asked" },
    });
    expect(taken.status).toBe(201);
    const lead = await db.lead.findUniqueOrThrow({ where: { id: taken.body.id } });
    expect(lead.data).toEqual({ email: "a@example.com", reason: "support", order: "A-1" });
  });

  it("does the same for a plain form post, where every field was on the page", async () => {
    const posted = await postForm(
      `${server.url}/api/leads/submit`,
      { formId, email: "b@example.com", reason: "sales", company: "Acme", order: "" },
      { Accept: "application/json" },
    );
    expect(posted.status).toBe(201);
    const lead = await db.lead.findUniqueOrThrow({ where: { id: JSON.parse(posted.html).id } });
    expect(lead.data).toEqual({ email: "b@example.com", reason: "sales", company: "Acme" });
  });
});
