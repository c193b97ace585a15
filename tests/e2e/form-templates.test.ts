// "New form" in a real browser: choosing a template previews its fields as the hosted form
// will show them, and creating the form opens the builder on those fields.
import { afterAll, beforeAll, expect, it } from "vitest";
import { formTemplate } from "~/forms/form-templates";
import { createOrResetUser } from "~/staff/user.server";
import { launchBrowser, logInAt } from "../support/browser";
import { STAFF } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import type { Browser } from "playwright-core";

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  await createOrResetUser(STAFF);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

it("previews the chosen template and creates the form from it", async () => {
  const page = await browser.newPage();
  await logInAt(page, server.url, "/forms");
  const preview = page.getByRole("region", { name: /Preview of the/ });
  await expect(preview.count()).resolves.toBe(0);

  await page.getByRole("radio", { name: /^Quote request/ }).check();
  await preview.waitFor();
  await expect(preview.getAttribute("aria-label")).resolves.toBe("Preview of the Quote request template");
  const labels = formTemplate("quote").fields.map((field) => field.label);
  for (const label of labels) await expect(preview.getByLabel(label, { exact: false }).count()).resolves.toBe(1);
  await expect(preview.getByLabel("Budget", { exact: false }).isDisabled()).resolves.toBe(true);

  // Back to blank: no preview.
  await page.getByRole("radio", { name: /^A blank form/ }).check();
  await preview.waitFor({ state: "detached" });

  await page.getByRole("radio", { name: /^Support request/ }).check();
  await page.getByLabel("Name", { exact: true }).fill("Help desk");
  await page.getByRole("button", { name: "Create form" }).click();
  await page.waitForURL(/\/forms\/[^/]+\/fields$/);
  const list = await page.locator("main").innerText();
  for (const field of formTemplate("support").fields) expect(list).toContain(field.label);
  await page.close();
});
