// The builder pages as a browser without JavaScript uses them: form-encoded posts
// with an `intent`, answered with the page.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrResetUser } from "~/staff/user.server";
import { db, type Prisma } from "~/storage/db.server";
import { loginAsStaff, postForm } from "../support/http";
import { startServer, type TestServer } from "../support/server";

let server: TestServer;
let cookie: string;

beforeAll(async () => {
  server = await startServer();
  cookie = await loginAsStaff(server.url);
});
afterAll(async () => {
  await server?.stop();
});

const post = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  postForm(`${server.url}${path}`, fields, { Cookie: cookie, ...headers });

async function page(path: string) {
  const response = await fetch(`${server.url}${path}`, { headers: { Cookie: cookie }, redirect: "manual" });
  return { status: response.status, html: await response.text() };
}

// Made by the builder page's own no-JavaScript post, which this file tests (not support/forms.ts).
async function newForm(name = "Contact"): Promise<string> {
  const res = await post("/forms", { intent: "create", name });
  expect(res.status).toBe(302);
  return res.location!.split("/")[2];
}

async function stored(id: string) {
  return db.form.findUnique({
    where: { id },
    select: { fields: true, schemaVersion: true, settings: true, status: true, name: true, description: true },
  });
}

const addText = (label: string, extra: Record<string, string> = {}) => ({
  intent: "add-field",
  label,
  key: "",
  type: "text",
  minLength: "",
  maxLength: "",
  pattern: "",
  placeholder: "",
  helpText: "",
  defaultValue: "",
  options: "",
  ...extra,
});

