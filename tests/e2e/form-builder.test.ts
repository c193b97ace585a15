import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { axeViolations } from "../support/axe";
import { launchBrowser, pageWithSession } from "../support/browser";
import { newForm, THREE_STEPS } from "../support/forms";
import { loginAsStaff } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import type { Browser, Page } from "playwright-core";

let server: TestServer;
let browser: Browser;
let cookie: string;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  cookie = await loginAsStaff(server.url);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const loggedInPage = (javaScriptEnabled: boolean) =>
  pageWithSession(browser, server.url, cookie, { javaScriptEnabled });

async function addField(
  page: Page,
  field: { label: string; type: string; required?: boolean; options?: string[]; key?: string },
) {
  const form = page.getByRole("form", { name: "Add a field" });
  await form.getByLabel("Label", { exact: true }).fill(field.label);
  if (field.key) {
    // The key is out of the way, under "Advanced".
    await form.getByText("Advanced: the field's key").click();
    await form.getByLabel("Key", { exact: true }).fill(field.key);
  }
  await form.getByLabel("Type", { exact: true }).selectOption(field.type);
  if (field.required) await form.getByLabel("Required", { exact: true }).check();
  if (field.options) await form.getByLabel(/^Options/).fill(field.options.join("\n"));
  await form.getByRole("button", { name: "Add field" }).click();
}

/** Follows a section's tab and waits for its URL; the tab is then the current page. */
async function openSection(page: Page, formId: string, tab: string, path: string) {
  const tabs = page.getByRole("navigation", { name: "Form sections" });
  await tabs.getByRole("link", { name: tab, exact: true }).click();
  await page.waitForURL(`**/forms/${formId}/${path}`);
  // With JavaScript the URL can change a render before the tabs show it: wait for that render.
  await expect.poll(() => tabs.getByRole("link", { name: tab, exact: true }).getAttribute("aria-current")).toBe("page");
}

async function fieldOrder(formId: string) {
  return ((await storedForm(formId))!.fields as { key: string }[]).map((field) => field.key);
}

/**
 * With JavaScript a field moves by dragging its handle: with the mouse (Subscribe dropped
 * on Full name's place), then with the keyboard (Space, an arrow, Space), each one move.
 */
async function dragFields(page: Page, formId: string) {
  expect(await fieldOrder(formId)).toEqual(["full_name", "subscribe", "topic"]);
  const version = (await storedForm(formId))!.schemaVersion;
  // Both rows in the viewport: the mouse works in its coordinates.
  await page.getByRole("list", { name: "Fields" }).evaluate((list) => list.scrollIntoView());
  const handle = fieldRow(page, "Subscribe").getByRole("button", { name: "Drag Subscribe" });
  const target = fieldRow(page, "Full name");
  const from = (await handle.boundingBox())!;
  const to = (await target.boundingBox())!;
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(from.x + from.width / 2, to.y + 4, { steps: 12 });
  await page.mouse.move(from.x + from.width / 2, to.y + 2, { steps: 2 });
  await page.mouse.up();
  await expect.poll(() => fieldOrder(formId)).toEqual(["subscribe", "full_name", "topic"]);
  expect((await storedForm(formId))!.schemaVersion).toBe(version + 1);
  await expectSaid(page, "Saved: Subscribe moved to place 1");
  // The page shows the saved order, and the handles, which wait while a drop saves, are free.
  await expect.poll(() => shownOrder(page)).toEqual(["Subscribe", "Full name", "Topic"]);
  await expect.poll(() => handle.getAttribute("aria-disabled")).toBe("false");

  await handle.focus();
  // dnd-kit measures the rows a render after the drag starts, and announces each place in
  // its live region: each key waits for the one before to take effect, as a person's would.
  const announced = page.locator("[id^=DndLiveRegion]");
  await page.keyboard.press("Space");
  await expect.poll(() => handle.getAttribute("aria-pressed")).toBe("true");
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await page.keyboard.press("ArrowDown");
  await expect.poll(() => announced.textContent()).toBe("Subscribe is now at place 2 of 3.");
  await page.keyboard.press("Space");
  await expect.poll(() => fieldOrder(formId)).toEqual(["full_name", "subscribe", "topic"]);
  expect((await storedForm(formId))!.schemaVersion).toBe(version + 2);
}

