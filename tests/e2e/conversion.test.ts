// Conversion by source in a real browser: visitors open the hosted form from two sources (and
// a customer's page with the embed script), one submits, and /leads/sources shows each
// source's views, leads and conversion rate change.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIN_SUBMIT_MS } from "~/capture/lead-signatures.server";
import { createOrResetUser } from "~/staff/user.server";
import { db } from "~/storage/db.server";
import { launchBrowser, logInAt } from "../support/browser";
import { newForm } from "../support/forms";
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
  formId = await newForm({
    name: "Demo request",
    fields: [
      { key: "name", label: "Your name", type: "text", required: true },
      { key: "email", label: "Email", type: "email", required: true },
    ],
  });
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

/** A visitor of their own: one browser with its own User-Agent (all share this machine's address). */
function newVisitor(version: number): Promise<BrowserContext> {
  return browser.newContext({ userAgent: VISITOR.replace("Chrome/124.0", `Chrome/${version}.0`) });
}

describe("conversion by source", () => {
  it("counts one view per visitor, and shows the conversion rate change after a submission", async () => {
    const staff = await browser.newContext();
    const staffPage = await staff.newPage();
    await logInAt(staffPage, server.url, "/leads/sources");

    // Ada opens the form twice within the window: one view (decision 039).
    const ada: BrowserContext = await newVisitor(124);
    await (await ada.newPage()).goto(`${server.url}/f/${formId}?utm_source=a`);
    await (await ada.newPage()).goto(`${server.url}/f/${formId}?utm_source=a`);
    await expectSources(staffPage, [["a", "1", "0", "0.0%"]]);

    const grace = await newVisitor(125);
    const second = await grace.newPage();
    await second.goto(`${server.url}/f/${formId}?utm_source=a`);
    await expectSources(staffPage, [["a", "2", "0", "0.0%"]]);
    await second.getByLabel("Your name").fill("Grace");
    await second.getByLabel("Email").fill("grace@example.com");
    await second.waitForTimeout(MIN_SUBMIT_MS);
    await second.getByRole("button", { name: "Send" }).click();
    await second.waitForURL((url) => url.pathname.endsWith("/thanks"));
    const lin = await newVisitor(126);
    await (await lin.newPage()).goto(`${server.url}/f/${formId}?utm_source=b`);
    await expectSources(staffPage, [
      ["a", "2", "1", "50.0%"],
      ["b", "1", "0", "0.0%"],
    ]);

    // A page of the customer's site with the embed script: one beacon, from another origin.
    // Loaded again within the window, the form still works and no second view is counted.
    const kai = await newVisitor(127);
    const embedded = await kai.newPage();
    for (let load = 0; load < 2; load++) {
      const beacon = embedded.waitForResponse((res) => res.url().endsWith(`/api/forms/${formId}/views`));
      await embedded.goto(`${siteUrl}/pricing?utm_source=c`);
      await embedded.locator("form[action]").waitFor();
      expect((await beacon).status()).toBe(204);
    }
    await expectSources(staffPage, [
      ["a", "2", "1", "50.0%"],
      ["b", "1", "0", "0.0%"],
      ["c", "1", "0", "0.0%"],
    ]);
    expect(await db.formView.findFirst({ where: { formId, utmSource: "c" }, select: { referrerHost: true } })).toEqual({
      referrerHost: "",
    });
    for (const context of [ada, grace, lin, kai, staff]) await context.close();
  }, 90_000);
});
