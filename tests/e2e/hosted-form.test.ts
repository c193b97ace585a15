import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIN_SUBMIT_MS } from "~/capture/lead-signatures.server";
import { db } from "~/storage/db.server";
import { launchBrowser } from "../support/browser";
import { newForm } from "../support/forms";
import { startServer, type TestServer } from "../support/server";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer({ SUBMIT_RATE_LIMIT_PER_MINUTE: "0" }), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const SUCCESS = "Thanks, we will call you back.";

const createForm = (settings: Record<string, unknown> = {}) =>
  newForm({
    name: "Call me back",
    fields: [
      { key: "name", label: "Your name", type: "text", required: true },
      { key: "email", label: "Email", type: "email", required: true },
      { key: "interests", label: "Interests", type: "multiselect", options: ["crm", "ads"] },
      { key: "newsletter", label: "Send me the newsletter", type: "checkbox" },
    ],
    settings: { successMessage: SUCCESS, ...settings },
  });

/** A person does not send a form the instant it appears (the hosted page's time-to-submit check). */
const likeAPerson = (page: Page) => page.waitForTimeout(MIN_SUBMIT_MS + 200);

describe.each([
  { javaScriptEnabled: true, label: "with JavaScript" },
  { javaScriptEnabled: false, label: "without JavaScript" },
])("the hosted form $label", ({ javaScriptEnabled }) => {
  it("shows a refused field, then takes the lead with its UTM values, landing page and referrer, and thanks the visitor", async () => {
    const formId = await createForm();
    const context = await browser.newContext({ javaScriptEnabled });
    const page = await context.newPage();
    const landing = `${server.url}/f/${formId}?utm_source=news&utm_campaign=spring`;
    await page.goto(landing, { referer: "https://news.example/articles/42" });
    await page.getByRole("heading", { name: "Call me back" }).waitFor();

    await page.getByLabel("Your name").fill("Ada Lovelace");
    // Passes the browser's own email check, not the server's (no top-level domain).
    await page.getByLabel("Email").fill("ada@localhost");
    await page.getByLabel("crm").check();
    await likeAPerson(page);
    await page.getByRole("button", { name: "Send" }).click();
    await expect.poll(() => page.locator("#lead-email-error").textContent()).toContain("Enter a valid email address.");
    await expect.poll(() => page.getByRole("alert").first().textContent()).toContain("correct the fields");
    expect(await db.lead.count({ where: { formId } })).toBe(0);

    // Without JavaScript the visitor came back through a redirect: what they typed waited
    // on the server (never in the URL) and is filled in again; with it, the fields never left.
    if (!javaScriptEnabled) {
      expect(page.url()).toMatch(/[?&]draft=/);
      for (const typed of ["Ada", "Lovelace", "localhost"]) expect(decodeURIComponent(page.url())).not.toContain(typed);
    }
    expect(await page.getByLabel("Your name").inputValue()).toBe("Ada Lovelace");
    expect(await page.getByLabel("Email").inputValue()).toBe("ada@localhost");
    expect(await page.getByLabel("crm").isChecked()).toBe(true);
    await page.getByLabel("Email").fill("ada@example.com");
    await page.getByLabel("Send me the newsletter").check();
    await likeAPerson(page);
    await page.getByRole("button", { name: "Send" }).click();
    await page.waitForURL(`${server.url}/f/${formId}/thanks`);
    await expect.poll(() => page.getByRole("status").textContent()).toBe(SUCCESS);

    const leads = await db.lead.findMany({ where: { formId } });
    expect(leads).toHaveLength(1);
    expect(leads[0]).toMatchObject({
      data: { name: "Ada Lovelace", email: "ada@example.com", interests: ["crm"], newsletter: true },
      utmSource: "news",
      utmCampaign: "spring",
      utmMedium: null,
      landingPageUrl: landing,
      referrerHost: "news.example",
      isSpam: false,
    });
    expect(leads[0].referrerUrl).toMatch(/^https:\/\/news\.example\//);
    expect(leads[0].userAgent).toMatch(/Chrome/);

    // Back from the thank-you page: no old errors, no field marked wrong; without JavaScript
    // (the refusal was a page of its own) the page says the answers were sent.
    await page.goBack();
    await page.getByRole("heading", { name: "Call me back" }).waitFor();
    expect(await page.getByText("correct the fields").count()).toBe(0);
    expect(await page.locator('[aria-invalid="true"]').count()).toBe(0);
    if (!javaScriptEnabled) {
      expect(await page.getByRole("status").textContent()).toContain("Your answers were sent");
    }
    await context.close();
  });
});

describe("a customer's own website", () => {
  let site: http.Server;
  let siteUrl: string;
  let pages: Record<string, string> = {};

  beforeAll(async () => {
    site = http.createServer((req, res) => {
      const body = pages[new URL(req.url ?? "/", "http://x").pathname];
      res.writeHead(body ? 200 : 404, { "Content-Type": "text/html; charset=utf-8" });
      res.end(body ?? "not found");
    });
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
    // Another host name than the app's 127.0.0.1: a cross-origin site.
    siteUrl = `http://localhost:${(site.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => site.close(resolve));
  });

  const shell = (content: string) =>
    `<!doctype html><html><head><title>Shop</title></head><body>${content}</body></html>`;

  it("sends its own form through the embed script with the visit's first-touch source, showing errors and then the success message", async () => {
    const formId = await createForm({ allowedOrigins: [siteUrl] });
    const form = `
      <form data-lead-form="${formId}" data-success-message="Thanks from the shop!">
        <label>Your name <input name="name" required></label>
        <label>Email <input type="email" name="email" required></label>
        <label><input type="checkbox" name="interests" value="ads"> ads</label>
        <button type="submit">Send</button>
      </form>
      <script src="${server.url}/embed.js" defer></script>`;
    pages = {
      "/landing": shell(
        `<h1>Welcome</h1><a href="/contact">Contact us</a><script src="${server.url}/embed.js" defer></script>`,
      ),
      "/contact": shell(`<h1>Contact</h1>${form}`),
    };
    const context = await browser.newContext();
    const page = await context.newPage();
    const landing = `${siteUrl}/landing?utm_source=ads&utm_medium=cpc&utm_content=banner`;
    await page.goto(landing, { referer: "https://search.example/" });
    await page.getByRole("link", { name: "Contact us" }).click();
    await page.getByRole("heading", { name: "Contact" }).waitFor();

    await page.getByLabel("Your name").fill("Grace Hopper");
    await page.getByLabel("Email").fill("grace@localhost");
    await page.getByLabel("ads").check();
    await page.getByRole("button", { name: "Send" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("invalid");
    await expect.poll(() => page.locator("form").textContent()).toContain("Enter a valid email address.");
    expect(await page.getByLabel("Email").getAttribute("aria-invalid")).toBe("true");
    expect(new URL(page.url()).pathname).toBe("/contact");

    await page.getByLabel("Email").fill("grace@example.com");
    await page.getByRole("button", { name: "Send" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Thanks from the shop!");
    expect(new URL(page.url()).pathname).toBe("/contact");

    const leads = await db.lead.findMany({ where: { formId } });
    expect(leads).toHaveLength(1);
    expect(leads[0]).toMatchObject({
      data: { name: "Grace Hopper", email: "grace@example.com", interests: ["ads"] },
      utmSource: "ads",
      utmMedium: "cpc",
      utmContent: "banner",
      utmCampaign: null,
      landingPageUrl: landing,
      referrerUrl: "https://search.example/",
      referrerHost: "search.example",
      isSpam: false,
    });
    await context.close();
  });

  it("sends a plain HTML form without JavaScript to the thank-you page", async () => {
    const formId = await createForm({ allowedOrigins: [siteUrl] });
    pages = {
      "/plain": shell(`
        <form method="post" action="${server.url}/api/leads/submit">
          <input type="hidden" name="formId" value="${formId}">
          <input type="hidden" name="utm_source" value="flyer">
          <label>Your name <input name="name" required></label>
          <label>Email <input type="email" name="email" required></label>
          <button type="submit">Send</button>
        </form>`),
    };
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${siteUrl}/plain`);
    await page.getByLabel("Your name").fill("Katherine Johnson");
    await page.getByLabel("Email").fill("katherine@example.com");
    await page.getByRole("button", { name: "Send" }).click();
    await page.waitForURL(`${server.url}/f/${formId}/thanks`);
    await expect.poll(() => page.getByRole("status").textContent()).toBe(SUCCESS);
    const [lead] = await db.lead.findMany({ where: { formId } });
    expect(lead).toMatchObject({
      data: { name: "Katherine Johnson", email: "katherine@example.com" },
      utmSource: "flyer",
    });
    // The posting page, as far as the browser's referrer policy tells it.
    expect(lead.landingPageUrl).toMatch(new RegExp(`^${siteUrl}/`));
    await context.close();
  });

  it("shows a visitor without JavaScript a page with a way back, not JSON, when the site is not allowed", async () => {
    const formId = await createForm({ allowedOrigins: ["https://only-this.example"] });
    pages = {
      "/elsewhere": shell(`
        <form method="post" action="${server.url}/api/leads/submit">
          <input type="hidden" name="formId" value="${formId}">
          <label>Your name <input name="name" required></label>
          <label>Email <input type="email" name="email" required></label>
          <button type="submit">Send</button>
        </form>`),
    };
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${siteUrl}/elsewhere`);
    await page.getByLabel("Your name").fill("Dorothy Vaughan");
    await page.getByLabel("Email").fill("dorothy@example.com");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("heading", { name: "Your submission was not accepted" }).waitFor();
    expect(await page.getByRole("alert").textContent()).toContain("does not accept submissions from this website");
    expect(await page.content()).not.toContain('"error"');
    // A card on the page's grey, as the hosted form, not a bare page of text.
    const main = page.getByRole("main");
    expect(await main.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe("rgb(255, 255, 255)");
    expect(await main.evaluate((el) => getComputedStyle(el).borderRadius)).toBe("10px");
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe("rgb(245, 246, 248)");
    await page.getByRole("link", { name: "Go back to the page you came from" }).click();
    await page.waitForURL((url) => url.origin === siteUrl);
    expect(await db.lead.count({ where: { formId } })).toBe(0);
    await context.close();
  });
});
