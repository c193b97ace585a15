// Conversion by source in a real browser: visitors open the hosted form from two sources (and
// a customer's page with the embed script), one submits, and /leads/sources shows each
// source's views, leads and conversion rate change.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FieldsSchema, FormSettingsSchema } from "~/models/form-schema";
import { MIN_SUBMIT_MS } from "~/models/lead-signatures.server";
import { createOrResetUser } from "~/models/user.server";
import { db } from "~/utils/db.server";
import { launchBrowser, logInAt } from "../support/browser";
import { STAFF } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import type { AddressInfo } from "node:net";
import type { Browser, BrowserContext, Page } from "playwright-core";

// Headless Chromium says "HeadlessChrome", which isbot rightly takes for a bot.
const VISITOR = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36";

let server: TestServer;
let browser: Browser;
let site: http.Server;
let siteUrl: string;
let formId: string;

beforeAll(async () => {
  [server, browser] = await Promise.all([
    startServer({ SUBMIT_RATE_LIMIT_PER_MINUTE: "0", FORM_VIEWS_FLUSH_MS: "100" }),
    launchBrowser(),
  ]);
  await createOrResetUser(STAFF);
  const fields = FieldsSchema.parse([
    { key: "name", label: "Your name", type: "text", required: true },
    { key: "email", label: "Email", type: "email", required: true },
  ]);
  formId = (
    await db.form.create({
      data: {
        name: "Demo request",
        fields,
        settings: FormSettingsSchema.parse({}),
        schemaVersion: 1,
        versions: { create: { version: 1, fields } },
      },
      select: { id: true },
    })
  ).id;
  // A customer's site on another origin, carrying the form through the embed script.
  site = http.createServer((_, res) => {
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end(`<!doctype html><title>Customer site</title><h1>Pricing</h1>
      <form data-lead-form="${formId}"><input name="email"><button>Send</button></form>
      <script src="${server.url}/embed.js"></script>`);
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  siteUrl = `http://localhost:${(site.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  site?.close();
});

/** The utm_source table of /leads/sources, reloaded until it shows `expected`. */
async function expectSources(page: Page, expected: string[][]) {
  const path = `/leads/sources?formId=${formId}`;
  await expect
    .poll(
      async () => {
        await page.goto(`${server.url}${path}`);
        const rows = page.getByRole("table", { name: "By utm_source" }).locator("tbody tr");
        return (await rows.all()).length === 0
          ? []
          : await rows.evaluateAll((trs) =>
              trs.map((tr) => [...tr.querySelectorAll("th, td")].map((cell) => cell.textContent?.trim() ?? "")),
            );
      },
      { timeout: 10_000, interval: 300 },
    )
    .toEqual(expected);
}

describe("conversion by source", () => {
  it("counts views per source and shows the conversion rate change after a submission", async () => {
    const staff = await browser.newContext();
    const staffPage = await staff.newPage();
    await logInAt(staffPage, server.url, "/leads/sources");

    const visitor: BrowserContext = await browser.newContext({ userAgent: VISITOR });
    const first = await visitor.newPage();
    await first.goto(`${server.url}/f/${formId}?utm_source=a`);
    const second = await visitor.newPage();
    await second.goto(`${server.url}/f/${formId}?utm_source=a`);
    await expectSources(staffPage, [["a", "2", "0", "0.0%"]]);

    await second.getByLabel("Your name").fill("Ada");
    await second.getByLabel("Email").fill("ada@example.com");
    await second.waitForTimeout(MIN_SUBMIT_MS);
    await second.getByRole("button", { name: "Send" }).click();
    await second.waitForURL((url) => url.pathname.endsWith("/thanks"));
    const other = await visitor.newPage();
    await other.goto(`${server.url}/f/${formId}?utm_source=b`);
    await expectSources(staffPage, [
      ["a", "2", "1", "50.0%"],
      ["b", "1", "0", "0.0%"],
    ]);

    // A page of the customer's site with the embed script: one beacon, from another origin.
    const embedded = await visitor.newPage();
    await embedded.goto(`${siteUrl}/pricing?utm_source=c`);
    await embedded.locator("form[action]").waitFor();
    await expectSources(staffPage, [
      ["a", "2", "1", "50.0%"],
      ["b", "1", "0", "0.0%"],
      ["c", "1", "0", "0.0%"],
    ]);
    expect(await db.formView.findFirst({ where: { formId, utmSource: "c" }, select: { referrerHost: true } })).toEqual({
      referrerHost: "",
    });
    await visitor.close();
    await staff.close();
  }, 90_000);
});