/** The fields' labels in the order the builder's list shows them. */
async function shownOrder(page: Page) {
  const labels = await page
    .getByRole("list", { name: "Fields" })
    .locator(":scope > li")
    .evaluateAll((rows) => rows.map((row) => row.getAttribute("aria-label")));
  return labels.map((label) => label!.replace(/^Field /, ""));
}

/**
 * What the page says was saved: with JavaScript its polite live region, without it the notice
 * on the page after the post. Waits for `text`.
 */
async function expectSaid(page: Page, text: string) {
  const said = async () =>
    (await page.getByRole("status").allTextContents()).map((words) => words.replace(/\u00a0/g, "").trim());
  await expect.poll(said, { message: text }).toContain(text);
}

/** The accessible name of the focused element. */
function focusedLabel(page: Page) {
  return page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? null);
}

function fieldRow(page: Page, label: string) {
  return page.getByRole("listitem", { name: `Field ${label}` });
}

async function storedForm(id: string) {
  return db.form.findUnique({
    where: { id },
    select: { name: true, fields: true, schemaVersion: true, settings: true, status: true },
  });
}

describe.each([
  { javaScriptEnabled: true, label: "with JavaScript" },
  { javaScriptEnabled: false, label: "without JavaScript" },
])("building a form $label", ({ javaScriptEnabled }) => {
  it("refuses a new form without a name: in the browser before sending with JavaScript, on the server without", async () => {
    const page = await loggedInPage(javaScriptEnabled);
    await page.goto(`${server.url}/forms`);
    const before = await db.form.count();
    const posts: string[] = [];
    page.on("request", (request) => {
      if (request.method() === "POST") posts.push(request.url());
    });
    const newForm = page.getByRole("form", { name: "New form" });
    // Spaces pass the browser's own `required` check; the shared schema trims them.
    await newForm.getByLabel("Name", { exact: true }).fill("   ");
    await newForm.getByRole("button", { name: "Create form" }).click();
    await expect.poll(() => page.getByText("Give the form a name.").count()).toBe(1);
    expect(await newForm.getByLabel("Name", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    expect(posts).toHaveLength(javaScriptEnabled ? 0 : 1);
    expect(await db.form.count()).toBe(before);
    await page.context().close();
  });

  it("creates a form with a required text field, a select and a checkbox, reorders and edits them, and stores that schema", async () => {
    const page = await loggedInPage(javaScriptEnabled);
    await page.goto(`${server.url}/forms`);
    const newForm = page.getByRole("form", { name: "New form" });
    const formName = `Contact ${javaScriptEnabled ? "JS" : "no JS"}`;
    await newForm.getByLabel("Name", { exact: true }).fill(formName);
    await newForm.getByRole("button", { name: "Create form" }).click();
    await page.getByRole("heading", { name: new RegExp(formName) }).waitFor();
    // A new form opens on its Fields section.
    const [, , formId, section] = new URL(page.url()).pathname.split("/");
    expect(section).toBe("fields");
    // With JavaScript every builder change goes through a fetcher, and the sections' tabs
    // are client-side navigations: no document loads.
    let documentLoads = 0;
    page.on("load", () => documentLoads++);
    // The hosted form's address is built from APP_URL (http://localhost:0 here).
    const hosted = page.getByRole("link", { name: new RegExp(`/f/${formId}$`) }).first();
    expect(await hosted.getAttribute("href")).toMatch(new RegExp(`^http://localhost:\\d+/f/${formId}$`));
    // Fields has no drag handles without JavaScript: the Up and Down buttons move fields there.
    expect(await page.getByRole("region", { name: "Put the form on a website" }).count()).toBe(0);

    await addField(page, { label: "Full name", type: "text", required: true });
    await fieldRow(page, "Full name").waitFor();
    await expectSaid(page, "Saved: Full name added");
    if (javaScriptEnabled) expect(await page.getByTestId("builder-saved").getAttribute("aria-live")).toBe("polite");
    await addField(page, { label: "Topic", type: "select", options: ["Sales", "Support"] });
    await fieldRow(page, "Topic").waitFor();
    await addField(page, { label: "Subscribe", type: "checkbox" });
    await fieldRow(page, "Subscribe").waitFor();

    // A second field with the same key is refused next to the key input.
    await addField(page, { label: "Name again", key: "full_name", type: "text" });
    const addForm = page.getByRole("form", { name: "Add a field" });
    await expect
      .poll(() => addForm.locator(".field-error").allTextContents())
      .toEqual([expect.stringContaining('Another field already uses the key "full_name"')]);
    await expect.poll(async () => (await storedForm(formId))!.schemaVersion).toBe(4);

    // Reorder: Subscribe moves above Topic. With JavaScript the list shows the new
    // order while the request is still held back in the browser (optimistic UI).
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    if (javaScriptEnabled) {
      await page.route(`**/forms/${formId}/fields.data*`, async (route) => {
        if (route.request().method() === "POST") await held;
        await route.continue();
      });
    }
    await page.getByRole("button", { name: "Move Subscribe up" }).click();
    const order = () =>
      page
        .getByRole("list", { name: "Fields" })
        .getByRole("listitem")
        .evaluateAll((items) => items.map((item) => item.getAttribute("aria-label")));
    await expect.poll(order).toEqual(["Field Full name", "Field Subscribe", "Field Topic"]);
    if (javaScriptEnabled) {
      const keys = ((await storedForm(formId))!.fields as { key: string }[]).map((field) => field.key);
      expect(keys).toEqual(["full_name", "topic", "subscribe"]);
      release();
      await page.unrouteAll({ behavior: "wait" });
    }
    await expect.poll(async () => (await storedForm(formId))!.schemaVersion).toBe(5);
    await expectSaid(page, "Saved: Subscribe moved up");
    // With JavaScript the moved row keeps the focus on its button, so Up can be pressed again.
    if (javaScriptEnabled) await expect.poll(() => focusedLabel(page)).toBe("Move Subscribe up");
    const edited = 6;

    // Edit: Topic becomes required with a help text.
    const topic = fieldRow(page, "Topic");
    await topic.getByText("Edit Topic").click();
    const editTopic = page.getByRole("form", { name: "Edit field Topic" });
    await editTopic.getByLabel("Required", { exact: true }).check();
    await editTopic.getByLabel("Help text", { exact: true }).fill("What is it about?");
    await editTopic.getByRole("button", { name: "Save field" }).click();
    await expect.poll(async () => (await storedForm(formId))!.schemaVersion).toBe(edited);
    await expectSaid(page, "Saved: Topic changed");

    const expectedFields = [
      { key: "full_name", label: "Full name", type: "text", required: true },
      { key: "subscribe", label: "Subscribe", type: "checkbox", required: false },
      {
        key: "topic",
        label: "Topic",
        type: "select",
        required: true,
        options: ["Sales", "Support"],
        helpText: "What is it about?",
      },
    ];
    const stored = await storedForm(formId);
    expect(stored!.fields).toEqual(expectedFields);
    const versions = await db.formVersion.findMany({
      where: { formId },
      orderBy: { version: "asc" },
      select: { version: true },
    });
    expect(versions.map((version) => version.version)).toEqual(Array.from({ length: edited }, (_, i) => i + 1));
    const api = await page.request.get(`${server.url}/api/forms/${formId}`);
    expect((await api.json()).fields).toEqual(expectedFields);

    if (javaScriptEnabled) expect(documentLoads).toBe(0);
    else expect(documentLoads).toBeGreaterThanOrEqual(5);

    // The preview renders the stored fields, in order.
    await page.reload();
    const preview = page.getByRole("region", { name: "Form preview" });
    await expect.poll(() => preview.getByRole("textbox", { name: "Full name" }).count()).toBe(1);
    expect(await preview.getByRole("textbox", { name: "Full name" }).getAttribute("required")).not.toBeNull();
    expect(await preview.getByRole("checkbox", { name: "Subscribe" }).count()).toBe(1);
    const select = preview.getByRole("combobox", { name: "Topic" });
    expect(await select.locator("option").allTextContents()).toEqual(["Choose…", "Sales", "Support"]);
    expect(await preview.getByText("What is it about?").count()).toBe(1);

    // A label of spaces is refused once, on the label: not again on the key made from it.
    const addForm2 = page.getByRole("form", { name: "Add a field" });
    await addForm2.getByLabel("Label", { exact: true }).fill("   ");
    await addForm2.getByRole("button", { name: "Add field" }).click();
    await expect.poll(() => addForm2.locator(".field-error").allTextContents()).toHaveLength(1);
    expect(await addForm2.getByLabel("Label", { exact: true }).getAttribute("aria-invalid")).toBe("true");

    // A second "Topic" is flagged on both rows; removing it asks first.
    await addField(page, { label: "Topic", type: "text" });
    await expect.poll(() => page.getByTestId("duplicate-label").count()).toBe(2);
    const second = fieldRow(page, "Topic").last();
    const remove = second.getByRole("button", { name: "Remove Topic" });
    expect(await remove.isVisible()).toBe(false);
    await second.getByText("Remove…").click();
    await remove.click();
    await expect.poll(() => page.getByTestId("duplicate-label").count()).toBe(0);
    await expect.poll(async () => ((await storedForm(formId))!.fields as unknown[]).length).toBe(3);
    await expectSaid(page, "Saved: Topic removed");

    if (javaScriptEnabled) await dragFields(page, formId);
    else expect(await page.getByRole("button", { name: /^Drag / }).count()).toBe(0);

    // Details and settings, on their own section: mistakes are refused inline by the shared
    // schemas, in the browser before anything is sent with JavaScript, by the server without.
    await openSection(page, formId, "Settings", "settings");
    const posts: string[] = [];
    page.on("request", (request) => {
      if (request.method() === "POST") posts.push(request.url());
    });
    const details = page.getByRole("form", { name: "Form details" });
    await details.getByLabel("Name", { exact: true }).fill("   ");
    await details.getByRole("button", { name: "Save name and description" }).click();
    await expect
      .poll(() => page.getByRole("form", { name: "Form details" }).locator(".field-error").textContent())
      .toBe("Give the form a name.");
    const settings = page.getByRole("form", { name: "Settings" });
    await settings.getByLabel(/^Allowed origins/).fill("https://www.example.com/contact");
    await settings.getByRole("button", { name: "Save settings" }).click();
    await expect
      .poll(() => page.getByRole("form", { name: "Settings" }).locator(".field-error").textContent())
      .toContain("Line 1: Use an origin");
    expect(posts).toHaveLength(javaScriptEnabled ? 0 : 2);
    expect((await storedForm(formId))!.name).toBe(formName);
    await page
      .getByRole("form", { name: "Settings" })
      .getByLabel(/^Allowed origins/)
      .fill("https://www.example.com");
    await page.getByRole("form", { name: "Settings" }).getByRole("button", { name: "Save settings" }).click();
    await expect
      .poll(async () => ((await storedForm(formId))!.settings as { allowedOrigins: string[] }).allowedOrigins)
      .toEqual(["https://www.example.com"]);

    // Notifications: a bad address refused by line, then recipients and a daily digest saved.
    await openSection(page, formId, "Notifications", "notifications");
    const before = posts.length;
    const notifications = () => page.getByRole("form", { name: "Notifications" });
    await notifications()
      .getByLabel(/^Email each lead to/)
      .fill("sales@example.com\nsales at example");
    await notifications().getByRole("button", { name: "Save notifications" }).click();
    await expect
      .poll(() => notifications().locator(".field-error").textContent())
      .toBe("Line 2: Enter a valid email address.");
    expect(posts.length - before).toBe(javaScriptEnabled ? 0 : 1);
    await notifications()
      .getByLabel(/^Email each lead to/)
      .fill("sales@example.com, boss@example.com");
    await notifications().getByLabel("One daily digest").check();
    await notifications().getByRole("button", { name: "Save notifications" }).click();
    await expect
      .poll(async () => ((await storedForm(formId))!.settings as { notifications: unknown }).notifications)
      .toEqual({ recipients: ["sales@example.com", "boss@example.com"], mode: "digest" });

    // Share: the hosted link, the embed code and a plain HTML form.
    await openSection(page, formId, "Share", "share");
    const embed = await page.getByRole("region", { name: "Put the form on a website" }).textContent();
    expect(embed).toContain("/embed.js");
    expect(embed).toContain(formId);

    // Archive, then delete after confirming, in the Danger zone.
    await openSection(page, formId, "Danger zone", "danger");
    await page.getByRole("button", { name: "Archive form" }).click();
    await expect.poll(async () => (await storedForm(formId))!.status).toBe("archived");
    await page.getByRole("button", { name: "Unarchive form" }).waitFor();
    await page.getByRole("link", { name: "Delete form…" }).click();
    await page.getByRole("button", { name: "Delete permanently" }).click();
    await page.getByRole("heading", { name: "Forms", exact: true }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/forms");
    expect(await storedForm(formId)).toBeNull();
    await page.context().close();
  }, 120_000);
});

describe("the builder's live preview", () => {
  it("shows a field being added as it is typed, and drops it again when its label is cleared", async () => {
    const page = await loggedInPage(true);
    const made = await page.request.post(`${server.url}/api/forms`, {
      headers: { Origin: server.url },
      data: { name: "Phantom", fields: [{ key: "email", label: "Email", type: "email", required: true }] },
    });
    const { id } = await made.json();
    await page.goto(`${server.url}/forms/${id}/fields`);
    const preview = page.getByRole("region", { name: "Form preview" });
    const label = page.getByRole("form", { name: "Add a field" }).getByLabel("Label", { exact: true });
    await label.pressSequentially("Company");
    await expect.poll(() => preview.getByRole("textbox", { name: "Company" }).count()).toBe(1);
    await label.fill("");
    await label.dispatchEvent("input");
    await expect.poll(() => preview.getByRole("textbox").count()).toBe(1);
    expect(await preview.getByRole("textbox", { name: "Email" }).count()).toBe(1);
    await page.context().close();
  });

  it.each([true, false])(
    "previews a form in steps one step at a time, with links to the others (JavaScript %s)",
    async (javaScriptEnabled) => {
      const formId = await newForm({
        name: "Preview in steps",
        fields: THREE_STEPS.fields,
        settings: THREE_STEPS.settings,
      });
      const page = await loggedInPage(javaScriptEnabled);
      await page.goto(`${server.url}/forms/${formId}/fields`);
      const preview = page.getByRole("region", { name: "Form preview" });
      expect(await preview.getByText("Step 1 of 3: You").count()).toBe(1);
      expect(await preview.getByRole("textbox", { name: "Email" }).count()).toBe(1);
      expect(await preview.getByRole("textbox", { name: "Message" }).count()).toBe(0);
      // A plain link, so it works without JavaScript too.
      await preview.getByRole("navigation", { name: "Preview steps" }).getByRole("link", { name: "3" }).click();
      await expect.poll(() => preview.getByText("Step 3 of 3: Anything else").count()).toBe(1);
      expect(await preview.getByRole("textbox", { name: "Message" }).count()).toBe(1);
      expect(await preview.getByRole("textbox", { name: "Email" }).count()).toBe(0);
      expect(page.url()).toContain("step=3");
      if (javaScriptEnabled) {
        // Editing a field of step 2 shows step 2, with the label as it is typed.
        await fieldRow(page, "Company").getByText("Edit Company").click();
        const label = page.getByRole("form", { name: "Edit field Company" }).getByLabel("Label", { exact: true });
        await label.fill("Company name");
        await label.dispatchEvent("input");
        await expect.poll(() => preview.getByText("Step 2 of 3: Your company").count()).toBe(1);
        expect(await preview.getByRole("textbox", { name: "Company name" }).count()).toBe(1);
      }
      await page.context().close();
    },
  );

  it("sits beside the fields on a wide screen and below them on a phone, without sideways scrolling", async () => {
    const page = await loggedInPage(true);
    const made = await page.request.post(`${server.url}/api/forms`, {
      headers: { Origin: server.url },
      data: { name: "Preview", fields: [{ key: "email", label: "Email", type: "email", required: true }] },
    });
    expect(made.status()).toBe(201);
    const { id } = await made.json();
    await page.goto(`${server.url}/forms/${id}/fields`);
    const fields = page.getByRole("heading", { name: "Fields", exact: true });
    const preview = page.getByRole("region", { name: "Form preview" });
    for (const [width, beside] of [
      [1280, true],
      [390, false],
    ] as const) {
      await page.setViewportSize({ width, height: 900 });
      const list = (await fields.boundingBox())!;
      const shown = (await preview.boundingBox())!;
      if (beside) expect(shown.x).toBeGreaterThan(list.x + list.width);
      else {
        const addField = (await page.getByRole("form", { name: "Add a field" }).boundingBox())!;
        expect(shown.y).toBeGreaterThan(addField.y + addField.height);
      }
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth)).toBe(true);
    }
    await page.context().close();
  });
});

describe.each([
  { javaScriptEnabled: true, label: "with JavaScript" },
  { javaScriptEnabled: false, label: "without JavaScript" },
])("the builder's steps and conditions $label (issue 31, item 9)", ({ javaScriptEnabled }) => {
  it("adds a field on a new step shown only for one answer, then moves it back to step 1", async () => {
    const formId = await newForm({
      name: `Steps ${javaScriptEnabled ? "JS" : "no JS"}`,
      fields: [
        { key: "email", label: "Email", type: "email", required: true },
        { key: "reason", label: "Reason", type: "select", options: ["sales", "support"] },
      ],
    });
    const page = await loggedInPage(javaScriptEnabled);
    await page.goto(`${server.url}/forms/${formId}/fields`);
    const add = page.getByRole("form", { name: "Add a field" });
    await add.getByLabel("Label", { exact: true }).fill("Company");
    await add.getByLabel("Step", { exact: true }).selectOption({ label: "A new step (2)" });
    await add.getByLabel("Show only if", { exact: true }).selectOption({ label: "Reason" });
    await add.getByLabel("Its answer", { exact: true }).selectOption("equals");
    await add.getByLabel("Value", { exact: true }).fill("sales");
    await add.getByRole("button", { name: "Add field" }).click();
    await fieldRow(page, "Company").waitFor();
    await expect
      .poll(async () => ((await storedForm(formId))!.fields as Array<Record<string, unknown>>).at(-1))
      .toMatchObject({ key: "company", step: 2, showIf: { field: "reason", equals: "sales" } });
    if (javaScriptEnabled) expect(await axeViolations(page)).toEqual([]);

    // The company's editor shows its step and condition; Step 1 moves it back and closes step 2.
    await fieldRow(page, "Company").getByText("Edit Company").click();
    const edit = page.getByRole("form", { name: "Edit field Company" });
    expect(await edit.getByLabel("Step", { exact: true }).inputValue()).toBe("2");
    expect(await edit.getByLabel("Value", { exact: true }).inputValue()).toBe("sales");
    await edit.getByLabel("Step", { exact: true }).selectOption("1");
    await edit.getByRole("button", { name: "Save field" }).click();
    await expect
      .poll(async () => ((await storedForm(formId))!.fields as Array<Record<string, unknown>>).at(-1))
      .toMatchObject({ key: "company", step: 1, showIf: { field: "reason", equals: "sales" } });
    await page.context().close();
  });
});
