// A file field on the hosted form in Chromium (issue 31 item 4, decision 064), with JavaScript
// on and off: a file over the field's limit is refused with its message beside the field (what
// was typed kept), a small one goes with the lead, and staff download it from the lead page
// byte for byte. Without JavaScript, a form in steps carries its file from the last step. The
// embed code pasted on another site sends the file too, with the script and without it.
import fs from "node:fs/promises";
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIN_SUBMIT_MS } from "~/capture/lead-signatures.server";
import { scriptSnippet } from "~/components/EmbedSnippet";
import { FieldsSchema } from "~/forms/schema/form-schema";
import { db } from "~/storage/db.server";
import { launchBrowser, pageWithSession } from "../support/browser";
import { newForm } from "../support/forms";
import { loginAsStaff } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import { pngBytes } from "../support/uploads";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";

let server: TestServer;
let browser: Browser;
let cookie: string;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer({ SUBMIT_RATE_LIMIT_PER_MINUTE: "0" }), launchBrowser()]);
  cookie = await loginAsStaff(server.url);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const KiB = 1024;
const TOO_LARGE = "big.png is too large: choose a file of at most 1 MB.";
const fileField = { key: "scan", label: "Scan", type: "file", accept: [".png"], maxSizeMb: 1, required: true };

/** A person does not send a form the instant it appears (the hosted page's time-to-submit check). */
const likeAPerson = (page: Page) => page.waitForTimeout(MIN_SUBMIT_MS + 200);
const png = (name: string, size: number) => ({ name, mimeType: "image/png", buffer: pngBytes(size) });

/** Runs `test` against another website (at localhost) whose one page is what `serve` was last given. */
async function onSite(test: (siteUrl: string, serve: (html: string) => void) => Promise<void>): Promise<void> {
  let html = "";
  const site = http.createServer((_req, res) => res.writeHead(200, { "Content-Type": "text/html" }).end(html));
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  try {
    await test(`http://localhost:${(site.address() as AddressInfo).port}`, (page) => (html = page));
  } finally {
    await new Promise((resolve) => site.close(resolve));
  }
}

/** The stored lead's file, downloaded from its lead page as staff would. */
async function downloadFromLeadPage(formId: string): Promise<Buffer> {
  const lead = await db.lead.findFirstOrThrow({ where: { formId }, select: { id: true } });
  const staff = await pageWithSession(browser, server.url, cookie);
  await staff.goto(`${server.url}/leads/${lead.id}`);
  const [download] = await Promise.all([
    staff.waitForEvent("download"),
    staff.getByRole("link", { name: "small.png" }).click(),
  ]);
  const bytes = await fs.readFile((await download.path())!);
  await staff.context().close();
  return bytes;
}

describe.each([
  { javaScriptEnabled: true, label: "with JavaScript" },
  { javaScriptEnabled: false, label: "without JavaScript" },
])("a file field on the hosted form $label", ({ javaScriptEnabled }) => {
  it("refuses a file over the field's limit with its message, then sends a small one with the lead, downloadable from the lead page", async () => {
    const formId = await newForm({
      name: "Send a scan",
      fields: [{ key: "name", label: "Your name", type: "text", required: true }, fileField],
    });
    const page = await (await browser.newContext({ javaScriptEnabled })).newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${server.url}/f/${formId}`);
    await page.getByLabel("Your name").fill("Ada Upload");
    await page.locator("input[name=scan]").setInputFiles(png("big.png", 1200 * KiB));
    await likeAPerson(page);
    await page.getByRole("button", { name: "Send" }).click();
    await expect.poll(() => page.getByText(TOO_LARGE).count()).toBe(1);
    // Without JavaScript the page came back from the server, with the name it was sent.
    expect(await page.getByLabel("Your name").inputValue()).toBe("Ada Upload");
    expect(await db.lead.count({ where: { formId } })).toBe(0);
    expect(await db.leadFile.count({ where: { filename: "big.png" } })).toBe(0);

    const small = png("small.png", 3 * KiB);
    await page.locator("input[name=scan]").setInputFiles(small);
    await page.getByRole("button", { name: "Send" }).click();
    await page.waitForURL(`${server.url}/f/${formId}/thanks`);
    expect(await downloadFromLeadPage(formId)).toEqual(small.buffer);
  });
});

describe("a file field on the last step of a form in steps, without JavaScript", () => {
  it("goes through the steps as posts and sends the file with the last one", async () => {
    const formId = await newForm({
      name: "Apply",
      fields: [
        { key: "name", label: "Your name", type: "text", required: true },
        { ...fileField, step: 2 },
      ],
      settings: { stepTitles: ["You", "Your scan"] },
    });
    const page = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${server.url}/f/${formId}`);
    await page.getByLabel("Your name").fill("Stepping Sam");
    await page.getByRole("button", { name: "Next" }).click();
    await expect.poll(() => page.locator(".lc-progress").innerText()).toBe("Step 2 of 2: Your scan");
    const small = png("small.png", 2 * KiB);
    await page.locator("input[name=scan]").setInputFiles(small);
    await likeAPerson(page);
    await page.getByRole("button", { name: "Send" }).click();
    await page.waitForURL(`${server.url}/f/${formId}/thanks`);
    const lead = await db.lead.findFirstOrThrow({ where: { formId }, select: { data: true } });
    expect(lead.data).toMatchObject({ name: "Stepping Sam", scan: ["small.png"] });
    expect(await downloadFromLeadPage(formId)).toEqual(small.buffer);
  });
});

