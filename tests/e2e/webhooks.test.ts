// Outbound webhooks from the dashboard, in Chromium with and without JavaScript: staff adds
// an endpoint in /settings/webhooks pointing at a real local receiver, a lead is submitted,
// the receiver gets it signed with the secret the page showed once, and the endpoint's page
// shows the delivery.
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrResetUser } from "~/staff/user.server";
import { db } from "~/storage/db.server";
import { launchBrowser, logInAt } from "../support/browser";
import { STAFF, apiClient, loginAsStaff } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import { startReceiver, type Receiver } from "../support/webhook-receiver";
import type { Browser, Page } from "playwright-core";

let server: TestServer;
let receiver: Receiver;
let browser: Browser;
let formId: string;
const FORM_NAME = "Demo request";

beforeAll(async () => {
  [server, receiver, browser] = await Promise.all([
    startServer({
      WEBHOOK_ALLOW_HTTP: "true",
      WEBHOOK_ALLOW_PRIVATE: "true",
      WEBHOOK_POLL_MS: "200",
      SUBMIT_RATE_LIMIT_PER_MINUTE: "0",
    }),
    startReceiver(),
    launchBrowser(),
  ]);
  await createOrResetUser(STAFF);
  const form = await apiClient(server.url, await loginAsStaff(server.url))("POST", "/api/forms", {
    name: FORM_NAME,
    fields: [
      { key: "name", label: "Name", type: "text", required: true },
      { key: "email", label: "Email", type: "email", required: true },
    ],
  });
  expect(form.status, form.text).toBe(201);
  formId = form.body.id;
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await receiver?.close();
});

const logIn = (page: Page, path: string) => logInAt(page, server.url, path);

const received = (path: string) => receiver.received.filter((request) => request.path === path);

