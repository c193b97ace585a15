// Every page in Chromium, with JavaScript on and off: none scrolls sideways from 360 to
// 1280 px, and axe-core finds no serious or critical WCAG 2.2 AA violation. The phone-width
// screenshots are kept in the run's temporary folder for a look when a check fails.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations } from "../support/axe";
import { launchBrowser, logInAt } from "../support/browser";
import { startServer, type TestServer } from "../support/server";
import { seedEveryPage, type SeededPages } from "./every-page.helpers";
import type { Browser, BrowserContext, Page } from "playwright-core";

const WIDTHS = [360, 390, 768, 1024, 1280];
const SHOTS = fs.mkdtempSync(path.join(os.tmpdir(), "every-page-"));

let server: TestServer;
let browser: Browser;
let pages: SeededPages;

beforeAll(async () => {
  [server, browser] = await Promise.all([
    startServer({ WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE: "true" }),
    launchBrowser(),
  ]);
  pages = await seedEveryPage(server.url);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/**
 * A context to run axe in, with `context`'s cookies. axe needs JavaScript; for the pages as
 * a browser without it sees them, their scripts are taken out of the HTML on the way in.
 */
async function axeContext(context: BrowserContext, javaScriptEnabled: boolean): Promise<BrowserContext> {
  const checking = await browser.newContext({ storageState: await context.storageState() });
  if (!javaScriptEnabled) {
    await checking.route("**/*", async (route) => {
      if (route.request().resourceType() !== "document") return route.continue();
      const response = await route.fetch();
      const body = (await response.text()).replace(/<script\b[\s\S]*?<\/script>/gi, "");
      await route.fulfill({ response, body });
    });
  }
  return checking;
}

/**
 * Words in table cells that the layout split across two lines (each text node's words; a
 * hyphen is a place a word may wrap, and machine text marked .wrap-anywhere may break).
 */
function brokenWords(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    for (const cell of document.querySelectorAll("td")) {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (node.parentElement?.closest(".wrap-anywhere")) continue;
        const text = node.textContent ?? "";
        for (const match of text.matchAll(/[^\s-]+/g)) {
          const range = document.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          const tops = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
          if (tops.size > 1) found.push(match[0]);
        }
      }
    }
    return found;
  });
}

async function sidewaysScroll(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

for (const javaScriptEnabled of [true, false]) {
  const mode = javaScriptEnabled ? "with JavaScript" : "without JavaScript";
  describe(`every page ${mode}`, () => {
    let staff: BrowserContext;
    let visitor: BrowserContext;
    beforeAll(async () => {
      staff = await browser.newContext({ javaScriptEnabled });
      visitor = await browser.newContext({ javaScriptEnabled });
      const page = await staff.newPage();
      await logInAt(page, server.url, "/leads");
      await page.close();
    });
    afterAll(async () => {
      await staff?.close();
      await visitor?.close();
    });

    it("no dashboard page scrolls sideways at 360, 390, 768, 1024 or 1280 px", async () => {
      const page = await staff.newPage();
      const wide: string[] = [];
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 800 });
        for (const pathname of pages.dashboard) {
          const response = await page.goto(`${server.url}${pathname}`);
          expect(response?.status(), pathname).toBe(200);
          const overflow = await sidewaysScroll(page);
          if (width === 390) {
            const name = `${javaScriptEnabled ? "js" : "nojs"}${pathname.replaceAll("/", "_") || "_home"}.png`;
            await page.screenshot({ path: path.join(SHOTS, name), fullPage: true });
          }
          if (overflow > 0) wide.push(`${pathname} at ${width} px: ${overflow} px too wide`);
        }
      }
      await page.close();
      expect(wide, `screenshots in ${SHOTS}`).toEqual([]);
    }, 120_000);

    it("keeps every word in a table cell whole at 1280 px (addresses wrap at their dots and @)", async () => {
      const page = await staff.newPage();
      await page.setViewportSize({ width: 1280, height: 800 });
      const broken: string[] = [];
      for (const pathname of pages.dashboard) {
        await page.goto(`${server.url}${pathname}`);
        broken.push(...(await brokenWords(page)).map((word) => `${pathname}: "${word}"`));
      }
      await page.close();
      expect(broken).toEqual([]);
    });

    it("at 390 px the navigation is a menu that opens and leads to another page", async () => {
      const page = await staff.newPage();
      await page.setViewportSize({ width: 390, height: 800 });
      await page.goto(`${server.url}/leads`);
      const nav = page.getByRole("navigation", { name: "Main" });
      await expect(nav.getByRole("link", { name: "Support" }).isVisible()).resolves.toBe(false);
      // A click on Menu before the page has hydrated can be undone by the script that takes
      // over the menu: open it until the link shows.
      const support = nav.getByRole("link", { name: "Support" });
      for (let tries = 0; tries < 10 && !(await support.isVisible()); tries++) {
        await page.getByText("Menu", { exact: true }).click();
        await page.waitForTimeout(300);
      }
      await support.click();
      await page.waitForURL((url) => url.pathname === "/support");
      // A leads row is a card: its cells are labelled, the column headers are not shown.
      await page.goto(`${server.url}/leads`);
      const cell = page.getByRole("table", { name: "Leads" }).locator('td[data-label="Email"]').first();
      const label = await cell.evaluate((element) => getComputedStyle(element, "::before").content);
      expect(label).toBe('"Email"');
      const box = (await cell.boundingBox())!;
      expect(box.width).toBeGreaterThan(300);
      await page.close();
    }, 60_000);

    it("axe-core finds no serious or critical violation on any page", async () => {
      const found: string[] = [];
      for (const [context, list] of [
        [staff, pages.dashboard],
        [visitor, pages.visitor],
      ] as const) {
        const checking = await axeContext(context, javaScriptEnabled);
        const page = await checking.newPage();
        for (const width of [1280, 390]) {
          await page.setViewportSize({ width, height: 800 });
          for (const pathname of list) {
            await page.goto(`${server.url}${pathname}`);
            for (const violation of await axeViolations(page)) found.push(`${pathname} at ${width} px: ${violation}`);
          }
        }
        await checking.close();
      }
      expect(found).toEqual([]);
    }, 120_000);
  });
}