describe.each([
  { javaScriptEnabled: true, label: "with JavaScript" },
  { javaScriptEnabled: false, label: "without JavaScript" },
])("a file field in the embed code pasted on another site, $label", ({ javaScriptEnabled }) => {
  it("sends the file with the lead (a multipart post, even without the script)", async () => {
    await onSite(async (siteUrl, serve) => {
      const fields = FieldsSchema.parse([{ key: "name", label: "Your name", type: "text", required: true }, fileField]);
      const formId = await newForm({ name: "Embedded scan", fields, settings: { allowedOrigins: [siteUrl] } });
      serve(`<!doctype html><html lang="en"><head><title>Shop</title></head><body>
        ${scriptSnippet(formId, server.url, fields, { successMessage: "Thanks!" })}</body></html>`);
      const page = await (await browser.newContext({ javaScriptEnabled })).newPage();
      page.setDefaultTimeout(10_000);
      await page.goto(siteUrl);
      expect(await page.locator("input[name=scan]").getAttribute("accept")).toBe(".png");
      await page.getByLabel("Your name").fill("Embedded Eve");
      const small = png("small.png", 4 * KiB);
      await page.locator("input[name=scan]").setInputFiles(small);
      await page.getByRole("button", { name: "Send" }).click();
      if (javaScriptEnabled) await page.getByText("Thanks!").waitFor();
      else await page.waitForURL(/\/thanks$/);
      await page.context().close();
      const lead = await db.lead.findFirstOrThrow({ where: { formId }, select: { data: true } });
      expect(lead.data).toMatchObject({ name: "Embedded Eve", scan: ["small.png"] });
      expect(await downloadFromLeadPage(formId)).toEqual(small.buffer);
    });
  });
});

describe("a site's own form with a file input and only data-lead-form", () => {
  it("sends the file through the script, which puts the form's id before the file", async () => {
    await onSite(async (siteUrl, serve) => {
      const fields = FieldsSchema.parse([{ key: "name", label: "Your name", type: "text", required: true }, fileField]);
      const formId = await newForm({ name: "Own form scan", fields, settings: { allowedOrigins: [siteUrl] } });
      serve(`<!doctype html><html lang="en"><head><title>Shop</title></head><body>
        <form data-lead-form="${formId}" data-success-message="Got it!" enctype="multipart/form-data">
          <label>Your name <input name="name" required></label>
          <label>Scan <input type="file" name="scan" accept=".png"></label>
          <button type="submit">Send</button>
        </form>
        <script src="${server.url}/embed.js" defer></script></body></html>`);
      const page = await (await browser.newContext()).newPage();
      page.setDefaultTimeout(10_000);
      await page.goto(siteUrl);
      await page.getByLabel("Your name").fill("Own Olga");
      const small = png("small.png", 4 * KiB);
      await page.getByLabel("Scan").setInputFiles(small);
      await page.getByRole("button", { name: "Send" }).click();
      await page.getByText("Got it!").waitFor();
      await page.context().close();
      const lead = await db.lead.findFirstOrThrow({ where: { formId }, select: { data: true } });
      expect(lead.data).toMatchObject({ name: "Own Olga", scan: ["small.png"] });
      expect(await downloadFromLeadPage(formId)).toEqual(small.buffer);
    });
  });
});