describe.each([
  { javaScriptEnabled: true, label: "with JavaScript" },
  { javaScriptEnabled: false, label: "without JavaScript" },
])("webhooks in the dashboard $label", ({ javaScriptEnabled }) => {
  it("adds an endpoint in /settings/webhooks, delivers a submitted lead to it and shows the delivery", async () => {
    const context = await browser.newContext({ javaScriptEnabled });
    const page = await context.newPage();
    // A step that cannot happen fails fast, naming the step, instead of the whole test timing out.
    page.setDefaultTimeout(10_000);
    await logIn(page, "/forms");
    const nav = page.getByRole("navigation", { name: "Main" });
    // Webhooks sit in the Settings menu with Account, API tokens, Team, Branding and the audit log.
    await nav.getByText("Settings", { exact: true }).click();
    for (const name of ["Account", "API tokens", "Team", "Branding", "Audit log"]) {
      expect(await nav.getByRole("link", { name, exact: true }).count(), name).toBe(1);
    }
    await nav.getByRole("link", { name: "Webhooks" }).click();
    await page.getByRole("heading", { name: "Webhooks", exact: true }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/settings/webhooks");

    const posts: string[] = [];
    page.on("request", (request) => {
      if (request.method() === "POST") posts.push(request.url());
    });
    const newEndpoint = page.getByRole("form", { name: "New endpoint" });
    const path = `/hooks/${javaScriptEnabled ? "js" : "no-js"}`;
    const endpointsBefore = await db.webhookEndpoint.count();

    // No event ticked: the shared schema refuses it, in the browser before anything is
    // sent with JavaScript, on the server without.
    await newEndpoint.getByLabel("URL", { exact: true }).fill(`${receiver.url}${path}`);
    await newEndpoint.getByRole("checkbox", { name: "lead.created" }).uncheck();
    await newEndpoint.getByRole("button", { name: "Add endpoint" }).click();
    await expect
      .poll(() => page.getByRole("form", { name: "New endpoint" }).locator(".field-error").allTextContents())
      .toEqual(["Subscribe to at least one event."]);
    expect(posts).toHaveLength(javaScriptEnabled ? 0 : 1);

    // A destination the server refuses comes back next to the URL, what was typed kept.
    await newEndpoint.getByLabel("URL", { exact: true }).fill("ftp://example.com/hook");
    await newEndpoint.getByRole("checkbox", { name: "lead.created" }).check();
    await newEndpoint.getByRole("button", { name: "Add endpoint" }).click();
    await expect.poll(() => page.locator("#new-endpoint-url-error").count()).toBe(1);
    expect(await newEndpoint.getByLabel("URL", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    expect(await newEndpoint.getByLabel("URL", { exact: true }).inputValue()).toBe("ftp://example.com/hook");
    expect(await db.webhookEndpoint.count()).toBe(endpointsBefore);

    // The endpoint, for this form's lead.created only.
    await newEndpoint.getByLabel("URL", { exact: true }).fill(`${receiver.url}${path}`);
    await newEndpoint.getByLabel("Description (optional)").fill(`CRM ${javaScriptEnabled ? "js" : "no js"}`);
    await newEndpoint.getByLabel("Form", { exact: true }).selectOption({ label: FORM_NAME });
    await newEndpoint.getByRole("button", { name: "Add endpoint" }).click();
    const secret = (await page.getByTestId("signing-secret").textContent())!;
    const row = await db.webhookEndpoint.findFirstOrThrow({ where: { url: `${receiver.url}${path}` } });
    expect(secret).toBe(row.secret);
    expect(row).toMatchObject({ formId, kind: "standard", events: ["lead.created"] });
    const listed = page.getByTestId("endpoint").filter({ hasText: `${receiver.url}${path}` });
    expect(await listed.textContent()).toContain(FORM_NAME);
    expect(await listed.textContent()).toContain("Healthy");
    // With JavaScript the form is emptied for the next endpoint.
    if (javaScriptEnabled) expect(await newEndpoint.getByLabel("URL", { exact: true }).inputValue()).toBe("");

    // A lead from the public API reaches the receiver, signed with the secret shown.
    const lead = await apiClient(server.url)("POST", "/api/leads/submit", {
      formId,
      data: { name: "Ada", email: "ada@example.com" },
    });
    expect(lead.status, lead.text).toBe(201);
    await expect.poll(() => received(path).length, { timeout: 15_000 }).toBe(1);
    const event = new Webhook(secret).verify(received(path)[0].body, received(path)[0].headers) as {
      type: string;
      data: { id: string };
    };
    expect(event.type).toBe("lead.created");
    expect(event.data.id).toBe(lead.body.id);

    // The endpoint's page shows the delivery with its successful attempt.
    await page.getByRole("link", { name: "Open the endpoint" }).click();
    await page.getByRole("heading", { name: `${receiver.url}${path}` }).waitFor();
    expect(await page.getByText(secret).count()).toBe(0);
    const delivery = page.getByTestId("delivery").filter({ hasText: "lead.created" });
    // Reloaded by address: a reload after a post without JavaScript would post again.
    const endpointPage = `${server.url}/settings/webhooks/${row.id}`;
    await expect
      .poll(
        async () => {
          await page.goto(endpointPage);
          return delivery.getByTestId("delivery-status").textContent();
        },
        { timeout: 15_000 },
      )
      .toBe("succeeded");
    const attempt = delivery.getByTestId("attempt");
    expect(await attempt.count()).toBe(1);
    expect(await attempt.locator("td").nth(2).textContent()).toBe("204");

    // A test event from its button arrives and shows as a second delivery.
    await page.getByRole("button", { name: "Send test event" }).click();
    await page.getByText("Test event queued").waitFor();
    await expect.poll(() => received(path).length, { timeout: 15_000 }).toBe(2);
    expect(JSON.parse(received(path)[1].body).type).toBe("ping");
    await expect
      .poll(
        async () => {
          await page.goto(endpointPage);
          return page.getByTestId("delivery").filter({ hasText: "ping" }).getByTestId("delivery-status").textContent();
        },
        { timeout: 15_000 },
      )
      .toBe("succeeded");

    // Disable, then enable again.
    await page.getByRole("button", { name: "Disable", exact: true }).click();
    await page.getByText("Disabled: Disabled by staff.").waitFor();
    expect((await db.webhookEndpoint.findUniqueOrThrow({ where: { id: row.id } })).disabledAt).not.toBeNull();
    await page.getByRole("button", { name: "Enable", exact: true }).click();
    await expect.poll(() => page.getByTestId("health").textContent()).toBe("Healthy");
    expect((await db.webhookEndpoint.findUniqueOrThrow({ where: { id: row.id } })).disabledAt).toBeNull();

    // Rotate: the new secret shows once.
    await page.getByRole("button", { name: "Rotate secret" }).click();
    const rotated = (await page.getByTestId("signing-secret").textContent())!;
    expect(rotated).not.toBe(secret);
    expect(rotated).toBe((await db.webhookEndpoint.findUniqueOrThrow({ where: { id: row.id } })).secret);

    // Delete, confirmed with the box: back on the list, without it.
    await page.getByText("Delete this endpoint…").click();
    await page.getByRole("form", { name: "Delete endpoint" }).getByLabel("I understand").check();
    await page.getByRole("button", { name: "Delete endpoint" }).click();
    await page.getByText("The endpoint was deleted.").waitFor();
    expect(new URL(page.url()).pathname).toBe("/settings/webhooks");
    expect(await db.webhookEndpoint.findUnique({ where: { id: row.id } })).toBeNull();
    await context.close();
  }, 120_000);
});
