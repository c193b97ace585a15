// Single sign-on in Chromium (decision 062), with JavaScript on and off: "Sign in with …" on
// /login, the provider's own sign-in and consent pages (oidc-provider's development
// interactions, over https with a throw-away certificate), and back on the dashboard.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrResetUser } from "~/staff/user.server";
import { launchBrowser } from "../support/browser";
import { freePort, startOidcProvider, type TestProvider } from "../support/oidc-provider";
import { startServer, type TestServer } from "../support/server";
import type { Browser } from "playwright-core";

// Headless Chromium's own User-Agent reads as a bot.
const DESKTOP_CHROME =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";

let provider: TestProvider;
let server: TestServer;
let browser: Browser;
let appUrl: string;

beforeAll(async () => {
  const port = await freePort();
  appUrl = `http://127.0.0.1:${port}`;
  provider = await startOidcProvider(appUrl);
  [server, browser] = await Promise.all([
    startServer({ ...provider.env(), PORT: String(port), APP_URL: appUrl }),
    launchBrowser(),
  ]);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await provider?.stop();
});

describe.each([
  { javaScriptEnabled: true, label: "with JavaScript" },
  { javaScriptEnabled: false, label: "without JavaScript" },
])("single sign-on $label", ({ javaScriptEnabled }) => {
  it("goes from the button on /login through the provider's pages to the page asked for", async () => {
    const id = javaScriptEnabled ? "js" : "nojs";
    const email = `${id}@sso-page.example`;
    await createOrResetUser({ email, password: "a password never typed here", role: "agent" });
    provider.accounts.set(id, { email, email_verified: true, name: "Page Person" });
    // The provider's certificate is the test's own: only Chromium is told to accept it.
    const context = await browser.newContext({ javaScriptEnabled, userAgent: DESKTOP_CHROME, ignoreHTTPSErrors: true });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${appUrl}/leads`);
    await page.getByRole("link", { name: "Sign in with Test Provider" }).click();

    await page.waitForURL((url) => url.origin === provider.issuer);
    await page.getByPlaceholder("Enter any login").fill(id);
    await page.getByPlaceholder("and password").fill("anything");
    await page.getByRole("button", { name: "Sign-in" }).click();
    await page.getByRole("button", { name: "Continue" }).click();

    await page.waitForURL((url) => url.origin === appUrl && url.pathname === "/leads");
    expect(await page.getByRole("navigation", { name: "Main" }).textContent()).toContain("Leads");
    const cookies = await context.cookies(appUrl);
    expect(cookies.find((cookie) => cookie.name === "__session")).toBeDefined();
    // The flow's cookie is gone once used.
    expect(cookies.find((cookie) => cookie.name === "__oidc")).toBeUndefined();
    await context.close();
  });
});
