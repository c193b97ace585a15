// The per-day chart of /leads/sources in a real browser: its legend and axis labels stay
// readable (at least 12 px tall) on a 390 px phone as on a 1280 px desktop, although the
// bars scale down to the width.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrResetUser } from "~/staff/user.server";
import { launchBrowser, loggedInPage } from "../support/browser";
import { newForm } from "../support/forms";
import { STAFF } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import type { Browser, Page } from "playwright-core";

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  await createOrResetUser(STAFF);
  await newForm({ name: "Chart form", fields: [{ key: "email", label: "Email", type: "email", required: true }] });
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** Every piece of text in the chart, with the height of its rendered glyph box and the chart's width. */
async function chartText(page: Page) {
  return page.evaluate(() => {
    const figure = document.querySelector("section[aria-labelledby=per-day-heading] figure")!;
    const walker = document.createTreeWalker(figure, NodeFilter.SHOW_TEXT);
    const texts: Array<{ text: string; height: number }> = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      // The bars' tooltips (<title>) are not drawn text.
      if (!node.textContent?.trim() || node.parentElement?.closest("svg")) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      texts.push({ text: node.textContent.trim(), height: range.getBoundingClientRect().height });
    }
    return { texts, width: figure.getBoundingClientRect().width };
  });
}

describe("the sources chart", () => {
  for (const width of [390, 1280]) {
    it(`draws its legend and axis labels at least 12 px tall at ${width} px wide`, async () => {
      const page = await loggedInPage(browser, server.url, "/leads/sources", { viewport: { width, height: 844 } });
      // With JavaScript the URL changes before the page has rendered: wait for the chart.
      await page.locator("section[aria-labelledby=per-day-heading] figure").waitFor();
      const { texts, width: chartWidth } = await chartText(page);
      expect(chartWidth).toBeLessThanOrEqual(width);
      // The legend, the scale's top and bottom, and the day labels (30 days: every fifth).
      expect(texts.map((text) => text.text)).toEqual(
        expect.arrayContaining(["Views", "Leads", "1", "0", expect.stringMatching(/^\d{2}-\d{2}$/)]),
      );
      expect(texts.filter((text) => /^\d{2}-\d{2}$/.test(text.text)).length).toBeGreaterThanOrEqual(5);
      for (const text of texts) expect(text.height, text.text).toBeGreaterThanOrEqual(12);
      await page.context().close();
    });
  }
});
