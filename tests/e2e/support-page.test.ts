import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { launchBrowser } from "../support/browser";
import { startServer, type TestServer } from "../support/server";
import type { Browser } from "playwright-core";

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer({ SUPPORT_RATE_LIMIT_PER_HOUR: "0" }), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("opening a support request on /support/new without JavaScript", () => {
  it("keeps what was typed after a mistake, then shows the reference", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${server.url}/support/new`);
    await page.getByLabel("Your email").fill("browser@example");
    await page.getByLabel("Subject").fill("Export button missing");
    await page.getByLabel("How can we help?").fill("I cannot find the export button.");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByText("Please correct the fields marked below.").waitFor();
    expect(await page.getByLabel("Subject").inputValue()).toBe("Export button missing");
    expect(await page.getByLabel("How can we help?").inputValue()).toBe("I cannot find the export button.");

    await page.getByLabel("Your email").fill("browser@example.com");
    // A person takes a few seconds; a post faster than that is treated as a bot's.
    await page.waitForTimeout(3_100);
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("heading", { name: "We have your request" }).waitFor();
    const reference = await page.locator("strong").first().textContent();
    expect(await db.ticket.count({ where: { reference: reference ?? "", email: "browser@example.com" } })).toBe(1);
    await context.close();
  });
});
