// A form in three steps in Chromium (issue 31, item 1), with JavaScript on and off: one step
// at a time with "Step n of m", Next checking the step, a condition that skips step 2, Back
// keeping what was typed, a later step's field prefilled from the link, and one lead at the
// end; axe-core finds nothing serious on a step. The embed shows the builder's snippet of a
// form in steps one step at a time too. Both send the drop-off funnel's beacons (the hosted
// page without JavaScript counts its steps on the server), which the sources page draws.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scriptSnippet } from "~/components/EmbedSnippet";
import { FieldsSchema } from "~/forms/schema/form-schema";
import { createOrResetUser } from "~/staff/user.server";
import { db } from "~/storage/db.server";
import { axeViolations } from "../support/axe";
import { launchBrowser, loggedInPage } from "../support/browser";
import { newForm, THREE_STEPS } from "../support/forms";
import { STAFF } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([
    startServer({ SUBMIT_RATE_LIMIT_PER_MINUTE: "0", FORM_VIEWS_FLUSH_MS: "200" }),
    launchBrowser(),
  ]);
  await createOrResetUser({ ...STAFF, role: "owner" });
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const { fields: FIELDS, settings: SETTINGS } = THREE_STEPS;

// Headless Chromium says "HeadlessChrome", which the view and funnel counters rightly take for a bot.
const VISITOR = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36";

const progress = (page: Page) => page.locator(".lc-progress").innerText();

/** The funnel's stored stages of a form: stage 0 is "started", n a step reached. */
const funnel = async (formId: string) =>
  (await db.formFunnel.findMany({ where: { formId }, orderBy: { stage: "asc" } })).map((row) => [
    row.stage,
    row.visitors,
  ]);

describe.each([
  { javaScriptEnabled: true, label: "with JavaScript" },
  { javaScriptEnabled: false, label: "without JavaScript" },
])("the hosted form in steps $label", ({ javaScriptEnabled }) => {
  it("goes one step at a time, skips the step its condition hides, keeps answers going back, and sends one lead", async () => {
    const formId = await newForm({ name: "Quote", fields: FIELDS, settings: SETTINGS });
    const page = await (await browser.newContext({ javaScriptEnabled, userAgent: VISITOR })).newPage();
    page.setDefaultTimeout(10_000);
    // The link prefills the hidden plan and the company, which is on step 2.
    await page.goto(`${server.url}/f/${formId}?plan=pro&company=Acme`);
    // Without JavaScript the company step counts until the server knows the reason; with it,
    // the count follows the answers as they are given.
    await expect.poll(() => progress(page)).toBe(javaScriptEnabled ? "Step 1 of 2: You" : "Step 1 of 3: You");
    if (javaScriptEnabled) expect(await axeViolations(page)).toEqual([]);

    // Next with a wrong address does not leave the step (the browser's own check, then the server's).
    await page.getByLabel("Email").fill("not-an-address");
    await page.getByLabel("Reason").selectOption("support");
    await page.getByRole("button", { name: "Next" }).click();
    expect(await progress(page)).toMatch(/^Step 1 of \d: You$/);

    // Support skips the company step: the next is the last of two.
    await page.getByLabel("Email").fill("ada@example.com");
    await page.getByRole("button", { name: "Next" }).click();
    await expect.poll(() => progress(page)).toBe("Step 2 of 2: Anything else");
    expect(await page.getByRole("textbox", { name: "Company" }).isVisible()).toBe(false);
    await page.getByLabel("Message").fill("Half typed");

    // Back to step 1, answers kept; sales now: the company step comes, prefilled by the link.
    await page.getByRole("button", { name: "Back" }).click();
    await expect.poll(() => progress(page)).toMatch(/^Step 1 of \d: You$/);
    expect(await page.getByLabel("Email").inputValue()).toBe("ada@example.com");
    await page.getByLabel("Reason").selectOption("sales");
    await page.getByRole("button", { name: "Next" }).click();
    await expect.poll(() => progress(page)).toBe("Step 2 of 3: Your company");
    expect(await page.getByRole("textbox", { name: "Company" }).inputValue()).toBe("Acme");
    if (javaScriptEnabled) expect(await axeViolations(page)).toEqual([]);
    await page.getByRole("button", { name: "Next" }).click();
    await expect.poll(() => progress(page)).toBe("Step 3 of 3: Anything else");
    expect(await page.getByLabel("Message").inputValue()).toBe("Half typed");
    if (!javaScriptEnabled) {
      // The browser's own Back shows the step before as it was left.
      await page.goBack();
      expect(await page.getByRole("textbox", { name: "Company" }).inputValue()).toBe("Acme");
      await page.goForward();
    }
    await page.getByLabel("Message").fill("Please send a quote");
    await page.getByRole("button", { name: "Send" }).click();
    await page.waitForURL(/\/thanks$/);

    const leads = await db.lead.findMany({ where: { formId } });
    expect(leads.map((lead) => lead.data)).toEqual([
      {
        plan: "pro",
        email: "ada@example.com",
        reason: "sales",
        company: "Acme",
        message: "Please send a quote",
        callMe: false,
      },
    ]);
    await page.context().close();

    // The funnel: one visitor started, reached step 3 (support), then step 2 and 3 again
    // (sales): each counted once. The sources page draws it, readable without JavaScript.
    await expect
      .poll(() => funnel(formId), { timeout: 10_000 })
      .toEqual([
        [0, 1],
        [2, 1],
        [3, 1],
      ]);
    const staff = await loggedInPage(browser, server.url, `/leads/sources?formId=${formId}`, { javaScriptEnabled });
    const row = staff.getByRole("table", { name: "Drop-off by source" }).getByRole("row").nth(1);
    expect(await row.locator('td[data-label="Started"]').innerText()).toMatch(/^1\b/);
    expect(await row.locator('td[data-label="Step 3"]').innerText()).toMatch(/^1\b/);
    expect(await row.locator('td[data-label="Sent"]').innerText()).toMatch(/^1\b/);
    if (javaScriptEnabled) expect(await axeViolations(staff)).toEqual([]);
    await staff.context().close();
  });
});

