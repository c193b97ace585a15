// Passkeys in Chromium with a virtual authenticator (the DevTools protocol's WebAuthn domain):
// one is added on /account/security, signs in on /login without an email typed, and is
// removed; a passkey meets the team's two-factor requirement and skips the TOTP step; and
// without JavaScript both pages say that passkeys need it while the rest keeps working.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrResetUser } from "~/staff/user.server";
import { db } from "~/storage/db.server";
import { launchBrowser, logInAt, pageWithSession, submitLogIn, waitForHydration } from "../support/browser";
import { addVirtualAuthenticator, startPasskeyServer } from "../support/passkeys";
import { userWithTwoFactor } from "../support/two-factor";
import type { TestServer } from "../support/server";
import type { Browser, Page } from "playwright-core";

const PASSWORD = "passkey page password";
// Headless Chromium's own user agent reads as a bot.
const DESKTOP_CHROME =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
let server: TestServer & { origin: string };
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startPasskeyServer(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function newPage(javaScriptEnabled = true): Promise<Page> {
  const page = await (await browser.newContext({ javaScriptEnabled, userAgent: DESKTOP_CHROME })).newPage();
  page.setDefaultTimeout(15_000);
  return page;
}

/** Adds a passkey named `name` on /account/security (the page is there, the password recent). */
async function addPasskey(page: Page, name: string): Promise<void> {
  await waitForHydration(page);
  await page.getByLabel("Name of the new passkey").fill(name);
  await page.getByRole("button", { name: "Add a passkey" }).click();
  await expect.poll(() => page.getByRole("status").allTextContents()).toContain("Passkey added.");
  await page.getByRole("list", { name: "Your passkeys" }).getByText(name).waitFor();
}

/** Signs in on /login with the passkey the virtual authenticator holds, no email typed. */
async function signInWithPasskey(page: Page, redirectTo: string): Promise<void> {
  await page.goto(`${server.origin}/login?${new URLSearchParams({ redirectTo })}`);
  await waitForHydration(page);
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  await page.waitForURL((url) => url.pathname === redirectTo);
}

describe("passkeys in Chromium", () => {
  it("adds a passkey, signs out, signs in with it without an email, and removes it", async () => {
    const email = "keys@passkey-page.example";
    const { user } = await createOrResetUser({ email, password: PASSWORD, role: "agent" });
    const page = await newPage();
    await addVirtualAuthenticator(page);
    await logInAt(page, server.origin, "/account/security", { email, password: PASSWORD });
    await addPasskey(page, "Test laptop");
    expect(await db.passkey.count({ where: { userId: user.id } })).toBe(1);

    await page.getByRole("button", { name: "Log out" }).click();
    await page.getByRole("heading", { name: "Log in" }).waitFor();
    await signInWithPasskey(page, "/leads");
    expect(await page.getByRole("navigation", { name: "Main" }).textContent()).toContain("Leads");
    expect((await db.passkey.findFirstOrThrow({ where: { userId: user.id } })).lastUsedAt).not.toBeNull();

    await page.goto(`${server.origin}/account/security`);
    await page.getByRole("button", { name: "Remove passkey Test laptop" }).click();
    await expect.poll(() => page.getByRole("status").allTextContents()).toContain("Passkey removed.");
    await page.getByText("No passkeys yet.").waitFor();
    const actions = await db.auditEntry.findMany({ where: { target: `user:${user.id}` }, select: { action: true } });
    expect(actions.map((entry) => entry.action)).toEqual(expect.arrayContaining(["passkey.add", "passkey.remove"]));

    // The authenticator still holds the credential; the server no longer knows it.
    // Signed out before /login is asked for: a slow sign-out would otherwise still hold the
    // session when /login loads, and send the page on to the dashboard.
    await page.getByRole("button", { name: "Log out" }).click();
    await page.getByRole("heading", { name: "Log in" }).waitFor();
    await page.goto(`${server.origin}/login`);
    await waitForHydration(page);
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("This passkey is not registered here");
    await page.context().close();
  });

  it("meets the team's two-factor requirement: the user adds one where they are sent, then signs in with it", async () => {
    const email = "required@passkey-page.example";
    await createOrResetUser({ email, password: PASSWORD, role: "agent" });
    await db.securityPolicy.upsert({
      where: { id: "security" },
      create: { id: "security", requireTwoFactor: true },
      update: { requireTwoFactor: true },
    });
    try {
      const page = await newPage();
      await addVirtualAuthenticator(page);
      await page.goto(`${server.origin}/leads`);
      await submitLogIn(page, { email, password: PASSWORD });
      await page.waitForURL((url) => url.pathname === "/account/security");
      expect(await page.getByRole("status").textContent()).toContain("Your team requires two-factor sign-in");
      await addPasskey(page, "Phone");
      await page.goto(`${server.origin}/leads`);
      expect(new URL(page.url()).pathname).toBe("/leads");

      await page.getByRole("button", { name: "Log out" }).click();
      await page.getByRole("heading", { name: "Log in" }).waitFor();
      await submitLogIn(page, { email, password: PASSWORD });
      await expect.poll(() => page.getByRole("alert").textContent()).toContain("sign in with your passkey");
      await signInWithPasskey(page, "/leads");
      await page.context().close();
    } finally {
      await db.securityPolicy.deleteMany();
    }
  });

  it("signs a user with TOTP in with a passkey without asking for the code", async () => {
    const staff = await userWithTwoFactor(server.origin, {
      email: "totp@passkey-page.example",
      password: PASSWORD,
      role: "agent",
    });
    const page = await pageWithSession(browser, server.origin, staff.cookie, { userAgent: DESKTOP_CHROME });
    await addVirtualAuthenticator(page);
    await page.goto(`${server.origin}/account/security`);
    await addPasskey(page, "Desk key");
    await page.context().clearCookies();
    await signInWithPasskey(page, "/leads");
    expect(await page.getByRole("heading", { name: "Enter your code" }).count()).toBe(0);
    await page.context().close();
  });
});

describe("without JavaScript", () => {
  it("says passkeys need JavaScript on /login and /account/security, and the rest works", async () => {
    const email = "nojs@passkey-page.example";
    await createOrResetUser({ email, password: PASSWORD, role: "agent" });
    const page = await newPage(false);
    await page.goto(`${server.origin}/login`);
    // Playwright's text locators skip <noscript>; the text the page shows does not.
    expect(await page.locator("body").innerText()).toContain("Signing in with a passkey needs JavaScript");
    expect(await page.getByRole("button", { name: "Sign in with a passkey" }).count()).toBe(0);
    await logInAt(page, server.origin, "/account/security", { email, password: PASSWORD });
    expect(await page.locator("body").innerText()).toContain("Adding a passkey needs JavaScript");
    await page.getByRole("button", { name: "Set up two-factor" }).click();
    await page.getByRole("img", { name: "QR code of your two-factor secret" }).waitFor();
    await page.context().close();
  });
});
