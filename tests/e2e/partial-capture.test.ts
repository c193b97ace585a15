// Partial capture on the hosted three-step form in Chromium (issue 31, item 7; decision 060):
// with JavaScript on and off, Next on step 1 with a valid email keeps a partial lead (the script
// posts it; without JavaScript the step's own round trip does), which is no lead; finishing the
// form stores one lead and the partial goes. The embed does the same with the script (its
// snippet says data-capture-partial); without the script an embedded form is one plain post.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scriptSnippet } from "~/components/EmbedSnippet";
import { FieldsSchema } from "~/forms/schema/form-schema";
import { db } from "~/storage/db.server";
import { launchBrowser } from "../support/browser";
import { newForm, THREE_STEPS } from "../support/forms";
import { startServer, type TestServer } from "../support/server";
import type { AddressInfo } from "node:net";
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

describe("the embedded form in steps with capturePartial", () => {
  let site: http.Server | undefined;
  afterAll(async () => {
    if (site) await new Promise((resolve) => site!.close(resolve));
  });

  it("keeps a partial at Next from another site, updates it at the next step, and the Send finishes it", async () => {
    let html = "";
    site = http.createServer((_req, res) => res.writeHead(200, { "Content-Type": "text/html" }).end(html));
    await new Promise<void>((resolve) => site!.listen(0, "127.0.0.1", resolve));
    const siteUrl = `http://localhost:${(site.address() as AddressInfo).port}`;
    const fields = FieldsSchema.parse(THREE_STEPS.fields);
    const settings = { ...THREE_STEPS.settings, capturePartial: true, allowedOrigins: [siteUrl] };
    const formId = await newForm({ name: "Embedded quote", fields, settings });
    const snippet = scriptSnippet(formId, server.url, fields, { successMessage: "Thanks!", ...settings });
    expect(snippet).toContain("data-capture-partial");
    html = `<!doctype html><html lang="en"><head><title>Shop</title></head><body>${snippet}</body></html>`;

    const page = await (await browser.newContext({ userAgent: DESKTOP_CHROME })).newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${siteUrl}/?utm_source=ads`);
    await page.getByLabel("Email").fill("grace@example.com");
    await page.getByLabel("Reason").selectOption("sales");
    await page.getByRole("button", { name: "Next" }).click();
    // Only step 1's answers: the company step was not yet enabled when they were taken.
    await expect.poll(() => db.partialLead.count({ where: { formId } })).toBe(1);
    const first = await db.partialLead.findFirstOrThrow({ where: { formId } });
    expect(first).toMatchObject({ email: "grace@example.com", utmSource: "ads" });
    expect(first.data).toEqual({ email: "grace@example.com", reason: "sales" });
    await expect.poll(() => page.locator('input[name="_partialId"]').count()).toBe(1);

    // The next step updates the same partial (its id went with the post), not a second one.
    await page.getByLabel("Company").fill("Analytical Engines");
    await page.getByRole("button", { name: "Next" }).click();
    await expect
      .poll(async () =>
        (await db.partialLead.findMany({ where: { formId }, select: { data: true } })).map((p) => p.data),
      )
      .toEqual([{ email: "grace@example.com", reason: "sales", company: "Analytical Engines" }]);

    await page.getByLabel("Message").fill("Embedded and kept");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByText("Thanks!").waitFor();
    await expect.poll(() => db.lead.count({ where: { formId } })).toBe(1);
    await expect.poll(() => db.partialLead.count({ where: { formId } })).toBe(0);
    const lead = await db.lead.findFirstOrThrow({ where: { formId }, select: { data: true, utmSource: true } });
    expect(lead).toMatchObject({
      utmSource: "ads",
      data: { company: "Analytical Engines", message: "Embedded and kept" },
    });
    // Shown again, the form starts a new partial.
    expect(await page.locator('input[name="_partialId"]').count()).toBe(0);
    await page.context().close();
  });
});
