// The embed code as the builder shows it, pasted into a page of another origin: /embed.css
// lays the form out one field per row and takes the site's theme through CSS variables, a
// required select starts on "Choose…", and the success message lands in an aria-live
// region. The hosted page wears the same stylesheet.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scriptSnippet } from "~/components/EmbedSnippet";
import { FieldsSchema } from "~/forms/schema/form-schema";
import { createOrResetUser } from "~/staff/user.server";
import { db } from "~/storage/db.server";
import { launchBrowser, logInAt } from "../support/browser";
import { newForm } from "../support/forms";
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
/** Every address the site was asked for: a lead's values must never land in the site's URL. */
const siteRequests: string[] = [];

const fields = FieldsSchema.parse([
  { key: "name", label: "Your name", type: "text", required: true },
  { key: "email", label: "Email", type: "email", required: true },
  { key: "budget", label: "Budget", type: "select", required: true, options: ["Small", "Large"] },
  { key: "message", label: "Message", type: "textarea" },
]);

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  site = http.createServer((req, res) => {
    siteRequests.push(req.url ?? "");
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end(page);
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  siteUrl = `http://localhost:${(site.address() as AddressInfo).port}`;
  formId = await newForm({
    name: "Quote",
    fields,
    settings: { allowedOrigins: [siteUrl], successMessage: "Thanks, we will be in touch." },
  });
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  if (site) await new Promise((resolve) => site.close(resolve));
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
    const code = scriptSnippet(formId, server.url, fields, { successMessage: "Thanks, we will be in touch." });
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

  it("sends the lead of a visitor without JavaScript and shows the thank-you page, with nothing in the site's URL", async () => {
    const code = scriptSnippet(formId, server.url, fields, { successMessage: "Thanks, we will be in touch." });
    page = `<!doctype html><html lang="en"><head><title>Shop</title></head><body><h1>Get a quote</h1>${code}</body></html>`;
    const context = await browser.newContext({ javaScriptEnabled: false });
    const tab = await context.newPage();
    await tab.goto(`${siteUrl}/quote-nojs?utm_source=newsletter`);
    await tab.getByLabel("Your name").fill("No Script Nelly");
    await tab.getByLabel("Email").fill("nelly@noscript.example");
    await tab.getByLabel("Budget").selectOption("Small");
    // The honeypot stays off-screen without the stylesheet or the script.
    const trap = tab.locator('input[name="_hp"]');
    expect(await trap.count()).toBe(1);
    expect(await trap.isVisible()).toBe(true);
    expect((await trap.boundingBox())!.x).toBeLessThan(0);
    await tab.getByRole("button", { name: "Send" }).click();
    await tab.waitForURL(`${server.url}/f/${formId}/thanks`);
    await expect.poll(() => tab.getByRole("status").textContent()).toBe("Thanks, we will be in touch.");
    const leads = (await db.lead.findMany({ where: { formId } })).filter(
      (lead) => (lead.data as Record<string, unknown>).email === "nelly@noscript.example",
    );
    expect(leads).toHaveLength(1);
    expect(leads[0].data).toMatchObject({ name: "No Script Nelly", budget: "Small" });
    expect(siteRequests.filter((url) => url.includes("nelly"))).toEqual([]);
    await context.close();
  });

  it("marks the required fields of the embed code as the hosted page does", () => {
    const code = scriptSnippet(formId, server.url, fields);
    expect(code).toContain(`Your name <span aria-hidden="true">*</span> <input type="text" name="name" required>`);
    expect(code).toContain(`<label>Message <textarea name="message"></textarea></label>`);
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
    // The server's APP_URL names the submit endpoint (this test server leaves it unset).
    expect(copied).toMatch(
      new RegExp(`<form class="lc-form" method="post" action="[^"]+/api/leads/submit" data-lead-form="${formId}"`),
    );
    expect(copied).toBe(await tab.locator(".copyable code").first().textContent());
    await context.close();
  });
});
