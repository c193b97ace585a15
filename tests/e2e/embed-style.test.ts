// The embed code as the builder shows it, pasted into a page of another origin: /embed.css
// lays the form out one field per row and takes the site's theme through CSS variables, a
// required select starts on "Choose…", and the success message lands in an aria-live
// region. The hosted page wears the same stylesheet.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scriptSnippet } from "~/components/EmbedSnippet";
import { FieldsSchema, FormSettingsSchema } from "~/models/form-schema";
import { createOrResetUser } from "~/models/user.server";
import { db } from "~/utils/db.server";
import { launchBrowser, logInAt } from "../support/browser";
import { STAFF } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";

let server: TestServer;
let browser: Browser;
let site: http.Server;
let siteUrl: string;
let page = "";
let formId: string;

const fields = FieldsSchema.parse([
  { key: "name", label: "Your name", type: "text", required: true },
  { key: "email", label: "Email", type: "email", required: true },
  { key: "budget", label: "Budget", type: "select", required: true, options: ["Small", "Large"] },
  { key: "message", label: "Message", type: "textarea" },
]);

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  site = http.createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end(page);
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  siteUrl = `http://localhost:${(site.address() as AddressInfo).port}`;
  const form = await db.form.create({
    data: {
      name: "Quote",
      fields,
      settings: FormSettingsSchema.parse({ allowedOrigins: [siteUrl], successMessage: "Thanks, we will be in touch." }),
      schemaVersion: 1,
      versions: { create: { version: 1, fields } },
    },
    select: { id: true },
  });
  formId = form.id;
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await new Promise((resolve) => site?.close(resolve));
});

describe("the embed with its stylesheet", () => {
  it("serves /embed.css small, as CSS, cacheable", async () => {
    const response = await fetch(`${server.url}/embed.css`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/css/);
    expect(response.headers.get("cache-control")).toMatch(/max-age=\d+/);
    expect((await response.text()).length).toBeLessThan(4096);
  });

  it("lays out a pasted form one field per row, themed by the site, and announces its success", async () => {
    const code = scriptSnippet(formId, server.url, fields, "Thanks, we will be in touch.");
    page = `<!doctype html><html><head><title>Shop</title>
      <style>body { font-family: serif } .lc-form { --lc-accent: rgb(10, 125, 90); --lc-radius: 0px; }</style>
      </head><body><h1>Get a quote</h1>${code}</body></html>`;
    const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
    const tab = await context.newPage();
    await tab.goto(`${siteUrl}/quote`);

    // One field per row: each control starts below the previous one, at the same left edge.
    const boxes = [];
    for (const label of ["Your name", "Email", "Budget", "Message"])
      boxes.push((await tab.getByLabel(label).boundingBox())!);
    for (let i = 1; i < boxes.length; i++) {
      expect(boxes[i].y).toBeGreaterThanOrEqual(boxes[i - 1].y + boxes[i - 1].height);
      expect(boxes[i].x).toBe(boxes[0].x);
    }
    const send = tab.getByRole("button", { name: "Send" });
    expect(await send.evaluate((button) => getComputedStyle(button).backgroundColor)).toBe("rgb(10, 125, 90)");
    expect(await send.evaluate((button) => getComputedStyle(button).borderRadius)).toBe("0px");

    // The required select starts on its empty choice, so the browser refuses to send it.
    const budget = tab.getByLabel("Budget");
    expect(await budget.inputValue()).toBe("");
    await tab.getByLabel("Your name").fill("Ada Lovelace");
    await tab.getByLabel("Email").fill("ada@example.com");
    await send.click();
    expect(await budget.evaluate((select) => (select as HTMLSelectElement).validity.valueMissing)).toBe(true);
    expect(await db.lead.count({ where: { formId } })).toBe(0);

    // The status region is on the page before the message is written into it.
    const live = tab.locator('[aria-live="polite"][role="status"]');
    expect(await live.count()).toBe(1);
    expect(await live.textContent()).toBe("");
    await budget.selectOption("Large");
    await send.click();
    await expect.poll(() => live.textContent()).toBe("Thanks, we will be in touch.");
    expect(await db.lead.count({ where: { formId } })).toBe(1);
    await context.close();
  });

  it("gives the hosted page the same stylesheet and an empty first choice", async () => {
    const context = await browser.newContext();
    const tab = await context.newPage();
    await tab.goto(`${server.url}/f/${formId}`);
    expect(await tab.locator('link[rel="stylesheet"][href="/embed.css"]').count()).toBe(1);
    expect(await tab.locator("form.lc-form").count()).toBe(1);
    expect(await tab.getByLabel("Budget").inputValue()).toBe("");
    await context.close();
  });

  it("copies the embed code from the builder with one click", async () => {
    const context = await browser.newContext({ permissions: ["clipboard-read", "clipboard-write"] });
    const tab = await context.newPage();
    await createOrResetUser(STAFF);
    await logInAt(tab, server.url, `/forms/${formId}/share`);
    await tab.getByRole("button", { name: "Copy the embed code" }).click();
    await tab.getByText("Copied", { exact: true }).waitFor();
    const copied = await tab.evaluate(() => navigator.clipboard.readText());
    expect(copied).toContain(`<form class="lc-form" data-lead-form="${formId}"`);
    expect(copied).toBe(await tab.locator(".copyable code").first().textContent());
    await context.close();
  });
});
