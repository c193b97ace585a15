// The branding page with JavaScript on: an owner names the company, picks a colour and
// uploads a logo, and the hosted form shows them.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, pageWithSession } from "../support/browser";
import { loginAsStaff } from "../support/http";
import { createForm, field } from "../support/leads";
import { startServer, type TestServer } from "../support/server";
import type { Browser } from "playwright-core";

const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

let server: TestServer;
let browser: Browser;
let cookie: string;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  cookie = await loginAsStaff(server.url);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("/settings/branding with JavaScript", () => {
  it("saves a name, colour and uploaded logo that the hosted form then shows", async () => {
    const logoFile = path.join(os.tmpdir(), `brand-logo-${process.pid}.png`);
    fs.writeFileSync(logoFile, PNG);
    const form = await createForm("Branded form", [[field("email", "Email", "email")]]);
    const page = await pageWithSession(browser, server.url, cookie);

    await page.goto(`${server.url}/settings/branding`);
    await page.getByLabel("Company name").fill("Northwind Traders");
    await page.getByLabel(/^Accent colour/).fill("#7a1f5c");
    await page.getByLabel(/^Logo/).setInputFiles(logoFile);
    await page.getByRole("button", { name: "Save the branding" }).click();
    await page.getByRole("status").filter({ hasText: "The branding was saved." }).waitFor();
    await page.getByRole("img", { name: "The current logo" }).waitFor();

    await page.goto(`${server.url}/f/${form.id}`);
    expect(await page.locator(".brand-name").textContent()).toBe("Northwind Traders");
    const logo = page.locator(".brand-logo");
    await expect.poll(() => logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);
    const button = page.getByRole("button", { name: /submit|send/i }).first();
    expect(await button.evaluate((element) => getComputedStyle(element).backgroundColor)).toBe("rgb(122, 31, 92)");
    await page.context().close();
    fs.rmSync(logoFile, { force: true });
  });
});
