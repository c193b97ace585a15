// The lead list in Chromium: bulk-assigning ticked rows with JavaScript off (the plain
// POST form), and with JavaScript on the row click, "select all on this page", the
// filter URL without empty parameters, and the browser's time zone taken at login.
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrResetUser } from "~/staff/user.server";
import { db } from "~/storage/db.server";
import { launchBrowser, loggedInPage } from "../support/browser";
import { STAFF } from "../support/http";
import { createForm, createLeads, day, field } from "../support/leads";
import { startServer, type TestServer } from "../support/server";
import type { Browser } from "playwright-core";

let server: TestServer;
let browser: Browser;
let ownerId: string;
let agentId: string;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  ({
    user: { id: ownerId },
  } = await createOrResetUser({ ...STAFF, role: "owner" }));
  ({
    user: { id: agentId },
  } = await createOrResetUser({
    email: "alex@e2e.example",
    password: STAFF.password,
    name: "Alex Agent",
    role: "agent",
  }));
  const form = await createForm("Contact form", [[field("name", "Name"), field("email", "Email", "email")]]);
  await createLeads(form.id, [
    { data: { name: "Ada Lovelace" }, utmCampaign: "spring", createdAt: day("2026-03-01T10:00:00") },
    { data: { name: "Grace Hopper" }, utmCampaign: "spring", createdAt: day("2026-03-02T10:00:00") },
    { data: { name: "Mary Jackson" }, utmCampaign: "summer", createdAt: day("2026-03-03T10:00:00") },
  ]);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const ownerOf = async (name: string) =>
  (await db.lead.findMany({ select: { ownerId: true, data: true } })).find(
    (lead) => (lead.data as { name: string }).name === name,
  )?.ownerId;

describe("the lead list in a browser", () => {
  it("on a phone shows the first lead on the first screen, with the filters behind a Filters button, without JavaScript", async () => {
    const page = await loggedInPage(browser, server.url, "/leads", {
      javaScriptEnabled: false,
      viewport: { width: 390, height: 844 },
    });
    const firstLead = page.getByRole("table", { name: "Leads" }).getByRole("row").nth(1);
    const box = (await firstLead.boundingBox())!;
    expect(box.y).toBeLessThan(844);
    const search = page.getByRole("form", { name: "Filter leads" }).getByLabel("Search");
    expect(await search.isVisible()).toBe(false);
    await page.getByText("Filters", { exact: true }).click();
    expect(await search.isVisible()).toBe(true);
    await search.fill("grace");
    await page.getByRole("button", { name: "Filter", exact: true }).click();
    await page.waitForURL((url) => url.searchParams.get("q") === "grace");
    // The fold says how many filters are set.
    await page.getByText("Filters (1 set)").waitFor();
    expect(await page.getByRole("table", { name: "Leads" }).getByRole("row").count()).toBe(2);
    await page.context().close();
  });

  it("on a wide screen shows the filters and bulk actions without a fold", async () => {
    // Without JavaScript: no time zone is taken at this login (a later test checks that).
    const page = await loggedInPage(browser, server.url, "/leads", {
      javaScriptEnabled: false,
      viewport: { width: 1280, height: 900 },
    });
    expect(await page.getByRole("form", { name: "Filter leads" }).getByLabel("Search").isVisible()).toBe(true);
    expect(await page.getByText("Filters", { exact: true }).isVisible()).toBe(false);
    expect(await page.getByLabel("Tag (added or removed)").isVisible()).toBe(true);
    await page.context().close();
  });

  it("bulk-assigns the ticked rows with JavaScript off", async () => {
    const page = await loggedInPage(browser, server.url, "/leads", { javaScriptEnabled: false });
    const table = page.getByRole("table", { name: "Leads" });
    await table
      .getByRole("row", { name: /Ada Lovelace/ })
      .getByRole("checkbox")
      .check();
    await table
      .getByRole("row", { name: /Mary Jackson/ })
      .getByRole("checkbox")
      .check();
    await page.getByLabel("Action").selectOption({ label: "Assign to Alex Agent" });
    await page.getByRole("button", { name: "Apply" }).click();

    await page.getByText("2 leads assigned to Alex Agent.").waitFor();
    expect(new URL(page.url()).pathname).toBe("/leads");
    expect(await ownerOf("Ada Lovelace")).toBe(agentId);
    expect(await ownerOf("Mary Jackson")).toBe(agentId);
    expect(await ownerOf("Grace Hopper")).toBeNull();
    expect(await table.getByRole("row", { name: /Ada Lovelace/ }).textContent()).toContain("Alex Agent");
    await page.context().close();
  });

  it("with JavaScript, opens a lead from anywhere on its row but not from its checkbox", async () => {
    const page = await loggedInPage(browser, server.url, "/leads", { timezoneId: "Europe/Berlin" });
    // The browser's zone, taken at this first login of the owner.
    expect((await db.user.findUnique({ where: { id: ownerId }, select: { timeZone: true } }))?.timeZone).toBe(
      "Europe/Berlin",
    );

    const table = page.getByRole("table", { name: "Leads" });
    await page.getByRole("checkbox", { name: "Select all on this page" }).check();
    expect(await table.locator('tbody input[name="ids"]:checked').count()).toBe(3);
    await page.getByRole("checkbox", { name: "Select all on this page" }).uncheck();
    const grace = table.getByRole("row", { name: /Grace Hopper/ });
    await grace.getByRole("checkbox").check();
    expect(new URL(page.url()).pathname).toBe("/leads");

    await grace.getByRole("cell", { name: "Contact form" }).click();
    await page.waitForURL((url) => /^\/leads\/\w+$/.test(url.pathname));
    await page.getByRole("heading", { name: "Grace Hopper" }).waitFor();
    await page.context().close();
  });

  it("with JavaScript, filters to a URL without the empty inputs, and changes the ticked rows in place", async () => {
    const page = await loggedInPage(browser, server.url, "/leads", { acceptDownloads: true });
    // Campaign filters are folded away until opened (or set).
    await page.getByText("Campaign filters (UTM values)").click();
    await page.getByLabel("utm_campaign").fill("spring");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect.poll(() => new URL(page.url()).search).toBe("?utm_campaign=spring");
    await page.getByText("2 leads match these filters.").waitFor();

    // A bulk action with JavaScript: the same list again, the notice, and nothing ticked.
    const ada = page.getByRole("table", { name: "Leads" }).getByRole("row", { name: /Ada Lovelace/ });
    await ada.getByRole("checkbox").check();
    await page.getByLabel("Action").selectOption({ label: "Mark won" });
    await page.getByRole("button", { name: "Apply" }).click();
    await page.getByText("1 lead marked won.").waitFor();
    expect(new URL(page.url()).search).toBe("?utm_campaign=spring");
    expect(await ada.getByRole("cell", { name: "won", exact: true }).count()).toBe(1);
    expect(await ada.getByRole("checkbox").isChecked()).toBe(false);

    // Exporting the ticked row downloads it, and the list stays.
    await ada.getByRole("checkbox").check();
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Export the selection (CSV)" }).click(),
    ]);
    const csv = fs.readFileSync((await download.path())!, "utf8");
    expect(csv).toContain("Ada Lovelace");
    expect(csv).not.toContain("Grace Hopper");
    await page.context().close();
  });
});
