// A consent field in Chromium (issue 32, item 3; decision 065), with JavaScript on and off: the
// hosted form shows the exact text with its link and the privacy notice, refuses the form until
// the box is ticked (naming it), stores the consent, and the lead page shows what was agreed to.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { axeViolations } from "../support/axe";
import { launchBrowser, pageWithSession } from "../support/browser";
import { newForm } from "../support/forms";
import { loginAsStaff } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import type { Browser } from "playwright-core";

let server: TestServer;
let browser: Browser;
let cookie: string;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer({ SUBMIT_RATE_LIMIT_PER_MINUTE: "0" }), launchBrowser()]);
  cookie = await loginAsStaff(server.url);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const DESKTOP_CHROME =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36";
const TEXT = "I agree to the [privacy policy](https://example.com/policy) and to being called back.";

describe.each([
  { javaScriptEnabled: true, label: "with JavaScript" },
  { javaScriptEnabled: false, label: "without JavaScript" },
])("a consent field on the hosted form $label", ({ javaScriptEnabled }) => {
  it("is required until ticked, is kept with its text, and the lead page shows what was agreed to", async () => {
    const formId = await newForm({
      name: "Call me back",
      fields: [
        { key: "email", label: "Email", type: "email", required: true },
        { key: "callback", label: "Callback consent", type: "consent", required: true, text: TEXT },
      ],
      settings: { privacyUrl: "https://example.com/privacy" },
    });
    const address = `consent-${javaScriptEnabled ? "js" : "nojs"}@example.com`;
    const page = await (await browser.newContext({ userAgent: DESKTOP_CHROME, javaScriptEnabled })).newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${server.url}/f/${formId}`);
    const box = page.getByRole("checkbox", { name: /I agree to the privacy policy and to being called back/ });
    const policy = page.getByRole("link", { name: "privacy policy" });
    expect(await policy.getAttribute("href")).toBe("https://example.com/policy");
    expect(await policy.getAttribute("rel")).toBe("noopener noreferrer");
    const notice = page.getByRole("link", { name: "Privacy notice" });
    expect(await notice.getAttribute("href")).toBe("https://example.com/privacy");
    if (javaScriptEnabled) expect(await axeViolations(page)).toEqual([]);

    await page.getByLabel("Email").fill(address);
    // The browser holds the post for the required box; the server refuses it too (the box
    // un-required here, as a page without the attribute would send it).
    await box.evaluate((input: HTMLInputElement) => (input.required = false));
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByText("This field is required.").waitFor();
    expect(await db.lead.count({ where: { formId } })).toBe(0);

    await page.getByLabel("Email").fill(address);
    await page.getByRole("checkbox", { name: /I agree to the privacy policy/ }).check();
    await page.getByRole("button", { name: "Send" }).click();
    await page.waitForURL((url) => url.pathname === `/f/${formId}/thanks`);
    const lead = await db.lead.findFirstOrThrow({ where: { formId }, include: { consents: true } });
    expect(lead.consents).toEqual([expect.objectContaining({ fieldKey: "callback", text: TEXT })]);
    await page.context().close();

    const staff = await pageWithSession(browser, server.url, cookie, { userAgent: DESKTOP_CHROME, javaScriptEnabled });
    await staff.goto(`${server.url}/leads/${lead.id}`);
    const consents = staff.getByRole("region", { name: "Consents" });
    await consents.getByText("Callback consent").waitFor();
    await consents.getByText(lead.consents[0].version).waitFor();
    expect(await consents.getByRole("link", { name: "privacy policy" }).getAttribute("href")).toBe(
      "https://example.com/policy",
    );
    await staff.context().close();
  });
});
