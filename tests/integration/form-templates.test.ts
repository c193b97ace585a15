// Forms made from templates (issue 31, item 6): through the API and through the dashboard's
// "New form" without JavaScript. A templated form is an ordinary form: its fields pass the
// schema and take a lead.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEMPLATE_IDS, formTemplate } from "~/forms/form-templates";
import { FieldsSchema } from "~/forms/schema/form-schema";
import { db } from "~/storage/db.server";
import { apiClient, loginAsStaff, postForm, type ApiClient } from "../support/http";
import { startServer, type TestServer } from "../support/server";

let server: TestServer;
let api: ApiClient;
let cookie: string;

beforeAll(async () => {
  server = await startServer();
  cookie = await loginAsStaff(server.url);
  api = apiClient(server.url, cookie);
});
afterAll(async () => {
  await server?.stop();
});

/** A lead every required field of the template accepts. */
function answersFor(id: (typeof TEMPLATE_IDS)[number]): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const field of formTemplate(id).fields) {
    if (!field.required) continue;
    if (field.type === "email") data[field.key] = "visitor@example.com";
    else if (field.type === "select") data[field.key] = field.options![0];
    else data[field.key] = `An answer for ${field.label}`;
  }
  return data;
}

describe("POST /api/forms with a template", () => {
  it.each(TEMPLATE_IDS)(
    "%s: the template's fields, description and thank-you message, and a lead it takes",
    async (id) => {
      const template = formTemplate(id);
      const created = await api("POST", "/api/forms", { name: `From ${id}`, template: id });
      expect(created.status).toBe(201);
      expect(created.body.name).toBe(`From ${id}`);
      expect(created.body.description).toBe(template.description);
      expect(created.body.settings.successMessage).toBe(template.successMessage);
      expect(created.body.fields).toEqual(FieldsSchema.parse(template.fields));
      expect(created.body.fields.map((field: { key: string }) => field.key)).toContain("email");

      const lead = await api("POST", "/api/leads/submit", { formId: created.body.id, data: answersFor(id) });
      expect(lead.status).toBe(201);
      const missing = await api("POST", "/api/leads/submit", { formId: created.body.id, data: {} });
      expect(missing.status).toBe(422);
    },
  );

  it("keeps a description and settings the request gives", async () => {
    const created = await api("POST", "/api/forms", {
      name: "Spring event",
      description: "Our spring meetup",
      template: "event-registration",
      settings: { successMessage: "See you in April.", allowedOrigins: ["https://example.com"] },
    });
    expect(created.status).toBe(201);
    expect(created.body.description).toBe("Our spring meetup");
    expect(created.body.settings.successMessage).toBe("See you in April.");
    expect(created.body.settings.allowedOrigins).toEqual(["https://example.com"]);
    expect(created.body.fields.map((field: { key: string }) => field.key)).toEqual(
      formTemplate("event-registration").fields.map((field) => field.key),
    );
  });

  it("refuses an unknown template, and a template with fields, creating nothing", async () => {
    const before = await db.form.count();
    const unknown = await api("POST", "/api/forms", { name: "X", template: "survey" });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.code).toBe("validation_failed");
    expect(unknown.body.error.details).toEqual([
      expect.objectContaining({ path: "template", message: expect.stringContaining("contact") }),
    ]);
    const both = await api("POST", "/api/forms", {
      name: "X",
      template: "contact",
      fields: [{ key: "email", label: "Email", type: "email" }],
    });
    expect(both.status).toBe(422);
    expect(both.body.error.details).toEqual([
      { path: "template", message: "Send either a template or fields, not both." },
    ]);
    const notText = await api("POST", "/api/forms", { name: "X", template: 3 });
    expect(notText.status).toBe(422);
    expect(await db.form.count()).toBe(before);
  });
});

describe("the dashboard's New form", () => {
  const post = (fields: Record<string, string>) => postForm(`${server.url}/forms`, fields, { Cookie: cookie });

  it("lists every template with its fields, readable without JavaScript", async () => {
    const html = await (await fetch(`${server.url}/forms`, { headers: { Cookie: cookie } })).text();
    expect(html).toContain("Start from");
    for (const id of TEMPLATE_IDS) {
      const template = formTemplate(id);
      expect(html).toContain(`value="${id}"`);
      expect(html).toContain(template.title);
    }
  });

  it("creates a form from the chosen template and opens its fields", async () => {
    const res = await post({ intent: "create", name: "Quotes", template: "quote" });
    expect(res.status).toBe(302);
    const id = res.location!.split("/")[2];
    expect(res.location).toBe(`/forms/${id}/fields`);
    const stored = await db.form.findUnique({ where: { id }, select: { fields: true, description: true } });
    const fields = typeof stored!.fields === "string" ? JSON.parse(stored!.fields) : stored!.fields;
    expect(fields.map((field: { key: string }) => field.key)).toEqual(formTemplate("quote").fields.map((f) => f.key));
    expect(stored!.description).toBe(formTemplate("quote").description);
  });

  it("creates a blank form when no template is chosen", async () => {
    const res = await post({ intent: "create", name: "Blank one", template: "" });
    expect(res.status).toBe(302);
    const id = res.location!.split("/")[2];
    const stored = await db.form.findUnique({ where: { id }, select: { schemaVersion: true, description: true } });
    expect(stored!.description).toBe("");
    const detail = await api("GET", `/api/forms/${id}`);
    expect(detail.body.fields).toEqual([]);
  });

  it("answers an unknown template with the page, the error beside the choice and the name kept", async () => {
    const before = await db.form.count();
    const res = await post({ intent: "create", name: "Kept name", template: "survey" });
    expect(res.status).toBe(422);
    expect(res.html).toContain("Choose one of the listed templates.");
    expect(res.html).toContain('value="Kept name"');
    expect(await db.form.count()).toBe(before);
  });
});
