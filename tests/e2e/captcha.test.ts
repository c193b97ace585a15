// CAPTCHA widgets in Chromium (issue 31, item 5): the hosted page and the embed draw the
// provider's widget, whose token goes with the post and is checked with the provider's
// siteverify (a local server speaking its protocol). The provider's own script cannot be
// fetched from here: the browser is given a stand-in at its address that does what the
// real one does to the page (a hidden field with the token, and a reset()).
import http from "node:http";
import { afterAll, beforeAll, expect, it } from "vitest";
import { MIN_SUBMIT_MS } from "~/capture/lead-signatures.server";
import { db } from "~/storage/db.server";
import { launchBrowser } from "../support/browser";
import { newForm } from "../support/forms";
import { startServer, type TestServer } from "../support/server";
import type { AddressInfo } from "node:net";
import type { Browser, BrowserContext } from "playwright-core";

const TURNSTILE_SCRIPT = "https://challenges.cloudflare.com/turnstile/v0/api.js";
// Draws every .cf-turnstile: a hidden cf-turnstile-response field with a token; reset() gives a new one.
const STAND_IN = `
  window.__issued = 0;
  var page = Math.random().toString(36).slice(2);
  function issue() {
    document.querySelectorAll(".cf-turnstile").forEach(function (box) {
      var input = box.querySelector("input") || box.appendChild(document.createElement("input"));
      input.type = "hidden";
      input.name = "cf-turnstile-response";
      input.value = "token-" + page + "-" + (++window.__issued);
    });
  }
  window.turnstile = { reset: issue };
  issue();`;

let server: TestServer;
let browser: Browser;
let verifier: http.Server;
let site: http.Server;
let siteUrl: string;
let sitePage = "";
const spent = new Set<string>();

beforeAll(async () => {
  // Each token passes once, as the providers' do.
  verifier = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      const token = new URLSearchParams(body).get("response") ?? "";
      const success = token.startsWith("token-") && !spent.has(token);
      spent.add(token);
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify(success ? { success } : { success, "error-codes": ["timeout-or-duplicate"] }));
    });
  });
  site = http.createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end(sitePage);
  });
  await Promise.all([
    new Promise<void>((resolve) => verifier.listen(0, "127.0.0.1", resolve)),
    new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve)),
  ]);
  siteUrl = `http://localhost:${(site.address() as AddressInfo).port}`;
  [server, browser] = await Promise.all([
    startServer({
      SUBMIT_RATE_LIMIT_PER_MINUTE: "0",
      CAPTCHA_VERIFY_URL_TURNSTILE: `http://127.0.0.1:${(verifier.address() as AddressInfo).port}/siteverify`,
    }),
    launchBrowser(),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await Promise.all([verifier, site].map((s) => new Promise((resolve) => s?.close(resolve))));
});

const protectedForm = () =>
  newForm({
    name: "Protected",
    fields: [
      { key: "name", label: "Your name", type: "text", required: true },
      { key: "email", label: "Email", type: "email", required: true },
    ],
    settings: {
      allowedOrigins: [siteUrl],
      captcha: {
        provider: "turnstile",
        siteKey: "1x00000000000000000000AA",
        secretKey: "2x0000000000000000000000000000000AA",
      },
    },
  });

async function withStandIn(): Promise<BrowserContext> {
  const context = await browser.newContext();
  await context.route(TURNSTILE_SCRIPT, (route) =>
    route.fulfill({ status: 200, contentType: "application/javascript", body: STAND_IN }),
  );
  return context;
}

it("the hosted form sends the widget's token, and after a refusal the widget gives a fresh one", async () => {
  const formId = await protectedForm();
  const context = await withStandIn();
  const page = await context.newPage();
  await page.goto(`${server.url}/f/${formId}`);
  await expect.poll(() => page.locator('input[name="cf-turnstile-response"]').inputValue()).toMatch(/^token-\w+-1$/);
  await expect(page.locator(".cf-turnstile").getAttribute("data-sitekey")).resolves.toBe("1x00000000000000000000AA");

  await page.getByLabel("Your name").fill("Ada Lovelace");
  await page.getByLabel("Email").fill("ada@localhost");
  await page.waitForTimeout(MIN_SUBMIT_MS + 200);
  await page.getByRole("button", { name: "Send" }).click();
  await expect.poll(() => page.locator("form").textContent()).toContain("Enter a valid email address.");
  // The refusal named a field: the token was not spent, and the widget was reset all the same.
  await expect.poll(() => page.evaluate(() => (window as unknown as { __issued: number }).__issued)).toBe(2);

  await page.getByLabel("Email").fill("ada@example.com");
  await page.getByRole("button", { name: "Send" }).click();
  await page.waitForURL(/\/thanks$/);
  const leads = await db.lead.findMany({ where: { formId } });
  expect(leads).toHaveLength(1);
  expect(leads[0]).toMatchObject({ isSpam: false, data: { name: "Ada Lovelace", email: "ada@example.com" } });
  await context.close();
});

it("the embed draws the widget on a customer's form and sends its token; a spent token is refused", async () => {
  const formId = await protectedForm();
  sitePage = `<!doctype html><html><head><title>Shop</title></head><body>
    <form data-lead-form="${formId}" data-captcha="turnstile" data-captcha-sitekey="1x00000000000000000000AA" data-success-message="Thanks!">
      <label>Your name <input name="name" required></label>
      <label>Email <input type="email" name="email" required></label>
      <button type="submit">Send</button>
    </form>
    <script src="${server.url}/embed.js" defer></script></body></html>`;
  const context = await withStandIn();
  const page = await context.newPage();
  await page.goto(`${siteUrl}/contact`);
  await expect.poll(() => page.locator('form input[name="cf-turnstile-response"]').inputValue()).toMatch(/^token-/);
  // The widget sits before the submit button.
  await expect(page.locator(".cf-turnstile").evaluate((box) => box.nextElementSibling?.tagName ?? "")).resolves.toBe(
    "BUTTON",
  );

  await page.getByLabel("Your name").fill("Grace Hopper");
  await page.getByLabel("Email").fill("grace@example.com");
  // A token someone already used: refused, and the widget reset for another try.
  const used = await page.locator('input[name="cf-turnstile-response"]').inputValue();
  spent.add(used);
  await page.getByRole("button", { name: "Send" }).click();
  await expect.poll(() => page.getByRole("alert").textContent()).toContain("CAPTCHA");
  await expect.poll(() => page.locator('input[name="cf-turnstile-response"]').inputValue()).not.toBe(used);

  await page.getByRole("button", { name: "Send" }).click();
  await expect.poll(() => page.getByRole("status").textContent()).toBe("Thanks!");
  expect(await db.lead.count({ where: { formId } })).toBe(1);
  await context.close();
});
