import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { createFormThroughApi } from "../support/forms";
import { apiClient, loginAsStaff, type ApiClient } from "../support/http";
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

const CONTACT_FIELDS = [
  { key: "name", label: "Name", type: "text", required: true, maxLength: 80 },
  { key: "email", label: "Email", type: "email", required: true },
  { key: "topic", label: "Topic", type: "select", options: ["Sales", "Support"] },
];

function expectError(res: { body: any }, code: string) {
  expect(res.body).toEqual({ error: expect.objectContaining({ code, message: expect.any(String) }) });
}

function detailPaths(res: { body: any }): string[] {
  return (res.body.error.details ?? []).map((detail: { path: string }) => detail.path);
}

const createForm = (body: Record<string, unknown> = {}) =>
  createFormThroughApi(api, { name: "Contact", fields: CONTACT_FIELDS, ...body });

async function versionsOf(formId: string) {
  return db.formVersion.findMany({
    where: { formId },
    orderBy: { version: "asc" },
    select: { version: true, fields: true },
  });
}

async function addLead(formId: string, isSpam = false) {
  await db.lead.create({ data: { formId, schemaVersion: 1, data: { name: "Ada" }, isSpam } });
}

describe("forms API without a session", () => {
  it.each([
    ["GET", "/api/forms"],
    ["POST", "/api/forms"],
    ["GET", "/api/forms/some-id"],
    ["PATCH", "/api/forms/some-id"],
    ["DELETE", "/api/forms/some-id"],
    ["PUT", "/api/forms/some-id/schema"],
  ])("answers %s %s with 401 JSON", async (method, path) => {
    const res = await apiClient(server.url)(method, path, method === "GET" || method === "DELETE" ? undefined : {});
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    expectError(res, "unauthorized");
  });
});

