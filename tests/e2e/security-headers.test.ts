import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrResetUser } from "~/staff/user.server";
import { launchBrowser, submitLogIn } from "../support/browser";
import { STAFF } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import type { Browser } from "playwright-core";

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  await createOrResetUser(STAFF);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("Content-Security-Policy in a real browser", () => {
  it("lets the app's own scripts run and hydrate the dashboard, with no violation reported", async () => {
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.goto(`${server.url}/login`);
    // Remix sets up its client router only when its inline and module scripts ran.
    // (page.evaluate, not waitForFunction: the latter needs eval, which this CSP forbids.)
    await expect
      .poll(() => page.evaluate(() => Boolean((window as unknown as { __remixRouter?: unknown }).__remixRouter)))
      .toBe(true);
    await submitLogIn(page);
    await page.getByRole("heading", { name: /Welcome/ }).waitFor();
    expect(violations).toEqual([]);
    await page.close();
  });

  it("blocks an injected inline script", async () => {
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.goto(`${server.url}/login`);
    await page.evaluate(() => {
      const script = document.createElement("script");
      script.textContent = "window.__injected = true";
      document.body.appendChild(script);
    });
    expect(await page.evaluate(() => (window as unknown as { __injected?: boolean }).__injected)).toBeUndefined();
    expect(violations.length).toBeGreaterThan(0);
    await page.close();
  });
});