describe("forms pages without a session", () => {
  it("redirect to the login page", async () => {
    const res = await fetch(`${server.url}/forms/abc`, { redirect: "manual" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/login?redirectTo=%2Fforms%2Fabc");
  });
});

describe("the forms list page", () => {
  it("creates a form from a plain post and redirects to its builder", async () => {
    const res = await post("/forms", { intent: "create", name: "  Newsletter ", description: "Footer" });
    expect(res.status).toBe(302);
    expect(res.location).toMatch(/^\/forms\/\w+\/fields$/);
    const id = res.location!.split("/")[2];
    expect(await stored(id)).toMatchObject({ name: "Newsletter", description: "Footer", schemaVersion: 1, fields: [] });
    expect(await db.formVersion.count({ where: { formId: id } })).toBe(1);
  });

  it("refuses a form without a name with 422 and says so next to the name", async () => {
    const before = await db.form.count();
    const res = await post("/forms", { intent: "create", name: " " });
    expect(res.status).toBe(422);
    expect(res.html).toContain('id="new-form-name-error"');
    expect(res.html).toContain("Give the form a name.");
    expect(await db.form.count()).toBe(before);
  });

  it("lists forms with their lead counts", async () => {
    const id = await newForm("Counted");
    await db.lead.create({ data: { formId: id, schemaVersion: 1, data: {} } });
    const res = await page("/forms");
    expect(res.status).toBe(200);
    expect(res.html).toMatch(new RegExp(`href="/forms/${id}/fields">Counted</a>`));
    expect(res.html).toMatch(new RegExp(`href="/leads\\?formId=${id}">1</a>`));
  });
});

describe("the builder page without JavaScript", () => {
  it("adds a text field, a select with options and a checkbox, each a new schema version", async () => {
    const id = await newForm();
    expect((await post(`/forms/${id}/fields`, addText("Full name", { required: "on", maxLength: "80" }))).status).toBe(
      200,
    );
    const select = await post(
      `/forms/${id}/fields`,
      addText("Topic", { type: "select", options: "Sales\r\nSupport\r\n\r\n", maxLength: "5" }),
    );
    expect(select.status).toBe(200);
    expect(
      (await post(`/forms/${id}/fields`, addText("Subscribe", { type: "checkbox", defaultValue: "yes" }))).status,
    ).toBe(200);

    const form = await stored(id);
    expect(form!.fields).toEqual([
      { key: "full_name", label: "Full name", type: "text", required: true, maxLength: 80 },
      // maxLength does not apply to a select: the builder leaves it out.
      { key: "topic", label: "Topic", type: "select", required: false, options: ["Sales", "Support"] },
      { key: "subscribe", label: "Subscribe", type: "checkbox", required: false, defaultValue: true },
    ]);
    expect(form!.schemaVersion).toBe(4);
    expect(await db.formVersion.count({ where: { formId: id } })).toBe(4);

    // The page shows the fields and the preview renders them.
    const res = await page(`/forms/${id}/fields`);
    expect(res.html).toContain('id="preview-full_name"');
    expect(res.html).toContain('<option value="Support">Support</option>');
    expect(res.html).toContain(`/f/${id}`);
  });

  it("refuses a select without options and a duplicate key with 422, naming the input, and keeps what was typed", async () => {
    const id = await newForm();
    await post(`/forms/${id}/fields`, addText("Email", { type: "email" }));

    const noOptions = await post(`/forms/${id}/fields`, addText("Plan", { type: "select", options: "" }));
    expect(noOptions.status).toBe(422);
    expect(noOptions.html).toContain('id="new-options-error"');
    expect(noOptions.html).toContain("A select field needs at least one option.");
    expect(noOptions.html).toMatch(/id="new-label"[^>]*value="Plan"/);

    const duplicate = await post(`/forms/${id}/fields`, addText("Email again", { key: "EMAIL" }));
    expect(duplicate.status).toBe(422);
    expect(duplicate.html).toContain('id="new-key-error"');
    expect(duplicate.html).toContain("Another field already uses the key &quot;EMAIL&quot;.");

    const range = await post(`/forms/${id}/fields`, addText("Size", { type: "number", min: "10", max: "1" }));
    expect(range.status).toBe(422);
    expect(range.html).toContain("min cannot be greater than max.");

    expect((await stored(id))!.schemaVersion).toBe(2);
  });

  it("edits a field (a new key too), moves fields up and down and removes one, keeping old versions", async () => {
    const id = await newForm();
    for (const label of ["First", "Second", "Third"]) await post(`/forms/${id}/fields`, addText(label));

    const edit = await post(`/forms/${id}/fields`, {
      ...addText("Given name", { required: "on", placeholder: "Ada", helpText: "As on your passport" }),
      intent: "update-field",
      fieldKey: "first",
      key: "given_name",
    });
    expect(edit.status).toBe(200);
    expect(
      (await post(`/forms/${id}/fields`, { intent: "move-field", fieldKey: "third", direction: "up" })).status,
    ).toBe(200);
    expect(
      (await post(`/forms/${id}/fields`, { intent: "move-field", fieldKey: "given_name", direction: "down" })).status,
    ).toBe(200);
    expect((await post(`/forms/${id}/fields`, { intent: "remove-field", fieldKey: "second" })).status).toBe(200);

    const form = await stored(id);
    expect(form!.fields).toEqual([
      { key: "third", label: "Third", type: "text", required: false },
      {
        key: "given_name",
        label: "Given name",
        type: "text",
        required: true,
        placeholder: "Ada",
        helpText: "As on your passport",
      },
    ]);
    expect(form!.schemaVersion).toBe(8);
    const v4 = await db.formVersion.findUnique({ where: { formId_version: { formId: id, version: 4 } } });
    expect((v4!.fields as { key: string }[]).map((field) => field.key)).toEqual(["first", "second", "third"]);
  });

  it("puts fields on steps and shows them on a condition, as plain posts (issue 31, item 9)", async () => {
    const id = await newForm();
    const fieldsOf = async () =>
      ((await stored(id))!.fields as Array<{ key: string; step?: number; showIf?: unknown }>).map(
        ({ key, step, showIf }) => ({ key, ...(step ? { step } : {}), ...(showIf ? { showIf } : {}) }),
      );
    await post(`/forms/${id}/fields`, addText("Email"));
    await post(`/forms/${id}/fields`, addText("Reason", { type: "select", options: "sales\nsupport" }));
    // A new step, and a field on it shown only for sales.
    const company = await post(`/forms/${id}/fields`, {
      ...addText("Company", { step: "2", showIfField: "reason", showIfOp: "equals", showIfValue: "sales" }),
    });
    expect(company.status, company.html).toBe(200);
    // Added to step 1 while step 2 exists: it goes before step 2's field.
    await post(`/forms/${id}/fields`, addText("Phone", { step: "1", showIfField: "", showIfOp: "equals" }));
    expect(await fieldsOf()).toEqual([
      { key: "email" },
      { key: "reason" },
      { key: "phone", step: 1 },
      { key: "company", step: 2, showIf: { field: "reason", equals: "sales" } },
    ]);

    // The phone moves to a new step 3; then its condition "is one of"; the editor keeps the step.
    const edit = (key: string, extra: Record<string, string>) =>
      post(`/forms/${id}/fields`, {
        ...addText(key === "phone" ? "Phone" : "Company", extra),
        intent: "update-field",
        fieldKey: key,
        key,
      });
    expect((await edit("phone", { step: "3" })).status).toBe(200);
    expect(
      (await edit("phone", { step: "3", showIfField: "reason", showIfOp: "in", showIfValue: "sales, support" })).status,
    ).toBe(200);
    expect((await fieldsOf()).at(-1)).toEqual({
      key: "phone",
      step: 3,
      showIf: { field: "reason", in: ["sales", "support"] },
    });

    // A condition on a later field is refused with the reason, and nothing changes.
    const later = await edit("company", { step: "2", showIfField: "phone", showIfOp: "notEmpty" });
    expect(later.status).toBe(422);
    expect(later.html).toContain("phone");
    // "Always shown" removes the condition; moving step 2's only field to step 3 leaves no empty step.
    expect((await edit("company", { step: "3", showIfField: "", showIfOp: "equals" })).status).toBe(200);
    expect(await fieldsOf()).toEqual([
      { key: "email" },
      { key: "reason" },
      { key: "phone", step: 2, showIf: { field: "reason", in: ["sales", "support"] } },
      { key: "company", step: 2 },
    ]);

    // Step titles, one per line, from the settings form.
    const titles = await post(`/forms/${id}/settings`, {
      intent: "update-settings",
      allowedOrigins: "",
      redirectUrl: "",
      successMessage: "Thanks!",
      stepTitles: "You\nYour company\n",
    });
    expect(titles.status, titles.html).toBe(200);
    expect(((await stored(id))!.settings as { stepTitles?: string[] }).stepTitles).toEqual(["You", "Your company"]);
  });

  it("keeps a combined condition the editor only shows when a field is saved", async () => {
    const id = await newForm();
    await post(`/forms/${id}/fields`, addText("Email"));
    await post(`/forms/${id}/fields`, addText("Plan"));
    const combined = {
      any: [
        { field: "email", notEmpty: true },
        { field: "plan", equals: "pro" },
      ],
    };
    const row = await db.form.findUniqueOrThrow({ where: { id }, select: { fields: true } });
    const fields = row.fields as Prisma.InputJsonValue[];
    await db.form.update({
      where: { id },
      data: { fields: [...fields, { key: "notes", label: "Notes", type: "text", required: false, showIf: combined }] },
    });
    const page = await fetch(`${server.url}/forms/${id}/fields`, { headers: { Cookie: cookie } });
    expect(await page.text()).toContain("edit it through");
    const saved = await post(`/forms/${id}/fields`, {
      ...addText("Notes", { showIfField: "", showIfKeep: "1" }),
      intent: "update-field",
      fieldKey: "notes",
      key: "notes",
      helpText: "Anything else",
    });
    expect(saved.status, saved.html).toBe(200);
    const notes = ((await stored(id))!.fields as Array<{ key: string; showIf?: unknown }>).find(
      (f) => f.key === "notes",
    );
    expect(notes!.showIf).toEqual(combined);
  });

  it("keeps every field when several people add fields at the same moment", async () => {
    const id = await newForm();
    const labels = ["Alpha", "Beta", "Gamma", "Delta", "Epsilon"];
    const results = await Promise.all(labels.map((label) => post(`/forms/${id}/fields`, addText(label))));
    expect(results.map((res) => res.status)).toEqual(labels.map(() => 200));
    const form = await stored(id);
    expect((form!.fields as { label: string }[]).map((field) => field.label).sort()).toEqual([...labels].sort());
    expect(form!.schemaVersion).toBe(labels.length + 1);
    const versions = await db.formVersion.findMany({
      where: { formId: id },
      select: { version: true },
      orderBy: { version: "asc" },
    });
    expect(versions.map((row) => row.version)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("does not make a version for a move past the end, and says so when a field is gone", async () => {
    const id = await newForm();
    await post(`/forms/${id}/fields`, addText("Only"));
    expect(
      (await post(`/forms/${id}/fields`, { intent: "move-field", fieldKey: "only", direction: "up" })).status,
    ).toBe(200);
    expect((await stored(id))!.schemaVersion).toBe(2);
    const gone = await post(`/forms/${id}/fields`, { intent: "remove-field", fieldKey: "nothing" });
    expect(gone.status).toBe(404);
    expect(gone.html).toContain("The form has no field &quot;nothing&quot;");
  });

  it("saves name, settings (origins one per line) and refuses a bad origin next to its input", async () => {
    const id = await newForm();
    expect(
      (await post(`/forms/${id}/settings`, { intent: "update-details", name: "Renamed", description: "About" })).status,
    ).toBe(200);
    const bad = await post(`/forms/${id}/settings`, {
      intent: "update-settings",
      allowedOrigins: "https://ok.example\nftp://bad.example",
      redirectUrl: "",
      successMessage: "Thanks",
    });
    expect(bad.status).toBe(422);
    expect(bad.html).toContain('id="settings-allowedOrigins-error"');
    expect(bad.html).toContain("Line 2: Use an origin");

    const good = await post(`/forms/${id}/settings`, {
      intent: "update-settings",
      allowedOrigins: "https://OK.example/\n\nhttps://two.example",
      redirectUrl: "https://ok.example/thanks",
      successMessage: "",
    });
    expect(good.status).toBe(200);
    const form = await stored(id);
    expect(form).toMatchObject({ name: "Renamed", description: "About" });
    expect(form!.settings).toEqual({
      allowedOrigins: ["https://ok.example", "https://two.example"],
      redirectUrl: "https://ok.example/thanks",
      successMessage: "Thank you! We will be in touch soon.",
      notifications: { recipients: [], mode: "instant" },
    });
  });

  it("saves notification recipients (one per line or by commas) and the mode, refusing a bad address by line", async () => {
    const id = await newForm();
    const empty = (await page(`/forms/${id}/notifications`)).html;
    expect(empty).toContain('aria-label="Notifications"');
    // No example address that looks like a value: an empty list says nobody is told.
    expect(empty).not.toMatch(/<textarea[^>]*placeholder/);
    expect(empty).toContain("Nobody is told of this form&#x27;s leads yet");
    const bad = await post(`/forms/${id}/notifications`, {
      intent: "update-notifications",
      recipients: "sales@team.example\nnot-an-address",
      mode: "instant",
    });
    expect(bad.status).toBe(422);
    expect(bad.html).toContain('id="notifications-recipients-error"');
    expect(bad.html).toContain("Line 2: Enter a valid email address.");
    expect((await stored(id))!.settings).toMatchObject({ notifications: { recipients: [], mode: "instant" } });

    const good = await post(`/forms/${id}/notifications`, {
      intent: "update-notifications",
      recipients: "Sales@Team.example, ops@team.example\n\nceo@team.example",
      mode: "digest",
    });
    expect(good.status).toBe(200);
    expect((await stored(id))!.settings).toMatchObject({
      notifications: { recipients: ["sales@team.example", "ops@team.example", "ceo@team.example"], mode: "digest" },
    });
    // The other settings are untouched.
    expect((await stored(id))!.settings).toMatchObject({ allowedOrigins: [] });
    const shown = await page(`/forms/${id}/notifications`);
    expect(shown.html).toContain("sales@team.example\nops@team.example\nceo@team.example");
    expect(shown.html).toContain("3 addresses are emailed about its leads.");
    expect(shown.html).toMatch(/value="digest"[^>]*checked|checked[^>]*value="digest"/);
  });

  it("archives and unarchives", async () => {
    const id = await newForm();
    await post(`/forms/${id}/danger`, { intent: "archive" });
    expect((await stored(id))!.status).toBe("archived");
    expect((await page(`/forms/${id}/danger`)).html).toContain("Unarchive form");
    await post(`/forms/${id}/danger`, { intent: "unarchive" });
    expect((await stored(id))!.status).toBe("active");
  });

  it("deletes after a confirmation; a form with leads only when its leads are deleted too", async () => {
    const id = await newForm();
    await db.lead.create({ data: { formId: id, schemaVersion: 1, data: {} } });
    const confirm = await page(`/forms/${id}/danger?delete=confirm`);
    expect(confirm.html).toContain("Delete permanently");
    expect(confirm.html).toContain('name="deleteLeads"');

    const refused = await post(`/forms/${id}/danger?delete=confirm`, { intent: "delete" });
    expect(refused.status).toBe(409);
    expect(refused.html).toContain("The form has 1 lead.");
    expect(await stored(id)).not.toBeNull();

    const deleted = await post(`/forms/${id}/danger?delete=confirm`, { intent: "delete", deleteLeads: "on" });
    expect(deleted.status).toBe(302);
    expect(deleted.location).toBe("/forms");
    expect(await stored(id)).toBeNull();
    expect(await db.lead.count({ where: { formId: id } })).toBe(0);
  });

  it("answers an unknown form with the 404 page and refuses a cross-site post with 403", async () => {
    const missing = await page("/forms/does-not-exist/fields");
    expect(missing.status).toBe(404);
    expect(missing.html).toContain("There is no form with this id.");
    const missingPost = await post("/forms/does-not-exist/fields", addText("X"));
    expect(missingPost.status).toBe(404);

    const id = await newForm();
    const crossSite = await post(`/forms/${id}/fields`, addText("Sneaky"), { Origin: "https://evil.example" });
    expect(crossSite.status).toBe(403);
    expect((await stored(id))!.fields).toEqual([]);
  });
});

describe("the builder's sections", () => {
  it("opens /forms/:id on Fields, and gives each section its own URL and marks it in the tabs", async () => {
    const id = await newForm("Sectioned");
    const opened = await page(`/forms/${id}`);
    expect(opened.status).toBe(302);
    const redirect = await fetch(`${server.url}/forms/${id}`, { headers: { Cookie: cookie }, redirect: "manual" });
    expect(redirect.headers.get("location")).toBe(`/forms/${id}/fields`);
    const withQuery = await fetch(`${server.url}/forms/${id}?created=1`, {
      headers: { Cookie: cookie },
      redirect: "manual",
    });
    expect(withQuery.headers.get("location")).toBe(`/forms/${id}/fields?created=1`);
    const sections = {
      fields: "Add a field",
      settings: "Name and description",
      notifications: "Email each lead to",
      share: "Put the form on a website",
      danger: "Archive or delete",
    };
    for (const [section, text] of Object.entries(sections)) {
      const res = await page(`/forms/${id}/${section}`);
      expect(res.status, section).toBe(200);
      expect(res.html).toContain(text);
      expect(res.html).toMatch(new RegExp(`<a (?=[^>]*aria-current="page")[^>]*href="/forms/${id}/${section}"`));
      // Only its own section: the embed code is on Share alone, field editing on Fields alone.
      expect(res.html.includes("Put the form on a website"), section).toBe(section === "share");
      expect(res.html.includes('aria-label="Add a field"'), section).toBe(section === "fields");
    }
  });

  it("takes only its own section's changes: a delete posted to Fields is refused and deletes nothing", async () => {
    const id = await newForm();
    const refused = await post(`/forms/${id}/fields`, { intent: "delete", deleteLeads: "on" });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain("Unknown action.");
    expect(await stored(id)).not.toBeNull();
    const settingsOnNotifications = await post(`/forms/${id}/notifications`, { intent: "update-details", name: "X" });
    expect(settingsOnNotifications.status).toBe(400);
    expect((await stored(id))!.name).toBe("Contact");
  });

  it("moves a field to a position (a drop), and refuses a position that is not a whole number", async () => {
    const id = await newForm();
    for (const label of ["A", "B", "C", "D"]) await post(`/forms/${id}/fields`, addText(label));
    expect((await post(`/forms/${id}/fields`, { intent: "move-field", fieldKey: "d", to: "1" })).status).toBe(200);
    const keys = async () => ((await stored(id))!.fields as { key: string }[]).map((field) => field.key);
    expect(await keys()).toEqual(["a", "d", "b", "c"]);
    const bad = await post(`/forms/${id}/fields`, { intent: "move-field", fieldKey: "a", to: "-1" });
    expect(bad.status).toBe(422);
    expect(bad.html).toContain("The position must be a whole number from 0.");
    expect(await keys()).toEqual(["a", "d", "b", "c"]);
  });

  it("tells an agent, who may not archive or delete, so on the Danger zone instead of offering the buttons", async () => {
    const agent = { email: "agent@sections.example", password: "agent sections password" };
    await createOrResetUser({ ...agent, role: "agent" });
    const agentCookie = await loginAsStaff(server.url, agent);
    const id = await newForm();
    const res = await fetch(`${server.url}/forms/${id}/danger`, { headers: { Cookie: agentCookie } });
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(html).toContain("Only owners and admins can archive or delete a form.");
    expect(html).not.toContain("Archive form");
    const archive = await fetch(`${server.url}/forms/${id}/danger`, {
      method: "POST",
      headers: { Cookie: agentCookie, Origin: server.url },
      body: new URLSearchParams({ intent: "archive" }),
    });
    expect(archive.status).toBe(403);
    expect((await stored(id))!.status).toBe("active");
  });
});
