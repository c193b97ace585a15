// Working a lead in a real browser, with JavaScript on and off: from new to contacted, a
// note, then won, and the timeline shows both changes and the note, with who and when.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrResetUser } from "~/staff/user.server";
import { launchBrowser, loggedInPage } from "../support/browser";
import { STAFF, apiClient } from "../support/http";
import { createForm, field } from "../support/leads";
import { startServer, type TestServer } from "../support/server";
import type { Browser, Page } from "playwright-core";

let server: TestServer;
let browser: Browser;
let formId: string;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer({ SUBMIT_RATE_LIMIT_PER_MINUTE: "0" }), launchBrowser()]);
  await createOrResetUser({ ...STAFF, name: "Sam Seller" });
  formId = (await createForm("Demo request", [[field("name", "Name"), field("email", "Email", "email")]])).id;
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function submitLead(email: string): Promise<string> {
  const res = await apiClient(server.url)("POST", "/api/leads/submit", { formId, data: { name: "Ada", email } });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

async function setStatus(page: Page, label: string) {
  await page.getByLabel("Status", { exact: true }).selectOption({ label });
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await page.getByRole("status").filter({ hasText: "Saved." }).waitFor();
}

const timeline = (page: Page) => page.getByRole("list", { name: "Timeline" }).getByRole("listitem");

describe.each([
  { javaScriptEnabled: true, label: "with JavaScript" },
  { javaScriptEnabled: false, label: "without JavaScript" },
])("the lead page $label", ({ javaScriptEnabled }) => {
  it("works a lead from new to won with a note", async () => {
    const id = await submitLead(`buyer-${javaScriptEnabled ? "js" : "nojs"}@example.com`);
    const page = await loggedInPage(browser, server.url, `/leads/${id}`, { javaScriptEnabled });
    await page.getByRole("heading", { name: "Ada" }).waitFor();
    expect(await page.getByLabel("Status", { exact: true }).inputValue()).toBe("new");
    await page.getByText("No other leads or support requests from this address.").waitFor();

    await setStatus(page, "Contacted");
    await page.getByLabel("New note").fill("Called: wants a demo on Tuesday.");
    await page.getByRole("button", { name: "Add note" }).click();
    await page.getByRole("status").filter({ hasText: "Note added." }).waitFor();
    // The note box is empty again once the note is on the timeline.
    await expect.poll(() => page.getByLabel("New note").inputValue()).toBe("");
    await setStatus(page, "Won");

    await expect.poll(() => timeline(page).count()).toBe(3);
    const entries = await timeline(page).allTextContents();
    expect(entries[0]).toMatch(
      /^Sam Seller changed the status from New to Contacted \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/,
    );
    expect(entries[1]).toMatch(/^Sam Seller added a note .*Called: wants a demo on Tuesday\.$/);
    expect(entries[2]).toMatch(/^Sam Seller changed the status from Contacted to Won/);
    expect(await page.getByLabel("Status", { exact: true }).inputValue()).toBe("won");

    // An empty note is refused next to the box, and nothing is added.
    await page.getByLabel("New note").fill("   ");
    await page.getByRole("button", { name: "Add note" }).click();
    await page.getByText("Write the note.").waitFor();
    expect(await timeline(page).count()).toBe(3);
    await page.context().close();
  });
});
