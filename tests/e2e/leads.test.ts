import fs from "node:fs";
import ExcelJS from "exceljs";
import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrResetUser } from "~/staff/user.server";
import { db } from "~/storage/db.server";
import { launchBrowser, logInAt } from "../support/browser";
import { STAFF } from "../support/http";
import { createForm, createLeads, day, field } from "../support/leads";
import { startServer, type TestServer } from "../support/server";
import type { Browser, Page } from "playwright-core";

let server: TestServer;
let browser: Browser;
let contact: { id: string };

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  await createOrResetUser(STAFF);
  contact = await createForm("Contact form", [[field("name", "Name"), field("email", "Email", "email")]]);
  const other = await createForm("Newsletter", [[field("email", "Email", "email")]]);
  await createLeads(contact.id, [
    {
      data: { name: "Ada Lovelace", email: "ada@example.com" },
      utmCampaign: "spring",
      utmSource: "google",
      createdAt: day("2026-03-01T10:00:00"),
    },
    {
      data: { name: 'Zoë, "the" tester', email: "zoe@example.com" },
      utmCampaign: "spring",
      utmSource: "newsletter",
      createdAt: day("2026-03-05T10:00:00"),
    },
    {
      data: { name: "=cmd|' /C calc'!A0", email: "evil@example.com" },
      utmCampaign: "spring",
      createdAt: day("2026-03-06T10:00:00"),
    },
    {
      data: { name: "Grace Hopper", email: "grace@example.com" },
      utmCampaign: "summer",
      createdAt: day("2026-03-02T10:00:00"),
    },
  ]);
  await createLeads(other.id, [
    { data: { email: "news@example.com" }, utmCampaign: "spring", createdAt: day("2026-03-03T10:00:00") },
  ]);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function logIn(page: Page, path: string, heading = "Leads") {
  await logInAt(page, server.url, path);
  await page.getByRole("heading", { name: heading, exact: true }).waitFor();
}

const tableNames = (page: Page) =>
  page.getByRole("table", { name: "Leads" }).locator("tbody tr td:nth-child(4)").allTextContents();

describe("the leads page", () => {
  it("filters by form, campaign and date, then downloads exactly that view as CSV and Excel", async () => {
    const context = await browser.newContext({ acceptDownloads: true });
    const page = await context.newPage();
    await logIn(page, "/leads");
    expect(await tableNames(page)).toHaveLength(5);

    await page.getByLabel("Form").selectOption({ label: "Contact form" });
    await page.getByText("Campaign filters (UTM values)").click();
    await page.getByLabel("utm_campaign").fill("spring");
    await page.getByLabel("To").fill("2026-03-05");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get("utm_campaign")).toBe("spring");
    const url = new URL(page.url());
    expect(url.searchParams.get("formId")).toBe(contact.id);
    expect(url.searchParams.get("to")).toBe("2026-03-05");
    await expect.poll(() => tableNames(page)).toHaveLength(2);
    const names = await tableNames(page);
    expect(names[0]).toContain("Zoë");
    expect(names[1]).toContain("Ada Lovelace");

    const [csvDownload] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Download CSV" }).click(),
    ]);
    // The form, then each filter as name-value, then the day of the download.
    expect(csvDownload.suggestedFilename()).toMatch(
      /^leads-contact-form-.*utm_campaign-spring.*-\d{4}-\d{2}-\d{2}\.csv$/,
    );
    expect(csvDownload.suggestedFilename()).toContain("to-2026-03-05");
    const csv = fs.readFileSync((await csvDownload.path())!, "utf8");
    const rows = Papa.parse<string[]>(csv.replace(/^\uFEFF/, ""), { skipEmptyLines: true }).data;
    const column = (header: string) => rows[0].indexOf(header);
    expect(rows[0].slice(0, 3)).toEqual(["Lead ID", "Submitted at (UTC)", "Form"]);
    expect(column("Name")).toBeGreaterThan(2);
    expect(rows.slice(1).map((row) => row[column("Name")])).toEqual(['Zoë, "the" tester', "Ada Lovelace"]);
    expect(rows.slice(1).map((row) => row[1])).toEqual(["2026-03-05T10:00:00.000Z", "2026-03-01T10:00:00.000Z"]);

    const [xlsxDownload] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Download Excel" }).click(),
    ]);
    expect(xlsxDownload.suggestedFilename()).toMatch(/\.xlsx$/);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile((await xlsxDownload.path())!);
    const sheet = workbook.worksheets[0];
    const nameCell = column("Name") + 1;
    expect(sheet.getRow(1).getCell(nameCell).value).toBe("Name");
    expect(sheet.rowCount).toBe(3);
    expect([sheet.getRow(2).getCell(nameCell).value, sheet.getRow(3).getCell(nameCell).value]).toEqual([
      'Zoë, "the" tester',
      "Ada Lovelace",
    ]);
    await context.close();
  });

  it("exports a formula-looking value neutralised", async () => {
    const context = await browser.newContext({ acceptDownloads: true });
    const page = await context.newPage();
    await logIn(page, `/leads?q=${encodeURIComponent("calc")}`);
    expect(await tableNames(page)).toHaveLength(1);
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Download CSV" }).click(),
    ]);
    const rows = Papa.parse<string[]>(fs.readFileSync((await download.path())!, "utf8").slice(1), {
      skipEmptyLines: true,
    }).data;
    // No form chosen: each field's header names its form ("Contact form: Name").
    const name = rows[0].findIndex((header) => header.endsWith(": Name"));
    expect(name).toBeGreaterThan(2);
    expect(rows[1][name]).toBe("'=cmd|' /C calc'!A0");
    await context.close();
  });

  it("opens a lead and deletes it after confirming, without JavaScript", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await logIn(page, "/leads?q=grace");
    await page.getByRole("table", { name: "Leads" }).getByRole("link").first().click();
    await page.getByRole("heading", { name: "Grace Hopper" }).waitFor();
    const values = page.getByRole("region", { name: "Values" });
    expect(await values.getByRole("row", { name: /Name/ }).textContent()).toContain("Grace Hopper");
    expect(await page.getByRole("region", { name: "Source" }).textContent()).toContain("summer");

    await page.getByRole("link", { name: "Delete lead…" }).click();
    await page.getByRole("button", { name: "Yes, delete the lead" }).waitFor();
    expect(await db.lead.count({ where: { searchText: { contains: "grace" } } })).toBe(1);
    await page.getByRole("button", { name: "Yes, delete the lead" }).click();
    await page.getByText("The lead was deleted.").waitFor();
    expect(await db.lead.count({ where: { searchText: { contains: "grace" } } })).toBe(0);
    await context.close();
  });

  it("shows where a form's leads come from, with a chart drawn on the server", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await logIn(page, `/leads/sources?formId=${contact.id}&from=2026-03-01&to=2026-03-07`, "Where leads come from");
    const chart = /Views and leads per day from 2026-03-01 to 2026-03-07: 0 views and 3 leads in all/;
    expect(await page.getByRole("img", { name: chart }).count()).toBe(1);
    expect(await page.getByRole("table", { name: "By utm_campaign" }).textContent()).toContain("spring");
    await context.close();
  });
});
