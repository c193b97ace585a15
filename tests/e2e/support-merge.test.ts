// The ticket page's merge action (decision 072), with JavaScript on and off: a wrong reference
// is said next to the field, a right one moves the thread and lands on the target, and the
// merged request's page says where it went, with a link.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrResetUser } from "~/staff/user.server";
import { db } from "~/storage/db.server";
import { launchBrowser, loggedInPage } from "../support/browser";
import { STAFF, apiClient } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import { openTicket } from "../support/support-desk";
import type { Browser } from "playwright-core";

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer({ SUPPORT_RATE_LIMIT_PER_HOUR: "0" }), launchBrowser()]);
  await createOrResetUser(STAFF);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe.each([
  { javaScriptEnabled: true, label: "with JavaScript" },
  { javaScriptEnabled: false, label: "without JavaScript" },
])("merging on the ticket page $label", ({ javaScriptEnabled }) => {
  it("refuses a wrong reference beside the field, then merges and links the old request to the new", async () => {
    const call = apiClient(server.url);
    const email = `merge-${javaScriptEnabled ? "js" : "nojs"}@example.com`;
    const source = await openTicket(call, { email, subject: "Duplicate question", message: "Asked twice." });
    const target = await openTicket(call, { email, subject: "First question", message: "Asked first." });
    await db.ticket.update({ where: { reference: source.reference }, data: { spam: true } });

    const page = await loggedInPage(browser, server.url, `/support/${source.reference}`, { javaScriptEnabled });
    await page.getByText("spam", { exact: true }).waitFor();
    await page.getByText("Merge into another request").click();
    // The same customer's other request is suggested, by reference and subject.
    expect(await page.getByText("The same customer’s other requests:").textContent()).toContain(
      `${target.reference} (First question)`,
    );
    await page.getByLabel("Merge into").fill(source.reference);
    await page.getByRole("button", { name: "Merge", exact: true }).click();
    await page.getByRole("alert").filter({ hasText: "cannot be merged into itself" }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/support/${source.reference}`);

    await page.getByLabel("Merge into").fill(target.reference.toLowerCase());
    await page.getByRole("button", { name: "Merge", exact: true }).click();
    await page.getByRole("heading", { name: `${target.reference}: First question` }).waitFor();
    const bodies = await page.getByTestId("message").allTextContents();
    expect(bodies).toHaveLength(2);
    expect(bodies[0]).toContain("Asked twice.");
    expect(bodies[1]).toContain("Asked first.");

    await page.goto(`${server.url}/support/${source.reference}`);
    const notice = page.getByTestId("merged-into");
    expect(await notice.textContent()).toContain(`merged into ${target.reference}`);
    expect(await page.getByLabel("Merge into").count()).toBe(0);
    await notice.getByRole("link", { name: target.reference }).click();
    await page.waitForURL((url) => url.pathname === `/support/${target.reference}`);
    await page.context().close();
  });
});
