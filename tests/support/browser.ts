// Debian's Chromium driven by playwright-core (no browser can be downloaded here).
import { chromium, type Browser, type BrowserContextOptions, type Page } from "playwright-core";
import { STAFF } from "./http";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** The browsers this test file launched, for tests/support/e2e-failures.ts to read after a failure. */
export const launched = new Set<Browser>();

export async function launchBrowser(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  launched.add(browser);
  browser.on("disconnected", () => launched.delete(browser));
  return browser;
}

/** Fills the login form the page shows with the user's email and password, and sends it. */
export async function submitLogIn(page: Page, user: { email: string; password: string } = STAFF): Promise<void> {
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Log in" }).click();
}

/**
 * Opens `path` on the server, logs in there (as the staff user unless told), and waits to be
 * back on `path` (its query, if any, is not compared).
 */
export async function logInAt(
  page: Page,
  serverUrl: string,
  path: string,
  user: { email: string; password: string } = STAFF,
): Promise<void> {
  const pathname = new URL(path, serverUrl).pathname;
  await page.goto(`${serverUrl}${path}`);
  await submitLogIn(page, user);
  await page.waitForURL((url) => url.pathname === pathname);
  // The address changes before React has drawn the new page, and the login page has an
  // "Email" field too: wait until it is gone so that a test's next fill lands on the page it means.
  await page.getByRole("button", { name: "Log in" }).waitFor({ state: "detached" });
}

/** A page in a new browser context (`options` as newContext takes them), logged in at `path` as the staff user. */
export async function loggedInPage(
  browser: Browser,
  serverUrl: string,
  path: string,
  options: BrowserContextOptions = {},
): Promise<Page> {
  const page = await (await browser.newContext(options)).newPage();
  await logInAt(page, serverUrl, path);
  if (options.javaScriptEnabled !== false) await waitForHydration(page);
  return page;
}

/**
 * Waits until React has hydrated the page (app/root.tsx marks <html data-hydrated>): a test
 * that types into a form before then can see hydration race its input on a loaded machine.
 */
export async function waitForHydration(page: Page): Promise<void> {
  await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
}

/**
 * A page in a new browser context (`options` as newContext takes them) that holds the session
 * of a Cookie header (loginAsStaff's): logged in without the login page. Its steps fail after
 * 10 s, naming the step, instead of the whole test timing out.
 */
export async function pageWithSession(
  browser: Browser,
  serverUrl: string,
  cookie: string,
  options: BrowserContextOptions = {},
): Promise<Page> {
  const context = await browser.newContext(options);
  const [name, value] = cookie.split(";")[0].split(/=(.*)/s);
  await context.addCookies([{ name, value, url: serverUrl }]);
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  return page;
}