describe.each([
  { javaScriptEnabled: true, label: "with JavaScript" },
  { javaScriptEnabled: false, label: "without JavaScript" },
])("the embed with a form in steps $label", ({ javaScriptEnabled }) => {
  let site: http.Server;
  let page = "";
  afterAll(async () => {
    if (site) await new Promise((resolve) => site.close(resolve));
  });

  it("shows the snippet's steps one at a time (all at once without the script) and sends every answer", async () => {
    site = http.createServer((_req, res) => res.writeHead(200, { "Content-Type": "text/html" }).end(page));
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
    const siteUrl = `http://localhost:${(site.address() as AddressInfo).port}`;
    const fields = FieldsSchema.parse(FIELDS);
    const formId = await newForm({ name: "Embedded", fields, settings: { ...SETTINGS, allowedOrigins: [siteUrl] } });
    page = `<!doctype html><html lang="en"><head><title>Shop</title></head><body>
      ${scriptSnippet(formId, server.url, fields, { successMessage: "Thanks!", stepTitles: SETTINGS.stepTitles })}</body></html>`;
    const tab = await (await browser.newContext({ javaScriptEnabled, userAgent: VISITOR })).newPage();
    tab.setDefaultTimeout(10_000);
    // The page's own link prefills the email (with the script).
    await tab.goto(`${siteUrl}/?email=ada%40example.com`);
    if (javaScriptEnabled) {
      // Until a reason is chosen the company step is not on the way.
      await expect.poll(() => progress(tab)).toBe("Step 1 of 2: You");
      expect(await tab.getByLabel("Email").inputValue()).toBe("ada@example.com");
      expect(await tab.getByLabel("Message").isVisible()).toBe(false);
      expect(await tab.getByRole("button", { name: "Send" }).isVisible()).toBe(false);
      await tab.getByLabel("Reason").selectOption("sales");
      await expect.poll(() => progress(tab)).toBe("Step 1 of 3: You");
      await tab.getByLabel("Reason").selectOption("support");
      // Enter in a field of step 1 is Next, not a send; support skips the company step.
      await tab.getByLabel("Email").press("Enter");
      await expect.poll(() => progress(tab)).toBe("Step 2 of 2: Anything else");
      await tab.getByRole("button", { name: "Back" }).click();
      await expect.poll(() => progress(tab)).toBe("Step 1 of 2: You");
      await tab.getByRole("button", { name: "Next" }).click();
    } else {
      // Every step shows, as one form; the company is not required of the browser.
      await tab.getByLabel("Email").fill("ada@example.com");
      await tab.getByLabel("Reason").selectOption("support");
    }
    await tab.getByLabel("Message").fill("Steps in the embed");
    await tab.getByRole("button", { name: "Send" }).click();
    if (javaScriptEnabled) await tab.getByText("Thanks!").waitFor();
    else await tab.waitForURL(/\/thanks$/);
    const lead = await db.lead.findFirstOrThrow({ where: { formId } });
    expect(lead.data).toEqual({
      email: "ada@example.com",
      reason: "support",
      message: "Steps in the embed",
      callMe: false,
    });
    await tab.context().close();
    // The script's funnel: the first answer started it, Enter reached step 3 (twice: once counted).
    if (javaScriptEnabled) {
      await expect
        .poll(() => funnel(formId), { timeout: 10_000 })
        .toEqual([
          [0, 1],
          [3, 1],
        ]);
    }
  });
});
