// /people and /people/:id in Chromium (issue 33, items 4 and 5; decision 071), with JavaScript
// on and off: a person found by a search, their first touch and timeline, the lead page's link
// to them, and merging a second record of theirs into them (a refused merge says why).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations } from "../support/axe";
import { launchBrowser, pageWithSession, waitForHydration } from "../support/browser";
import { createFormThroughApi } from "../support/forms";
import { apiClient, loginAsStaff, type ApiClient } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import type { Browser } from "playwright-core";

let server: TestServer;
let browser: Browser;
let cookie: string;
let call: ApiClient;
let formId: string;

beforeAll(async () => {
  [server, browser] = await Promise.all([
    startServer({ SUBMIT_RATE_LIMIT_PER_MINUTE: "0", SUPPORT_RATE_LIMIT_PER_HOUR: "0" }),
    launchBrowser(),
  ]);
  cookie = await loginAsStaff(server.url);
  call = apiClient(server.url, cookie);
  formId = (
    await createFormThroughApi(call, {
      name: "Demo request",
      fields: [
        { key: "name", label: "Name", type: "text" },
        { key: "email", label: "Email", type: "email", required: true },
      ],
    })
  ).id;
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function submit(email: string, name: string, utmSource: string): Promise<string> {
  const res = await call("POST", "/api/leads/submit", {
    formId,
    data: { name, email },
    utm: { utm_source: utmSource },
    landingPageUrl: "https://site.example/demo",
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

describe.each([
  { javaScriptEnabled: true, label: "js" },
  { javaScriptEnabled: false, label: "nojs" },
])("/people with javaScriptEnabled=$javaScriptEnabled", ({ javaScriptEnabled, label }) => {
  it("finds a person, shows where they came from and what they did, and merges a second record into them", async () => {
    const home = `ada-${label}@example.com`;
    const work = `ada-${label}@corp.example`;
    const leadId = await submit(home, "Ada Lovelace", "spring");
    const ticket = await call("POST", "/api/support-requests", {
      email: home,
      name: "Ada",
      subject: `Pricing ${label}`,
      message: "How much is it?",
    });
    expect(ticket.status, ticket.text).toBe(201);
    await submit(work, "Ada at work", "webinar");

    const page = await pageWithSession(browser, server.url, cookie, { javaScriptEnabled });
    await page.goto(`${server.url}/people`);
    if (javaScriptEnabled) {
      await waitForHydration(page);
      expect(await axeViolations(page)).toEqual([]);
    }
    await page.getByRole("searchbox", { name: "Address or name" }).fill(`ada-${label}`);
    await page.getByRole("button", { name: "Find" }).click();
    await page.waitForURL(/\/people\?q=/);
    const table = page.getByRole("table", { name: "People" });
    await expect.poll(() => table.getByRole("row").count()).toBe(3);
    await table.getByRole("link", { name: "Ada Lovelace" }).click();

    await page.getByRole("heading", { level: 1, name: "Ada Lovelace" }).waitFor();
    const about = page.getByRole("region", { name: "About" });
    expect(await about.getByText("spring").count()).toBe(1);
    const timeline = page.getByRole("list", { name: "Timeline" });
    await timeline.getByText(`Pricing ${label}`).waitFor();
    expect(await timeline.getByRole("listitem").count()).toBe(3);
    if (javaScriptEnabled) expect(await axeViolations(page)).toEqual([]);
    const adaUrl = page.url();

    // The lead's page links to its person.
    await page.goto(`${server.url}/leads/${leadId}`);
    await page.getByRole("region", { name: "Person" }).getByRole("link", { name: "See this person" }).click();
    await page.waitForURL(adaUrl);

    // The work record: a merge into itself is refused and says why; into Ada, it joins her.
    await page.goto(`${server.url}/people?q=${encodeURIComponent(work)}`);
    await page.getByRole("table", { name: "People" }).getByRole("link", { name: "Ada at work" }).click();
    await page.getByRole("heading", { level: 1, name: "Ada at work" }).waitFor();
    const into = page.getByLabel("The other person's address or id");
    await into.fill(work);
    await page.getByRole("button", { name: "Merge" }).click();
    await page.getByRole("alert").getByText("cannot be merged into themselves").waitFor();
    await page.getByLabel("The other person's address or id").fill(home.toUpperCase());
    await page.getByRole("button", { name: "Merge" }).click();
    await page.waitForURL(`${adaUrl}?merged=1`);
    await page.getByText("Merged: this person now holds both records.").waitFor();
    const addresses = await page.getByRole("region", { name: "About" }).textContent();
    expect(addresses).toContain(work);
    expect(addresses).toContain(home);
    expect(await page.getByRole("list", { name: "Timeline" }).getByRole("listitem").count()).toBe(4);
    await page.context().close();
  });
});
