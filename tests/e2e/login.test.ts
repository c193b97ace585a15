import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrResetUser } from "~/models/user.server";
import { launchBrowser } from "../support/browser";
import { STAFF } from "../support/http";
import { startServer, type TestServer } from "../support/server";

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

describe.each([
  { javaScriptEnabled: true, label: "with JavaScript" },
  { javaScriptEnabled: false, label: "without JavaScript" },
])("logging in $label", ({ javaScriptEnabled }) => {
  it("shows an error for a wrong password, then reaches the dashboard", async () => {
    const context = await browser.newContext({ javaScriptEnabled });
    const page = await context.newPage();
    await page.goto(`${server.url}/`);
    expect(new URL(page.url()).pathname).toBe("/login");

    await page.getByLabel("Email").fill(STAFF.email);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Log in" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("Invalid email or password");

    await page.getByLabel("Password").fill(STAFF.password);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: `Welcome, ${STAFF.email}` }).waitFor();
    expect(await page.getByRole("navigation", { name: "Main" }).textContent()).toContain("Leads");

    await page.getByRole("button", { name: "Log out" }).click();
    await page.getByRole("heading", { name: "Log in" }).waitFor();
    await context.close();
  });
});
