// The small things a new customer notices (issue 35), checked where the browser draws them:
// themed fieldsets, a button in line with the inputs beside it, a webhook form that keeps
// its choice after a create, a hosted form clear of a phone's edges, an embed banner no
// wider than its form, and notes in the body font.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrResetUser } from "~/staff/user.server";
import { launchBrowser, logInAt } from "../support/browser";
import { STAFF, apiClient, loginAsStaff } from "../support/http";
import { createForm, createLeads, field } from "../support/leads";
import { startServer, type TestServer } from "../support/server";
import type { Browser, BrowserContext, Page } from "playwright-core";

let server: TestServer;
let browser: Browser;
let staff: BrowserContext;
let formId: string;
let leadId: string;

beforeAll(async () => {
  [server, browser] = await Promise.all([
    startServer({ WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE: "true" }),
    launchBrowser(),
  ]);
  await createOrResetUser(STAFF);
  const form = await createForm("Contact us", [[field("name", "Name"), field("email", "Email", "email")]]);
  formId = form.id;
  await createLeads(formId, [{ data: { name: "Ada Lovelace", email: "ada@example.com" } }]);
  const api = apiClient(server.url, await loginAsStaff(server.url));
  leadId = (await api("GET", `/api/leads?formId=${formId}`)).body.leads[0].id;
  await api("POST", `/api/leads/${leadId}/notes`, { body: "Called back,\nwants a demo." });
  staff = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await logInAt(await staff.newPage(), server.url, "/forms");
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function open(path: string, context = staff): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${server.url}${path}`);
  return page;
}

const box = async (page: Page, selector: string) => (await page.locator(selector).first().boundingBox())!;

describe("polish a new customer sees", () => {
  it("draws the Notifications 'When' box with the theme's line, not the browser's grey groove", async () => {
    const page = await open(`/forms/${formId}/notifications`);
    const border = await page
      .locator("fieldset", { has: page.locator("legend", { hasText: "When" }) })
      .evaluate((element) => getComputedStyle(element).border);
    expect(border).toBe("1px solid rgb(221, 225, 232)");
  });

  it("puts 'Create form' after the choice of template, lined up with the inputs", async () => {
    const page = await open("/forms");
    const input = await box(page, "#new-form-name");
    const choices = await box(page, "fieldset:has(legend:has-text('Start from'))");
    const button = await box(page, "button:has-text('Create form')");
    expect(button.y).toBeGreaterThanOrEqual(choices.y + choices.height);
    expect(button.x).toBeCloseTo(input.x, 0);
    await page.setViewportSize({ width: 390, height: 800 });
    const narrowInput = await box(page, "#new-form-name");
    const narrowButton = await box(page, "button:has-text('Create form')");
    expect(narrowButton.x).toBeCloseTo(narrowInput.x, 0);
    await page.close();
  });

  for (const javaScriptEnabled of [true, false]) {
    it(`keeps the webhook's chosen form after creating an endpoint (JavaScript ${javaScriptEnabled ? "on" : "off"})`, async () => {
      const context = await browser.newContext({ javaScriptEnabled, storageState: await staff.storageState() });
      const page = await open("/settings/webhooks", context);
      await page.getByLabel("URL").fill(`http://127.0.0.1:9/${javaScriptEnabled ? "js" : "nojs"}`);
      await page.getByLabel("Form").selectOption({ label: "Contact us" });
      await page.getByRole("button", { name: "Add endpoint" }).click();
      await page.getByText("Endpoint created:", { exact: false }).first().waitFor();
      const select = page.getByLabel("Form");
      expect(await select.evaluate((element: HTMLSelectElement) => element.selectedOptions[0]?.text)).toBe(
        "Contact us",
      );
      await context.close();
    });
  }

  it("keeps the hosted form's card clear of a phone's edges", async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await open(`/f/${formId}`, context);
    const card = await box(page, "main.hosted-form");
    expect(card.x).toBeGreaterThanOrEqual(12);
    expect(390 - (card.x + card.width)).toBeGreaterThanOrEqual(12);
    await context.close();
  });

  it("makes the embed's thank-you banner no wider than its form", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.setContent(`<!doctype html><link rel="stylesheet" href="${server.url}/embed.css">
      <p class="lead-capture-status lead-capture-success" role="status">Thanks, we will be in touch.</p>
      <form class="lc-form"><label>Name <input name="name"></label></form>`);
    await page.waitForFunction(() => getComputedStyle(document.querySelector("form")!).display === "grid");
    const banner = await box(page, ".lead-capture-success");
    const form = await box(page, "form.lc-form");
    expect(banner.width).toBeLessThanOrEqual(form.width);
    await page.close();
  });

  it("shows a lead's notes in the body font, line breaks kept", async () => {
    const page = await open(`/leads/${leadId}`);
    const note = page.getByText("Called back,", { exact: false });
    const [noteFont, bodyFont, whiteSpace] = await note.evaluate((element) => [
      getComputedStyle(element).fontFamily,
      getComputedStyle(document.body).fontFamily,
      getComputedStyle(element).whiteSpace,
    ]);
    expect(noteFont).toBe(bodyFont);
    expect(whiteSpace).toBe("pre-wrap");
  });
});