describe("creating a form", () => {
  it("answers 201 with the form, its fields, default settings and version 1 stored", async () => {
    const res = await api("POST", "/api/forms", {
      name: "  Contact us ",
      description: "Main site",
      fields: CONTACT_FIELDS,
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("location")).toBe(`/api/forms/${res.body.id}`);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: "Contact us",
      description: "Main site",
      status: "active",
      schemaVersion: 1,
      fields: [
        { key: "name", label: "Name", type: "text", required: true, maxLength: 80 },
        { key: "email", label: "Email", type: "email", required: true },
        { key: "topic", label: "Topic", type: "select", required: false, options: ["Sales", "Support"] },
      ],
      settings: {
        allowedOrigins: [],
        successMessage: expect.any(String),
        notifications: { recipients: [], mode: "instant" },
      },
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const versions = await versionsOf(res.body.id);
    expect(versions).toEqual([{ version: 1, fields: res.body.fields }]);
  });

  it("creates a form with only a name: no fields, default settings", async () => {
    const res = await api("POST", "/api/forms", { name: "Empty" });
    expect(res.status).toBe(201);
    expect(res.body.fields).toEqual([]);
    expect(res.body.settings.allowedOrigins).toEqual([]);
    expect(await versionsOf(res.body.id)).toHaveLength(1);
  });

  it("normalises settings given at creation", async () => {
    const res = await api("POST", "/api/forms", {
      name: "With settings",
      settings: {
        allowedOrigins: ["https://WWW.Example.com/"],
        redirectUrl: "https://example.com/thanks",
        successMessage: "Thanks!",
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.settings).toEqual({
      allowedOrigins: ["https://www.example.com"],
      redirectUrl: "https://example.com/thanks",
      successMessage: "Thanks!",
      notifications: { recipients: [], mode: "instant" },
    });
  });

  it("refuses a missing name, an unknown property and a bad schema with 422 naming each", async () => {
    const before = await db.form.count();
    const res = await api("POST", "/api/forms", {
      extra: true,
      fields: [
        { key: "a", label: "A", type: "text" },
        { key: "A", label: "A again", type: "text" },
      ],
    });
    expect(res.status).toBe(422);
    expectError(res, "validation_failed");
    expect(detailPaths(res)).toEqual(expect.arrayContaining(["name", "fields.1.key"]));
    expect(JSON.stringify(res.body)).toContain("extra");
    expect(await db.form.count()).toBe(before);
  });

  it("refuses malformed JSON with 400 and another content type with 415", async () => {
    const malformed = await api("POST", "/api/forms", "{nope", { "Content-Type": "application/json" });
    expect(malformed.status).toBe(400);
    expectError(malformed, "malformed_json");
    const form = await api("POST", "/api/forms", "name=x", { "Content-Type": "application/x-www-form-urlencoded" });
    expect(form.status).toBe(415);
    expectError(form, "unsupported_media_type");
  });

  it("refuses a cross-site POST that carries the session cookie with 403", async () => {
    const before = await db.form.count();
    const res = await api("POST", "/api/forms", { name: "Sneaky" }, { Origin: "https://evil.example" });
    expect(res.status).toBe(403);
    expectError(res, "forbidden");
    expect(await db.form.count()).toBe(before);
  });
});

describe("listing forms", () => {
  it("lists newest first with field and lead counts, a page at a time", async () => {
    const first = await createForm({ name: "List A" });
    const second = await createForm({ name: "List B", fields: [] });
    await addLead(first.id);
    await addLead(first.id);
    await addLead(first.id, true);

    const res = await api("GET", "/api/forms?limit=100");
    expect(res.status).toBe(200);
    const ids = res.body.items.map((item: { id: string }) => item.id);
    expect(ids.indexOf(second.id)).toBeLessThan(ids.indexOf(first.id));
    const a = res.body.items.find((item: { id: string }) => item.id === first.id);
    expect(a).toEqual({
      id: first.id,
      name: "List A",
      status: "active",
      schemaVersion: 1,
      fieldCount: 3,
      leadCount: 2,
      spamCount: 1,
      createdAt: first.createdAt,
      updatedAt: first.updatedAt,
    });
    expect(res.body.items.find((item: { id: string }) => item.id === second.id).fieldCount).toBe(0);

    // Walking the pages one form at a time visits every form once.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: any } = await api(
        "GET",
        `/api/forms?limit=1${cursor ? `&cursor=${cursor}` : ""}`,
      );
      expect(page.status).toBe(200);
      expect(page.body.items.length).toBeLessThanOrEqual(1);
      seen.push(...page.body.items.map((item: { id: string }) => item.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(ids);
  });

  it("filters by status and refuses a bad cursor, limit or status with 422", async () => {
    const archived = await createForm({ name: "Old" });
    await api("PATCH", `/api/forms/${archived.id}`, { status: "archived" });
    const res = await api("GET", "/api/forms?status=archived&limit=100");
    expect(res.body.items.map((item: { id: string }) => item.id)).toContain(archived.id);
    expect(res.body.items.every((item: { status: string }) => item.status === "archived")).toBe(true);

    for (const query of ["cursor=garbage", "limit=0", "limit=1000", "status=deleted", "other=1"]) {
      const bad = await api("GET", `/api/forms?${query}`);
      expect(bad.status, query).toBe(422);
      expectError(bad, "validation_failed");
    }
  });
});

describe("reading one form", () => {
  it("answers the form with fields, settings and lead counts", async () => {
    const form = await createForm();
    await addLead(form.id);
    const res = await api("GET", `/api/forms/${form.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...form, leadCount: 1, spamCount: 0 });
  });

  it.each([
    ["GET", "/api/forms/unknown-id", undefined],
    ["PATCH", "/api/forms/unknown-id", { name: "x" }],
    ["DELETE", "/api/forms/unknown-id", undefined],
    ["DELETE", "/api/forms/unknown-id?deleteLeads=true", undefined],
    ["PUT", "/api/forms/unknown-id/schema", { fields: [] }],
  ])("answers %s %s for an unknown id with 404 not_found", async (method, path, body) => {
    const res = await api(method, path, body);
    expect(res.status).toBe(404);
    expectError(res, "not_found");
  });

  it("answers other methods with 405 and the allowed ones", async () => {
    const res = await api("POST", "/api/forms/some-id", {});
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, PATCH, DELETE");
    const schema = await api("GET", "/api/forms/some-id/schema");
    expect(schema.status).toBe(405);
    expect(schema.headers.get("allow")).toBe("PUT");
  });
});

describe("updating a form", () => {
  it("changes name, description and status without touching the schema", async () => {
    const form = await createForm();
    const res = await api("PATCH", `/api/forms/${form.id}`, {
      name: "Renamed",
      description: "New",
      status: "archived",
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: "Renamed",
      description: "New",
      status: "archived",
      schemaVersion: 1,
      fields: form.fields,
    });
    const back = await api("PATCH", `/api/forms/${form.id}`, { status: "active" });
    expect(back.body.status).toBe("active");
    expect(back.body.name).toBe("Renamed");
  });

  it("merges settings key by key, and null clears the redirect", async () => {
    const form = await createForm({
      settings: { allowedOrigins: ["https://a.example"], redirectUrl: "https://a.example/thanks" },
    });
    const res = await api("PATCH", `/api/forms/${form.id}`, { settings: { successMessage: "Merci !" } });
    expect(res.status).toBe(200);
    expect(res.body.settings).toEqual({
      allowedOrigins: ["https://a.example"],
      redirectUrl: "https://a.example/thanks",
      successMessage: "Merci !",
      notifications: { recipients: [], mode: "instant" },
    });
    const cleared = await api("PATCH", `/api/forms/${form.id}`, {
      settings: { redirectUrl: null, allowedOrigins: [] },
    });
    expect(cleared.body.settings).toEqual({
      allowedOrigins: [],
      redirectUrl: null,
      successMessage: "Merci !",
      notifications: { recipients: [], mode: "instant" },
    });
  });

  it("refuses unknown properties, a bad status, bad settings and an empty patch with 422, changing nothing", async () => {
    const form = await createForm();
    const cases: [unknown, string][] = [
      [{ name: "x", colour: "red" }, "colour"],
      [{ status: "deleted" }, "status"],
      [{ name: "" }, "name"],
      [{ fields: [] }, "fields"],
      [{ settings: { allowedOrigins: ["https://ok.example", "https://x.example/path"] } }, "settings.allowedOrigins.1"],
      [{ settings: { redirectUrl: "javascript:alert(1)" } }, "settings.redirectUrl"],
      [{ settings: { unknownSetting: 1 } }, "settings.unknownSetting"],
      [{}, "(body)"],
    ];
    for (const [body, path] of cases) {
      const res = await api("PATCH", `/api/forms/${form.id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expectError(res, "validation_failed");
      expect(detailPaths(res), JSON.stringify(body)).toContain(path);
    }
    const after = await api("GET", `/api/forms/${form.id}`);
    expect(after.body).toMatchObject({
      name: form.name,
      status: "active",
      settings: form.settings,
      updatedAt: form.updatedAt,
    });
  });
});

describe("replacing the schema", () => {
  it("answers 200 with the new version, and keeps every version's fields", async () => {
    const form = await createForm();
    const v2Fields = [
      { key: "full_name", label: "Full name", type: "text", required: true },
      { key: "email", label: "Email", type: "email", required: true },
    ];
    const v2 = await api("PUT", `/api/forms/${form.id}/schema`, { fields: v2Fields });
    expect(v2.status).toBe(200);
    expect(v2.body.schemaVersion).toBe(2);
    expect(v2.body.fields).toEqual(v2Fields);

    const v3 = await api("PUT", `/api/forms/${form.id}/schema`, {
      fields: [...v2Fields, { key: "budget", label: "Budget", type: "number", min: 0, max: 100 }],
      expectedSchemaVersion: 2,
    });
    expect(v3.status).toBe(200);
    expect(v3.body.schemaVersion).toBe(3);

    const versions = await versionsOf(form.id);
    expect(versions.map((version) => version.version)).toEqual([1, 2, 3]);
    expect(versions[0].fields).toEqual(form.fields);
    expect(versions[1].fields).toEqual(v2Fields);
    expect(versions[2].fields).toEqual(v3.body.fields);
    const stored = await db.form.findUnique({ where: { id: form.id }, select: { fields: true, schemaVersion: true } });
    expect(stored).toEqual({ fields: v3.body.fields, schemaVersion: 3 });
  });

  it("does not make a new version when the same fields are sent again", async () => {
    const form = await createForm();
    const res = await api("PUT", `/api/forms/${form.id}/schema`, { fields: CONTACT_FIELDS });
    expect(res.status).toBe(200);
    expect(res.body.schemaVersion).toBe(1);
    expect(await versionsOf(form.id)).toHaveLength(1);
  });

  it("refuses a duplicate key, a select without options and min > max with 422 naming each field", async () => {
    const form = await createForm();
    const res = await api("PUT", `/api/forms/${form.id}/schema`, {
      fields: [
        { key: "email", label: "Email", type: "email" },
        { key: "Email", label: "Email again", type: "email" },
        { key: "plan", label: "Plan", type: "select" },
        { key: "size", label: "Size", type: "number", min: 10, max: 1 },
        { key: "9lives", label: "Bad key", type: "text" },
        { key: "kind", label: "Kind", type: "colour" },
      ],
    });
    expect(res.status).toBe(422);
    expectError(res, "validation_failed");
    expect(detailPaths(res)).toEqual(
      expect.arrayContaining(["fields.1.key", "fields.2.options", "fields.3.min", "fields.4.key", "fields.5.type"]),
    );
    const stored = await db.form.findUnique({ where: { id: form.id }, select: { schemaVersion: true } });
    expect(stored!.schemaVersion).toBe(1);
    expect(await versionsOf(form.id)).toHaveLength(1);
  });

  it("refuses a body without fields, or with other properties, with 422; malformed JSON with 400; text with 415", async () => {
    const form = await createForm();
    const missing = await api("PUT", `/api/forms/${form.id}/schema`, { name: "x" });
    expect(missing.status).toBe(422);
    expect(detailPaths(missing)).toContain("fields");
    const bare = await api("PUT", `/api/forms/${form.id}/schema`, CONTACT_FIELDS);
    expect(bare.status).toBe(422);
    const malformed = await api("PUT", `/api/forms/${form.id}/schema`, "[", { "Content-Type": "application/json" });
    expect(malformed.status).toBe(400);
    const text = await api("PUT", `/api/forms/${form.id}/schema`, "fields", { "Content-Type": "text/plain" });
    expect(text.status).toBe(415);
  });

  it("refuses a stale expectedSchemaVersion with 409 version_conflict", async () => {
    const form = await createForm();
    await api("PUT", `/api/forms/${form.id}/schema`, { fields: [] });
    const res = await api("PUT", `/api/forms/${form.id}/schema`, { fields: CONTACT_FIELDS, expectedSchemaVersion: 1 });
    expect(res.status).toBe(409);
    expectError(res, "version_conflict");
    const stored = await db.form.findUnique({ where: { id: form.id }, select: { schemaVersion: true, fields: true } });
    expect(stored).toEqual({ schemaVersion: 2, fields: [] });
  });

  it("gives concurrent schema changes distinct, gap-free versions, and the form the last one's fields", async () => {
    const form = await createForm();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        api("PUT", `/api/forms/${form.id}/schema`, {
          fields: [{ key: `field_${i}`, label: `Field ${i}`, type: "text" }],
        }),
      ),
    );
    for (const res of results) expect([200, 409]).toContain(res.status);
    const saved = results.filter((res) => res.status === 200).length;
    expect(saved).toBeGreaterThan(0);
    const versions = await versionsOf(form.id);
    expect(versions.map((version) => version.version)).toEqual(Array.from({ length: saved + 1 }, (_, i) => i + 1));
    const stored = await db.form.findUnique({ where: { id: form.id }, select: { schemaVersion: true, fields: true } });
    expect(stored!.schemaVersion).toBe(saved + 1);
    expect(stored!.fields).toEqual(versions[versions.length - 1].fields);
  });

  it("rolls a version left behind by a crashed writer forward before saving the next one", async () => {
    const form = await createForm();
    // A writer that died after taking version 2 and before moving the form onto it.
    const orphan = [{ key: "orphan", label: "Orphan", type: "text", required: false }];
    await db.formVersion.create({ data: { formId: form.id, version: 2, fields: orphan } });

    const next = [{ key: "latest", label: "Latest", type: "text", required: false }];
    const res = await api("PUT", `/api/forms/${form.id}/schema`, { fields: next });
    expect(res.status).toBe(200);
    expect(res.body.schemaVersion).toBe(3);
    expect(res.body.fields).toEqual(next);
    const versions = await versionsOf(form.id);
    expect(versions.map((version) => [version.version, version.fields])).toEqual([
      [1, form.fields],
      [2, orphan],
      [3, next],
    ]);
  });
});

describe("deleting a form", () => {
  it("answers 204 and removes the form with its versions", async () => {
    const form = await createForm();
    await api("PUT", `/api/forms/${form.id}/schema`, { fields: [] });
    const res = await api("DELETE", `/api/forms/${form.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect(await db.form.findUnique({ where: { id: form.id } })).toBeNull();
    expect(await versionsOf(form.id)).toEqual([]);
    expect((await api("GET", `/api/forms/${form.id}`)).status).toBe(404);
  });

  it("refuses a form with leads with 409 form_has_leads, and keeps the form and its leads", async () => {
    const form = await createForm();
    await addLead(form.id);
    await addLead(form.id, true);
    const res = await api("DELETE", `/api/forms/${form.id}`);
    expect(res.status).toBe(409);
    expectError(res, "form_has_leads");
    expect(res.body.error.message).toContain("2 lead");
    const explicitNo = await api("DELETE", `/api/forms/${form.id}?deleteLeads=false`);
    expect(explicitNo.status).toBe(409);
    expect(await db.lead.count({ where: { formId: form.id } })).toBe(2);
    expect((await api("GET", `/api/forms/${form.id}`)).status).toBe(200);
  });

  it("deletes the form and its leads with ?deleteLeads=true, leaving other forms' leads", async () => {
    const form = await createForm();
    const other = await createForm({ name: "Other" });
    await addLead(form.id);
    await addLead(other.id);
    const res = await api("DELETE", `/api/forms/${form.id}?deleteLeads=true`);
    expect(res.status).toBe(204);
    expect(await db.lead.count({ where: { formId: form.id } })).toBe(0);
    expect(await db.lead.count({ where: { formId: other.id } })).toBe(1);
    expect(await db.form.findUnique({ where: { id: form.id } })).toBeNull();
  });

  it("refuses a deleteLeads value other than true or false with 422", async () => {
    const form = await createForm();
    const res = await api("DELETE", `/api/forms/${form.id}?deleteLeads=yes`);
    expect(res.status).toBe(422);
    expect(detailPaths(res)).toContain("deleteLeads");
    expect((await api("GET", `/api/forms/${form.id}`)).status).toBe(200);
  });

  it("refuses a cross-site DELETE with the session cookie with 403", async () => {
    const form = await createForm();
    const res = await api("DELETE", `/api/forms/${form.id}`, undefined, { Origin: "https://evil.example" });
    expect(res.status).toBe(403);
    expect((await api("GET", `/api/forms/${form.id}`)).status).toBe(200);
  });
});

describe("changes reach the public submit endpoint at once", () => {
  it("a new schema, archiving and deleting apply to the very next submission", async () => {
    const form = await createForm();
    const submit = (data: Record<string, unknown>) =>
      apiClient(server.url)("POST", "/api/leads/submit", { formId: form.id, data });
    const lead = { name: "Ada", email: "ada@example.com" };
    expect((await submit(lead)).status).toBe(201);

    const fields = [...CONTACT_FIELDS, { key: "phone", label: "Phone", type: "tel", required: true }];
    expect((await api("PUT", `/api/forms/${form.id}/schema`, { fields })).status).toBe(200);
    const missingPhone = await submit(lead);
    expect(missingPhone.status).toBe(422);
    expect(JSON.stringify(missingPhone.body)).toContain("phone");
    expect((await submit({ ...lead, phone: "+44 20 7946 0000" })).status).toBe(201);
    const versions = await db.lead.findMany({
      where: { formId: form.id },
      orderBy: { createdAt: "asc" },
      select: { schemaVersion: true },
    });
    expect(versions.map((row) => row.schemaVersion)).toEqual([1, 2]);

    await api("PATCH", `/api/forms/${form.id}`, { status: "archived" });
    expect((await submit({ ...lead, phone: "1" })).status).toBe(410);

    await api("DELETE", `/api/forms/${form.id}?deleteLeads=true`);
    expect((await submit({ ...lead, phone: "1" })).status).toBe(404);
  });
});
