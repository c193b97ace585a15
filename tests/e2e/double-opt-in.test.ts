// Double opt-in in Chromium (issue 32, item 2; decision 067), with JavaScript on and off: the
// hosted form's thank-you page says a confirmation email is on its way, the email arrives at a
// real SMTP server, and its link opens a page whose Confirm button confirms the lead.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { axeViolations } from "../support/axe";
import { launchBrowser } from "../support/browser";
import { newForm } from "../support/forms";
import { startServer, type TestServer } from "../support/server";
import { startSmtp, type TestSmtp } from "../support/smtp";
import type { Browser } from "playwright-core";

let server: TestServer;
let browser: Browser;
let smtp: TestSmtp;

beforeAll(async () => {
  smtp = await startSmtp();
  [server, browser] = await Promise.all([
    startServer({ SMTP_URL: smtp.url, OUTBOX_POLL_MS: "100", SUBMIT_RATE_LIMIT_PER_MINUTE: "0" }),
    launchBrowser(),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await smtp?.close();
});

const DESKTOP_CHROME =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36";

describe.each([
  { javaScriptEnabled: true, label: "with JavaScript" },
  { javaScriptEnabled: false, label: "without JavaScript" },
])("double opt-in on the hosted form $label", ({ javaScriptEnabled }) => {
  it("says a confirmation email is on its way, and its link's Confirm button confirms the lead", async () => {
    const formId = await newForm({
      name: "Newsletter",
      fields: [{ key: "email", label: "Email", type: "email", required: true }],
      settings: { doubleOptIn: true },
    });
    const address = `reader-${javaScriptEnabled ? "js" : "nojs"}@example.com`;
    const page = await (await browser.newContext({ userAgent: DESKTOP_CHROME, javaScriptEnabled })).newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${server.url}/f/${formId}`);
    await page.getByLabel("Email").fill(address);
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByText("A confirmation email is on its way to you").waitFor();

    await expect
      .poll(() => smtp.received.filter((mail) => JSON.stringify(mail.to).includes(address)).length, { timeout: 15_000 })
      .toBe(1);
    const mail = smtp.received.find((received) => JSON.stringify(received.to).includes(address))!;
    const link = /https?:\/\/\S+\/confirm\/\S+/.exec(mail.text ?? "")![0];
    await page.goto(`${server.url}${new URL(link).pathname}`);
    await page.getByRole("heading", { name: "Confirm your email address" }).waitFor();
    if (javaScriptEnabled) expect(await axeViolations(page)).toEqual([]);
    const lead = await db.lead.findFirstOrThrow({ where: { formId } });
    expect(lead.awaitingConfirmation).toBe(true);
    await page.getByRole("button", { name: "Confirm" }).click();
    await page.getByText("Your address is confirmed").waitFor();
    const confirmed = await db.lead.findUniqueOrThrow({ where: { id: lead.id } });
    expect(confirmed.awaitingConfirmation).toBe(false);
    expect(confirmed.confirmedAt).not.toBeNull();
    await page.context().close();
  });
});
