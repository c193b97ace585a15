// Conditional fields on the hosted form in Chromium (issue 31, item 2): with JavaScript a field
// shows once the answer before it calls for it, and a hidden one is not sent; without
// JavaScript every field shows and the server drops what the conditions hide.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIN_SUBMIT_MS } from "~/capture/lead-signatures.server";
import { db } from "~/storage/db.server";
import { launchBrowser } from "../support/browser";
import { newForm } from "../support/forms";
import { startServer, type TestServer } from "../support/server";
import type { Browser } from "playwright-core";

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer({ SUBMIT_RATE_LIMIT_PER_MINUTE: "0" }), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const routedForm = () =>
  newForm({
    name: "Routed",
    fields: [
      { key: "email", label: "Email", type: "email", required: true },
      { key: "reason", label: "Reason", type: "select", options: ["sales", "support"], required: true },
      { key: "company", label: "Company", type: "text", required: true, showIf: { field: "reason", equals: "sales" } },
      { key: "callMe", label: "Call me back", type: "checkbox" },
      { key: "phone", label: "Phone", type: "tel", required: true, showIf: { field: "callMe", equals: true } },
    ],
  });

describe("the hosted form", () => {
  it("with JavaScript shows a field when the answer before it calls for it, and sends only what shows", async () => {
    const formId = await routedForm();
    const page = await browser.newPage();
    await page.goto(`${server.url}/f/${formId}`);
    const company = page.getByLabel("Company");
    const phone = page.getByLabel("Phone");
    await expect.poll(() => company.isVisible()).toBe(false);
    expect(await phone.isVisible()).toBe(false);

    await page.getByLabel("Email").fill("ada@example.com");
    await page.getByLabel("Reason").selectOption("sales");
    await expect.poll(() => company.isVisible()).toBe(true);
    await company.fill("Acme");
    await page.getByLabel("Call me back").check();
    await expect.poll(() => phone.isVisible()).toBe(true);
    await phone.fill("+44 20 7946 0000");
    // Changing one's mind hides the phone again; what was typed there is not sent.
    await page.getByLabel("Call me back").uncheck();
    await expect.poll(() => phone.isVisible()).toBe(false);

    await page.waitForTimeout(MIN_SUBMIT_MS + 200);
    await page.getByRole("button", { name: "Send" }).click();
    await page.waitForURL(/\/thanks$/);
    const lead = await db.lead.findFirstOrThrow({ where: { formId } });
    expect(lead.data).toEqual({ email: "ada@example.com", reason: "sales", company: "Acme", callMe: false });
    await page.close();
  });

  it("without JavaScript shows every field, and the server keeps only what the answers call for", async () => {
    const formId = await routedForm();
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${server.url}/f/${formId}`);
    expect(await page.getByLabel("Company").isVisible()).toBe(true);
    expect(await page.getByLabel("Phone").isVisible()).toBe(true);
    await page.getByLabel("Email").fill("grace@example.com");
    await page.getByLabel("Reason").selectOption("support");
    await page.getByLabel("Company").fill("Not asked for support");
    await page.waitForTimeout(MIN_SUBMIT_MS + 200);
    await page.getByRole("button", { name: "Send" }).click();
    await page.waitForURL(/\/thanks$/);
    const lead = await db.lead.findFirstOrThrow({ where: { formId } });
    expect(lead.data).toEqual({ email: "grace@example.com", reason: "support", callMe: false });
    await context.close();
  });
});
