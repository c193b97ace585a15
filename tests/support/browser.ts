// Debian's Chromium driven by playwright-core (no browser can be downloaded here).
import { chromium, type Browser, type Page } from "playwright-core";
import { STAFF } from "./http";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
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
}

/** Opens `path` on the server, logs in as the staff user there, and waits to be back on `path`. */
export async function logInAt(page: Page, serverUrl: string, path: string): Promise<void> {
  await page.goto(`${serverUrl}${path}`);
  await page.getByLabel("Email").fill(STAFF.email);
  await page.getByLabel("Password").fill(STAFF.password);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.waitForURL((url) => url.pathname === path);
  // The address changes before React has drawn the new page, and the login page has an
  // "Email" field too: wait until it is gone so that a test's next fill lands on the page it means.
  await page.getByRole("button", { name: "Log in" }).waitFor({ state: "detached" });
}
