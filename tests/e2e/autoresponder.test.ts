// The autoresponder in Chromium (issue 32, item 1; decision 066), with JavaScript on and off:
// the builder's Settings section sets it up with a preview, refuses an unknown placeholder by
// name, and the email a visitor then gets arrives at a real SMTP server with the preview's
// words; its unsubscribe link opens a page whose button stops further autoresponses.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { axeViolations } from "../support/axe";
import { launchBrowser, pageWithSession } from "../support/browser";
import { newForm } from "../support/forms";
import { loginAsStaff } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import { startSmtp, type TestSmtp } from "../support/smtp";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";

let server: TestServer;
let browser: Browser;
let smtp: TestSmtp;
let cookie: string;

beforeAll(async () => {
  smtp = await startSmtp();
  [server, browser] = await Promise.all([
    startServer({ SMTP_URL: smtp.url, OUTBOX_POLL_MS: "100", SUBMIT_RATE_LIMIT_PER_MINUTE: "0" }),
    launchBrowser(),
  ]);
  cookie = await loginAsStaff(server.url);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await smtp?.close();
});

const DESKTOP_CHROME =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36";

const FIELDS = [
  { key: "name", label: "Name", type: "text", required: true },
  { key: "email", label: "Email", type: "email", required: true },
  { key: "company", label: "Company", type: "text" },
  { key: "message", label: "Message", type: "textarea" },
];

async function storedAutoresponder(formId: string) {
  const form = await db.form.findUniqueOrThrow({ where: { id: formId } });
  const settings = (typeof form.settings === "string" ? JSON.parse(form.settings) : form.settings) as {
    autoresponder?: unknown;
  };
  return settings.autoresponder;
}

async function fillAutoresponder(page: Page, subject: string, body: string) {
  const panel = page.getByRole("form", { name: "Autoresponder" });
  await panel.getByLabel("Email each visitor after they send the form").check();
  await panel.getByLabel("Subject").fill(subject);
  await panel.getByLabel("Text", { exact: true }).fill(body);
  await panel.getByRole("checkbox", { name: /Company/ }).check();
  return panel;
}

