// The /login page's second step in Chromium, with JavaScript on and off: the code is asked
// for after the right password, a wrong one is refused next to the field, and a right one
// (a TOTP code or a recovery code) reaches the page that was asked for.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrResetUser } from "~/staff/user.server";
import { db } from "~/storage/db.server";
import { launchBrowser, logInAt, pageWithSession } from "../support/browser";
import { staffSession } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import { codeAt, userWithTwoFactor } from "../support/two-factor";
import type { Browser } from "playwright-core";

const PASSWORD = "two factor page password";
let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe.each([
  { javaScriptEnabled: true, label: "with JavaScript" },
  { javaScriptEnabled: false, label: "without JavaScript" },
])("signing in with two-factor $label", ({ javaScriptEnabled }) => {
  it.each(["totp", "recovery"] as const)("asks for the code after the password and takes a %s code", async (kind) => {
    const email = `${kind}-${javaScriptEnabled ? "js" : "nojs"}@2fa-page.example`;
    const user = await userWithTwoFactor(server.url, { email, password: PASSWORD, role: "agent" });
    const context = await browser.newContext({ javaScriptEnabled });
    const page = await context.newPage();
    await page.goto(`${server.url}/leads`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Log in" }).click();

    await page.getByRole("heading", { name: "Enter your code" }).waitFor();
    const code = page.getByLabel("Code from your authenticator app, or a recovery code");
    expect(await code.getAttribute("name")).toBe("code");
    expect(await code.getAttribute("autocomplete")).toBe("one-time-code");
    expect(await page.content()).not.toContain(PASSWORD);
    expect((await context.cookies()).some((cookie) => cookie.name.includes("session"))).toBe(false);

    await code.fill("000000" === codeAt(user.secret, 1) ? "111111" : "000000");
    await page.getByRole("button", { name: "Continue" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("That code is wrong or was already used");

    await page
      .getByLabel("Code from your authenticator app, or a recovery code")
      .fill(kind === "totp" ? codeAt(user.secret, 1) : user.recoveryCodes[0]!);
    await page.getByRole("button", { name: "Continue" }).click();
    await page.waitForURL((url) => url.pathname === "/leads");
    expect(await page.getByRole("navigation", { name: "Main" }).textContent()).toContain("Leads");
    await context.close();
  });
});

describe.each([
  { javaScriptEnabled: true, label: "with JavaScript" },
  { javaScriptEnabled: false, label: "without JavaScript" },
])("/account/security $label", ({ javaScriptEnabled }) => {
  it("sets two-factor up with the QR code and a first code, makes new recovery codes, and turns it off", async () => {
    const email = `security-${javaScriptEnabled ? "js" : "nojs"}@2fa-page.example`;
    const { user } = await createOrResetUser({ email, password: PASSWORD, role: "agent" });
    const context = await browser.newContext({ javaScriptEnabled });
    const page = await context.newPage();
    await logInAt(page, server.url, "/account/security", { email, password: PASSWORD });
    await page.getByRole("button", { name: "Set up two-factor" }).click();

    const qr = page.getByRole("img", { name: "QR code of your two-factor secret" });
    expect(await qr.getAttribute("src")).toMatch(/^data:image\/svg\+xml;base64,/);
    const secret = (await page.locator("section[aria-label='Set up two-factor'] code").textContent())!;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await page.getByLabel("Code from the app").fill(codeAt(secret));
    await page.getByRole("button", { name: "Turn on" }).click();
    const codes = page.getByRole("status", { name: "Recovery codes" }).locator("li");
    await expect.poll(() => codes.count()).toBe(10);
    const first = await codes.first().textContent();

    await page.locator("#regenerate-password").fill(PASSWORD);
    await page.getByRole("button", { name: "Make new recovery codes" }).click();
    await expect.poll(async () => (await codes.first().textContent()) !== first && (await codes.count())).toBe(10);

    await page.locator("#disable-password").fill("not the password");
    await page.getByRole("button", { name: "Turn two-factor off" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("That is not your password");
    await page.locator("#disable-password").fill(PASSWORD);
    await page.getByRole("button", { name: "Turn two-factor off" }).click();
    await page.getByRole("button", { name: "Set up two-factor" }).waitFor();
    const actions = await db.auditEntry.findMany({ where: { target: `user:${user.id}` }, select: { action: true } });
    expect(actions.map((entry) => entry.action)).toEqual(
      expect.arrayContaining(["two_factor.enable", "two_factor.recovery_regenerate", "two_factor.disable"]),
    );
    await context.close();
  });
});

describe.each([
  { javaScriptEnabled: true, label: "with JavaScript" },
  { javaScriptEnabled: false, label: "without JavaScript" },
])("requiring two-factor $label", ({ javaScriptEnabled }) => {
  it("an owner turns it on at /settings/security, and a user without it lands on /account/security", async () => {
    const suffix = javaScriptEnabled ? "js" : "nojs";
    const owner = await userWithTwoFactor(server.url, {
      email: `owner-${suffix}@2fa-rules.example`,
      password: PASSWORD,
      role: "owner",
    });
    const agent = await staffSession(server.url, {
      email: `agent-${suffix}@2fa-rules.example`,
      password: PASSWORD,
      role: "agent",
    });
    try {
      const ownerPage = await pageWithSession(browser, server.url, owner.cookie, { javaScriptEnabled });
      await ownerPage.goto(`${server.url}/settings/security`);
      await ownerPage.getByLabel("Require two-factor sign-in for everybody").check();
      await ownerPage.getByRole("button", { name: "Save" }).click();
      await expect.poll(() => ownerPage.getByRole("status").textContent()).toContain("Saved.");
      expect(await db.securityPolicy.findFirst()).toMatchObject({ requireTwoFactor: true });

      const agentPage = await pageWithSession(browser, server.url, agent.cookie, { javaScriptEnabled });
      await agentPage.goto(`${server.url}/leads`);
      await agentPage.waitForURL((url) => url.pathname === "/account/security");
      expect(await agentPage.getByRole("status").textContent()).toContain("Your team requires two-factor sign-in");
      await ownerPage.context().close();
      await agentPage.context().close();
    } finally {
      await db.securityPolicy.deleteMany();
    }
  });
});
