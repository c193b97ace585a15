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

  it.each([
    "/\t/evil.example",
    "/\n/evil.example",
    "//evil.example",
    "/\\evil.example",
    "https://evil.example/",
    "/%09/evil.example",
  ])("stays on this site after logging in with redirectTo=%j", async (redirectTo) => {
    const context = await browser.newContext({ javaScriptEnabled });
    const page = await context.newPage();
    await page.goto(`${server.url}/login?${new URLSearchParams({ redirectTo })}`);
    await submitLogIn(page);
    await page.waitForURL((url) => url.pathname !== "/login");
    expect(new URL(page.url()).origin).toBe(new URL(server.url).origin);
    // Only a path of ours that was asked for is kept ("/%09/evil.example" is one: it 404s here).
    expect(["/", "/%09/evil.example"]).toContain(new URL(page.url()).pathname);
    await context.close();
  });

  it("changes the password on /account and ends the other session", async () => {
    const user = { email: `account-${javaScriptEnabled}@example.com`, password: "first password 123" };
    await createOrResetUser(user);
    const other = await browser.newContext({ javaScriptEnabled });
    const context = await browser.newContext({ javaScriptEnabled });
    for (const ctx of [other, context]) {
      const page = await ctx.newPage();
      await page.goto(`${server.url}/login`);
      await submitLogIn(page, user);
      await page.getByRole("heading", { name: `Welcome, ${user.email}` }).waitFor();
    }
    const page = context.pages()[0];
    await page.getByRole("link", { name: user.email }).click();
    await page.getByRole("heading", { name: "Your account" }).waitFor();
    expect(await page.getByRole("table").textContent()).toContain("(this device)");

    await page.getByLabel("Current password").fill("wrong password 000");
    await page.getByLabel("New password (12 characters or more)").fill("second password 456");
    await page.getByLabel("New password again").fill("second password 456");
    await page.getByRole("button", { name: "Change password" }).click();
    await expect.poll(() => page.getByText("That is not your current password.").count()).toBe(1);

    await page.getByLabel("Current password").fill(user.password);
    await page.getByLabel("New password (12 characters or more)").fill("second password 456");
    await page.getByLabel("New password again").fill("second password 456");
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByText("Your password was changed.").waitFor();

    // The other browser's session has ended: its next page asks it to log in.
    const stale = other.pages()[0];
    await stale.goto(`${server.url}/leads`);
    expect(new URL(stale.url()).pathname).toBe("/login");
    await Promise.all([context.close(), other.close()]);
  });

  it("checks the new password with the server's schema: in the browser before sending, and on the server without JavaScript", async () => {
    const user = { email: `schema-${javaScriptEnabled}@example.com`, password: "first password 123" };
    await createOrResetUser(user);
    const context = await browser.newContext({ javaScriptEnabled });
    const page = await context.newPage();
    await page.goto(`${server.url}/login?redirectTo=/account`);
    await submitLogIn(page, user);
    await page.getByRole("heading", { name: "Change your password" }).waitFor();
    const posts: string[] = [];
    page.on("request", (request) => {
      if (request.method() === "POST") posts.push(request.url());
    });

    await page.getByLabel("Current password").fill(user.password);
    await page.getByLabel("New password (12 characters or more)").fill("short");
    await page.getByLabel("New password again").fill("something else entirely");
    await page.getByRole("button", { name: "Change password" }).click();
    await expect.poll(() => page.getByText("Use at least 12 characters.").count()).toBe(1);
    expect(await page.getByText("The two new passwords differ.").count()).toBe(1);
    // With JavaScript, Conform refused the form before any request; without, the server did.
    expect(posts).toHaveLength(javaScriptEnabled ? 0 : 1);
    // Never echoed back into the page.
    expect(await page.content()).not.toContain("something else entirely");
    await context.close();
  });
});