describe.each([
  { javaScriptEnabled: true, label: "with JavaScript" },
  { javaScriptEnabled: false, label: "without JavaScript" },
])("the autoresponder $label", ({ javaScriptEnabled }) => {
  it("is set up in the builder with a preview, and its email and unsubscribe link work", async () => {
    const formId = await newForm({ name: `Demo ${javaScriptEnabled ? "js" : "nojs"}`, fields: FIELDS });
    const page = await pageWithSession(browser, server.url, cookie, { javaScriptEnabled });
    await page.goto(`${server.url}/forms/${formId}/settings`);

    // An unknown placeholder is refused by name, and nothing is saved.
    let panel = await fillAutoresponder(page, "Thanks {{name}}", "Your {{phone}} is noted.");
    await panel.getByRole("button", { name: "Save autoresponder" }).click();
    panel = page.getByRole("form", { name: "Autoresponder" });
    await panel.getByText("Unknown placeholder {{phone}}").waitFor();
    expect(await storedAutoresponder(formId)).toBeUndefined();

    panel = await fillAutoresponder(page, "Thanks {{name}}", "We read about {{company}} for {{form.name}}.");
    const preview = page.getByTestId("autoresponder-preview");
    if (javaScriptEnabled) {
      // The preview follows the inputs before anything is saved.
      await preview.getByText("Thanks Ada Lovelace").waitFor();
      await preview.getByText(`We read about (Company) for Demo js.`).waitFor();
    }
    await panel.getByRole("button", { name: "Save autoresponder" }).click();
    // Said in the panel after a fetcher's post, at the top of the page after a plain one.
    const saved = javaScriptEnabled ? page.getByRole("form", { name: "Autoresponder" }) : page;
    await saved.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    // Without JavaScript the page drawn after the post previews what was saved.
    await page.getByTestId("autoresponder-preview").getByText("Thanks Ada Lovelace").waitFor();
    expect(await storedAutoresponder(formId)).toEqual({
      enabled: true,
      subject: "Thanks {{name}}",
      body: "We read about {{company}} for {{form.name}}.",
      allowFields: ["company"],
    });
    if (javaScriptEnabled) expect(await axeViolations(page)).toEqual([]);

    // A visitor sends the hosted form; the email arrives with the preview's words.
    const address = `visitor-${javaScriptEnabled ? "js" : "nojs"}@example.com`;
    const visitor = await (await browser.newContext({ userAgent: DESKTOP_CHROME, javaScriptEnabled })).newPage();
    visitor.setDefaultTimeout(10_000);
    await visitor.goto(`${server.url}/f/${formId}`);
    await visitor.getByLabel("Name").fill("Grace Hopper");
    await visitor.getByLabel("Email").fill(address);
    await visitor.getByLabel("Company").fill("Navy");
    await visitor.getByRole("button", { name: "Send" }).click();
    await expect
      .poll(() => smtp.received.filter((mail) => JSON.stringify(mail.to).includes(address)).length, { timeout: 15_000 })
      .toBe(1);
    const mail = smtp.received.find((received) => JSON.stringify(received.to).includes(address))!;
    expect(mail.subject).toBe("Thanks Grace Hopper");
    expect(mail.text).toContain(`We read about Navy for Demo ${javaScriptEnabled ? "js" : "nojs"}.`);

    // Its unsubscribe link shows a button; the button stops further autoresponses.
    const link = /https?:\/\/\S+\/unsubscribe\/\S+/.exec(mail.text ?? "")![0];
    await visitor.goto(`${server.url}${new URL(link).pathname}`);
    await visitor.getByRole("heading", { name: "Unsubscribe" }).waitFor();
    expect(await db.emailSuppression.count({ where: { email: address } })).toBe(0);
    await visitor.getByRole("button", { name: "Unsubscribe" }).click();
    await visitor.getByText(`${address} will get no more automatic replies`).waitFor();
    expect(await db.emailSuppression.count({ where: { email: address } })).toBe(1);
    await visitor.context().close();
    await page.context().close();
  });
});

describe("the embed on a customer's site", () => {
  it("says after the success message that a confirmation email is on its way", async () => {
    let page = "";
    const site = http.createServer((_req, res) => {
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      res.end(page);
    });
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
    // Another host name than the app's 127.0.0.1: a cross-origin site.
    const siteUrl = `http://localhost:${(site.address() as AddressInfo).port}`;
    try {
      const formId = await newForm({
        name: "Embedded",
        fields: FIELDS,
        settings: {
          allowedOrigins: [siteUrl],
          autoresponder: { enabled: true, subject: "Thanks {{name}}", body: "We got it." },
        },
      });
      page = `<!doctype html><html lang="en"><head><title>Shop</title></head><body>
        <form data-lead-form="${formId}" data-success-message="Thanks from the shop!">
          <label>Name <input name="name" required></label>
          <label>Email <input type="email" name="email" required></label>
          <button type="submit">Send</button>
        </form>
        <script src="${server.url}/embed.js" defer></script></body></html>`;
      const visitor = await (await browser.newContext({ userAgent: DESKTOP_CHROME })).newPage();
      visitor.setDefaultTimeout(10_000);
      await visitor.goto(`${siteUrl}/contact`);
      await visitor.getByLabel("Name").fill("Katherine Johnson");
      await visitor.getByLabel("Email").fill("katherine@example.com");
      await visitor.getByRole("button", { name: "Send" }).click();
      await visitor.getByText("Thanks from the shop! A confirmation email is on its way to you.").waitFor();
      await expect
        .poll(() => smtp.received.filter((mail) => JSON.stringify(mail.to).includes("katherine@")).length, {
          timeout: 15_000,
        })
        .toBe(1);
      await visitor.context().close();
    } finally {
      await new Promise((resolve) => site.close(resolve));
    }
  });
});
