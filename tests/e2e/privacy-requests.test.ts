// /settings/privacy in Chromium (issue 32, item 4; decision 069), with JavaScript on and off:
// an owner downloads everything held for an address as a JSON file, then erases it after
// ticking the confirmation; another person's lead stays.
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { axeViolations } from "../support/axe";
import { launchBrowser, pageWithSession } from "../support/browser";
import { loginAsStaff } from "../support/http";
import { createForm, createLeads, field } from "../support/leads";
import { startServer, type TestServer } from "../support/server";
import type { Browser } from "playwright-core";

let server: TestServer;
let browser: Browser;
let cookie: string;
let formId: string;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  cookie = await loginAsStaff(server.url);
  formId = (await createForm("Contact", [[field("name", "Name"), field("email", "Email", "email")]])).id;
  await createLeads(formId, [{ data: { name: "Someone else", email: "other@example.com" } }]);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const DESKTOP_CHROME =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36";

describe.each([
  { javaScriptEnabled: true, label: "with JavaScript" },
  { javaScriptEnabled: false, label: "without JavaScript" },
])("/settings/privacy $label", ({ javaScriptEnabled }) => {
  it("downloads a person's data as JSON, then erases it once confirmed", async () => {
    const address = `person-${javaScriptEnabled ? "js" : "nojs"}@example.com`;
    await createLeads(formId, [{ data: { name: `Visitor ${address}`, email: address } }]);
    const page = await pageWithSession(browser, server.url, cookie, {
      userAgent: DESKTOP_CHROME,
      javaScriptEnabled,
      acceptDownloads: true,
    });
    await page.goto(`${server.url}/settings/privacy`);
    await page.getByRole("heading", { name: "Privacy requests" }).waitFor();
    if (javaScriptEnabled) expect(await axeViolations(page)).toEqual([]);

    const exporting = page.getByRole("form", { name: "Download a person's data" });
    await exporting.getByLabel("Email address").fill(address.toUpperCase());
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      exporting.getByRole("button", { name: "Download JSON" }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^personal-data-\d{4}-\d{2}-\d{2}\.json$/);
    const document = JSON.parse(fs.readFileSync((await download.path())!, "utf8"));
    expect(document.email).toBe(address);
    expect(document.leads.map((lead: { data: { name: string } }) => lead.data.name)).toEqual([`Visitor ${address}`]);

    const erasing = page.getByRole("form", { name: "Erase a person's data" });
    await erasing.getByLabel("Email address").fill(address);
    // Without the box ticked, nothing goes (the browser's own check is bypassed by the server's).
    await erasing.getByRole("button", { name: "Erase" }).click();
    await page.getByText("Tick the box to confirm").waitFor();
    expect(await db.lead.count({ where: { email: address } })).toBe(1);

    await page.getByRole("form", { name: "Erase a person's data" }).getByLabel("I understand").check();
    await page.getByRole("form", { name: "Erase a person's data" }).getByRole("button", { name: "Erase" }).click();
    await page.getByText(/^Erased: 1 lead, 1 audit entry rewritten\.$/).waitFor();
    expect(await db.lead.count({ where: { email: address } })).toBe(0);
    expect(await db.lead.count({ where: { email: "other@example.com" } })).toBe(1);
    await page.context().close();
  });
});
