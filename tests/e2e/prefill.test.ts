// Prefill (issue 31, item 3) in Chromium: a link fills the hosted form's fields by key, hidden
// ones included, with JavaScript on and off; the embed fills a customer's form from its
// data-prefill attribute and the page's query string. What is sent is checked like anything typed.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIN_SUBMIT_MS } from "~/capture/lead-signatures.server";
import { db } from "~/storage/db.server";
import { launchBrowser } from "../support/browser";
import { newForm } from "../support/forms";
import { startServer, type TestServer } from "../support/server";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";

let server: TestServer;
let browser: Browser;
let site: http.Server;
let siteUrl: string;
let sitePage = "";

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer({ SUBMIT_RATE_LIMIT_PER_MINUTE: "0" }), launchBrowser()]);
  site = http.createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end(sitePage);
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  siteUrl = `http://localhost:${(site.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await new Promise((resolve) => site?.close(resolve));
});

const createForm = (settings: Record<string, unknown> = {}) =>
  newForm({
    name: "Prefilled",
    fields: [
      { key: "name", label: "Your name", type: "text", required: true },
      { key: "email", label: "Email", type: "email", required: true },
      { key: "plan", label: "Plan", type: "hidden" },
      { key: "size", label: "Team size", type: "select", options: ["1-10", "11-50"] },
      { key: "topics", label: "Topics", type: "multiselect", options: ["crm", "ads", "seo"] },
      { key: "newsletter", label: "Send me the newsletter", type: "checkbox" },
    ],
    settings,
  });

describe.each([
  { javaScriptEnabled: true, label: "with JavaScript" },
  { javaScriptEnabled: false, label: "without JavaScript" },
])("the hosted form $label", ({ javaScriptEnabled }) => {
  it("takes its fields' values from the link, and sends them as the visitor's own", async () => {
    const formId = await createForm();
    const context = await browser.newContext({ javaScriptEnabled });
    const page = await context.newPage();
    const query = "plan=pro&email=ada%40example.com&size=11-50&topics=crm&topics=seo&newsletter=yes&nokey=x";
    await page.goto(`${server.url}/f/${formId}?utm_source=partner&${query}`);
    await expect(page.getByLabel("Email").inputValue()).resolves.toBe("ada@example.com");
    await expect(page.getByLabel("Team size").inputValue()).resolves.toBe("11-50");
    await expect(page.getByLabel("Send me the newsletter").isChecked()).resolves.toBe(true);
    await expect(page.getByLabel("crm").isChecked()).resolves.toBe(true);
    await expect(page.getByLabel("ads").isChecked()).resolves.toBe(false);
    await expect(page.locator('input[type="hidden"][name="plan"]').inputValue()).resolves.toBe("pro");
    await expect(page.locator('[name="nokey"]').count()).resolves.toBe(0);

    await page.getByLabel("Your name").fill("Ada Lovelace");
    await page.waitForTimeout(MIN_SUBMIT_MS + 200);
    await page.getByRole("button", { name: "Send" }).click();
    await page.waitForURL(/\/thanks$/);
    const leads = await db.lead.findMany({ where: { formId } });
    expect(leads).toHaveLength(1);
    expect(leads[0]).toMatchObject({
      data: {
        name: "Ada Lovelace",
        email: "ada@example.com",
        plan: "pro",
        size: "11-50",
        topics: ["crm", "seo"],
        newsletter: true,
      },
      utmSource: "partner",
    });
    await context.close();
  });

  it("refuses a prefilled value the field does not take, as if typed", async () => {
    const formId = await createForm();
    const context = await browser.newContext({ javaScriptEnabled });
    const page = await context.newPage();
    await page.goto(`${server.url}/f/${formId}?email=not-an-address&size=500`);
    await expect(page.getByLabel("Email").inputValue()).resolves.toBe("not-an-address");
    // A value outside a select's options picks nothing.
    await expect(page.getByLabel("Team size").inputValue()).resolves.toBe("");
    await page.getByLabel("Your name").fill("Ada Lovelace");
    await page.waitForTimeout(MIN_SUBMIT_MS + 200);
    // The browser holds it back as it would a typed one.
    await page.getByRole("button", { name: "Send" }).click();
    await expect(page.getByLabel("Email").evaluate((input: HTMLInputElement) => input.validity.valid)).resolves.toBe(
      false,
    );
    // One the browser lets through, the server refuses, naming the field.
    await page.goto(`${server.url}/f/${formId}?email=grace%40localhost`);
    await page.getByLabel("Your name").fill("Grace Hopper");
    await page.waitForTimeout(MIN_SUBMIT_MS + 200);
    await page.getByRole("button", { name: "Send" }).click();
    await expect.poll(() => page.locator("form").textContent()).toContain("Enter a valid email address.");
    await expect(page.getByLabel("Email").inputValue()).resolves.toBe("grace@localhost");
    expect(await db.lead.count({ where: { formId } })).toBe(0);
    await context.close();
  });
});

describe("the embed on a customer's page", () => {
  it("fills fields from data-prefill and the page's query string, the attribute first, never the file or source fields", async () => {
    const formId = await createForm({ allowedOrigins: [siteUrl] });
    sitePage = `<!doctype html><html><head><title>Pricing</title></head><body>
      <form data-lead-form="${formId}" data-prefill="plan=business&amp;size=1-10">
        <input type="hidden" name="plan">
        <label>Your name <input name="name" required></label>
        <label>Email <input type="email" name="email" required></label>
        <label>Team size <select name="size"><option value="">Choose…</option><option>1-10</option><option>11-50</option></select></label>
        <label><input type="checkbox" name="topics" value="crm"> crm</label>
        <label><input type="checkbox" name="topics" value="ads"> ads</label>
        <label><input type="checkbox" name="newsletter"> Send me the newsletter</label>
        <label>Attachment <input type="file" name="brief"></label>
        <button type="submit">Send</button>
      </form>
      <script src="${server.url}/embed.js" defer></script></body></html>`;
    const context = await browser.newContext();
    const page = await context.newPage();
    const query =
      "plan=free&size=11-50&email=grace%40example.com&topics=ads&newsletter=true&utm_source=mail&brief=x&formId=other";
    await page.goto(`${siteUrl}/pricing?${query}`);
    await expect.poll(() => page.getByLabel("Email").inputValue()).toBe("grace@example.com");
    await expect(page.locator('input[name="plan"]').inputValue()).resolves.toBe("business");
    await expect(page.getByLabel("Team size").inputValue()).resolves.toBe("1-10");
    await expect(page.getByLabel("ads").isChecked()).resolves.toBe(true);
    await expect(page.getByLabel("crm").isChecked()).resolves.toBe(false);
    await expect(page.getByLabel("Send me the newsletter").isChecked()).resolves.toBe(true);
    await expect(page.locator('input[name="formId"]').inputValue()).resolves.toBe(formId);

    await page.getByLabel("Your name").fill("Grace Hopper");
    await page.getByRole("button", { name: "Send" }).click();
    await expect.poll(() => db.lead.count({ where: { formId } })).toBe(1);
    const lead = await db.lead.findFirstOrThrow({ where: { formId } });
    expect(lead).toMatchObject({
      data: { name: "Grace Hopper", email: "grace@example.com", plan: "business", size: "1-10", topics: ["ads"] },
      utmSource: "mail",
    });
    await context.close();
  });
});
