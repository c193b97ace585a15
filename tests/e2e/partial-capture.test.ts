// Partial capture on the hosted three-step form in Chromium (issue 31, item 7; decision 060):
// with JavaScript on and off, Next on step 1 with a valid email keeps a partial lead (the script
// posts it; without JavaScript the step's own round trip does), which is no lead; finishing the
// form stores one lead and the partial goes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { launchBrowser } from "../support/browser";
import { newForm, THREE_STEPS } from "../support/forms";
import { startServer, type TestServer } from "../support/server";
import type { Browser } from "playwright-core";

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer({ SUBMIT_RATE_LIMIT_PER_MINUTE: "0" }), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

// HeadlessChrome is a scripted agent to the spam signals: a person's browser says this.
const DESKTOP_CHROME =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36";

describe.each([
  { javaScriptEnabled: true, label: "with JavaScript" },
  { javaScriptEnabled: false, label: "without JavaScript" },
])("the hosted form in steps with capturePartial $label", ({ javaScriptEnabled }) => {
  it("keeps a partial after step 1, and finishing the form stores one lead in its place", async () => {
    const formId = await newForm({
      name: "Quote",
      fields: THREE_STEPS.fields,
      settings: { ...THREE_STEPS.settings, capturePartial: true },
    });
    const page = await (await browser.newContext({ userAgent: DESKTOP_CHROME, javaScriptEnabled })).newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${server.url}/f/${formId}?utm_source=news`);
    // Hydrated: every step is drawn (without JavaScript only the current one is).
    if (javaScriptEnabled) await page.locator('fieldset.lc-step[data-step="3"]').waitFor({ state: "attached" });
    await page.getByLabel("Email").fill("ada@example.com");
    await page.getByLabel("Reason").selectOption("support");
    await page.getByRole("button", { name: "Next" }).click();

    // The visitor leaves here: the partial is kept, and it is no lead.
    await expect.poll(() => db.partialLead.count({ where: { formId } })).toBe(1);
    const partial = await db.partialLead.findFirstOrThrow({ where: { formId } });
    expect(partial.email).toBe("ada@example.com");
    expect(partial.utmSource).toBe("news");
    expect(partial.data).toMatchObject({ email: "ada@example.com", reason: "support" });
    expect(await db.lead.count({ where: { formId } })).toBe(0);

    await page.getByLabel("Message").fill("Please call");
    await page.getByRole("button", { name: "Send" }).click();
    await expect.poll(() => db.lead.count({ where: { formId } })).toBe(1);
    await expect.poll(() => db.partialLead.count({ where: { formId } })).toBe(0);
    const lead = await db.lead.findFirstOrThrow({ where: { formId }, select: { email: true, data: true } });
    expect(lead.email).toBe("ada@example.com");
    expect(lead.data).toMatchObject({ reason: "support", message: "Please call" });
  });
});
