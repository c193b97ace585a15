// The webhook pages (/settings/webhooks, /settings/webhooks/:id) as a browser without
// JavaScript uses them: form-encoded posts with an `intent`, answered with the page.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { apiClient, loginAsStaff, postForm } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import { startReceiver, type Receiver } from "../support/webhook-receiver";

let server: TestServer;
let receiver: Receiver;
let cookie: string;
let formId: string;

beforeAll(async () => {
  [server, receiver] = await Promise.all([
    startServer({
      WEBHOOK_ALLOW_HTTP: "true",
      WEBHOOK_ALLOW_PRIVATE: "true",
      WEBHOOK_RETRY_DELAYS: "0.2",
      WEBHOOK_POLL_MS: "200",
    }),
    startReceiver(),
  ]);
  cookie = await loginAsStaff(server.url);
  const form = await apiClient(server.url, cookie)("POST", "/api/forms", {
    name: "Pricing <b>form</b>",
    fields: [{ key: "name", label: "Name", type: "text", required: true }],
  });
  expect(form.status, form.text).toBe(201);
  formId = form.body.id;
});
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});
beforeEach(() => {
  receiver.answer = (_, response) => response.writeHead(204).end();
});

/** A form post as a browser sends it: repeated names (the events checkboxes) repeat. */
const post = (path: string, fields: [string, string][], headers: Record<string, string> = {}) =>
  postForm(`${server.url}${path}`, fields, { Cookie: cookie, ...headers });

async function page(path: string) {
  const response = await fetch(`${server.url}${path}`, { headers: { Cookie: cookie }, redirect: "manual" });
  return { status: response.status, html: await response.text() };
}

function newEndpoint(fields: Record<string, string | string[]>): [string, string][] {
  const values = { url: "", description: "", formId: "", kind: "standard", events: ["lead.created"], ...fields };
  return [
    ["intent", "create"],
    ...Object.entries(values).flatMap(([name, value]) =>
      (Array.isArray(value) ? value : [value]).map((item): [string, string] => [name, item]),
    ),
  ];
}

/** Creates an endpoint through the page; its id and the secret the page showed. */
async function create(fields: Record<string, string | string[]> = {}) {
  const before = new Set((await db.webhookEndpoint.findMany({ select: { id: true } })).map((row) => row.id));
  const res = await post("/settings/webhooks", newEndpoint({ url: `${receiver.url}/hook`, ...fields }));
  expect(res.status, res.html).toBe(200);
  const created = await db.webhookEndpoint.findMany({ where: { id: { notIn: [...before] } } });
  expect(created).toHaveLength(1);
  const secret = res.html.match(/data-testid="signing-secret">(whsec_[^<]+)</)?.[1];
  return { id: created[0].id, secret, row: created[0], res };
}

const received = (path: string) => receiver.received.filter((request) => request.path === path);

describe("the webhook pages without a session", () => {
  it("redirect to the login page, and a post changes nothing", async () => {
    for (const path of ["/settings/webhooks", "/settings/webhooks/abc"]) {
      const res = await fetch(`${server.url}${path}`, { redirect: "manual" });
      expect(res.status).toBe(302);
      expect(res.headers.get("location")).toBe(`/login?redirectTo=${encodeURIComponent(path)}`);
    }
    const before = await db.webhookEndpoint.count();
    const res = await fetch(`${server.url}/settings/webhooks`, {
      method: "POST",
      body: new URLSearchParams(newEndpoint({ url: `${receiver.url}/anon` })),
      redirect: "manual",
    });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toMatch(/^\/login\?redirectTo=/);
    expect(await db.webhookEndpoint.count()).toBe(before);
  });
});

describe("/settings/webhooks", () => {
  it("creates an endpoint from a plain post and shows its signing secret once", async () => {
    const { id, secret, row, res } = await create({
      url: `${receiver.url}/crm`,
      description: "CRM <sync>",
      events: ["lead.created", "support_request.created"],
    });
    expect(row).toMatchObject({
      url: `${receiver.url}/crm`,
      description: "CRM <sync>",
      formId: null,
      kind: "standard",
    });
    expect(row.events).toEqual(["lead.created", "support_request.created"]);
    // The secret the page shows is the one deliveries are signed with, with the warning.
    expect(secret).toBe(row.secret);
    expect(res.html).toContain("Copy it now: it will not be shown again.");
    expect(res.html).toContain(`href="/settings/webhooks/${id}"`);
    expect(res.cacheControl).toBe("no-store");
    // Nowhere else: not on the list, not on the endpoint's page, not in the server's output.
    const list = await page("/settings/webhooks");
    expect(list.status).toBe(200);
    expect(list.html).not.toContain(row.secret);
    // The address may wrap at its dots and slashes (<wbr>), so compare its text.
    const link = new RegExp(`href="/settings/webhooks/${id}">(.*?)</a>`).exec(list.html)?.[1] ?? "";
    expect(link.replace(/<!-- -->|<wbr\/>/g, "")).toBe(`${receiver.url}/crm`);
    expect(list.html).toContain("CRM &lt;sync&gt;");
    expect(list.html).toContain("All forms");
    expect((await page(`/settings/webhooks/${id}`)).html).not.toContain(row.secret);
    expect(server.output()).not.toContain(row.secret);
  });

  it("creates a Slack endpoint for one form and lists it with the form's name", async () => {
    const { id, row } = await create({ url: `${receiver.url}/slack`, formId, kind: "slack" });
    expect(row).toMatchObject({ formId, kind: "slack" });
    const list = await page("/settings/webhooks");
    const rowHtml = list.html.slice(list.html.indexOf(`/settings/webhooks/${id}`));
    expect(rowHtml.slice(0, rowHtml.indexOf("</tr>"))).toContain("Pricing &lt;b&gt;form&lt;/b&gt;");
    expect(rowHtml.slice(0, rowHtml.indexOf("</tr>"))).toContain("Slack message");
  });

  it("refuses bad input with 422, the message next to the input, keeping what was typed", async () => {
    const before = await db.webhookEndpoint.count();

    const badUrl = await post(
      "/settings/webhooks",
      newEndpoint({ url: "ftp://example.com/hook", description: "Kept" }),
    );
    expect(badUrl.status).toBe(422);
    expect(badUrl.html).toMatch(/<p id="new-endpoint-url-error" class="field-error">[^<]+<\/p>/);
    expect(badUrl.html).toMatch(/id="new-endpoint-url"[^>]*aria-invalid="true"/);
    expect(badUrl.html).toMatch(/id="new-endpoint-url"[^>]*value="ftp:\/\/example.com\/hook"/);
    expect(badUrl.html).toMatch(/id="new-endpoint-description"[^>]*value="Kept"/);
    expect(badUrl.html).not.toContain('data-testid="signing-secret"');

    const noEvents = await post("/settings/webhooks", newEndpoint({ url: `${receiver.url}/x`, events: [] }));
    expect(noEvents.status).toBe(422);
    expect(noEvents.html).toContain(
      '<p id="new-endpoint-events-error" class="field-error">Subscribe to at least one event.</p>',
    );

    const badEvent = await post(
      "/settings/webhooks",
      newEndpoint({ url: `${receiver.url}/x`, events: ["lead.exploded"] }),
    );
    expect(badEvent.status).toBe(422);
    expect(badEvent.html).toMatch(/<p id="new-endpoint-events-error" class="field-error">Use one of lead.created/);

    // Refused by the domain code after the schema passed: still named by field.
    const unknownForm = await post(
      "/settings/webhooks",
      newEndpoint({ url: `${receiver.url}/x`, formId: "no-such-form" }),
    );
    expect(unknownForm.status).toBe(422);
    expect(unknownForm.html).toContain(
      '<p id="new-endpoint-formId-error" class="field-error">No form with id &quot;no-such-form&quot;.</p>',
    );

    const badKind = await post("/settings/webhooks", newEndpoint({ url: `${receiver.url}/x`, kind: "teams" }));
    expect(badKind.status).toBe(422);
    expect(badKind.html).toContain('<p id="new-endpoint-kind-error" class="field-error">Use standard or slack.</p>');

    expect(await db.webhookEndpoint.count()).toBe(before);
  });

  it("shows each endpoint's health: healthy, failing since a date, disabled with the reason", async () => {
    const healthy = await create({ url: `${receiver.url}/healthy` });
    const failing = await create({ url: `${receiver.url}/failing` });
    const disabled = await create({ url: `${receiver.url}/disabled` });
    await db.webhookEndpoint.update({
      where: { id: healthy.id },
      data: { lastSuccessAt: new Date("2026-11-20T08:15:00Z") },
    });
    await db.webhookEndpoint.update({
      where: { id: failing.id },
      data: { failingSince: new Date("2026-11-21T09:30:00Z"), lastSuccessAt: new Date("2026-11-19T10:00:00Z") },
    });
    await db.webhookEndpoint.update({
      where: { id: disabled.id },
      data: { disabledAt: new Date(), disabledReason: "Every delivery failed since 2026-11-16." },
    });
    const html = (await page("/settings/webhooks")).html;
    const rowOf = (id: string) => {
      const from = html.slice(html.indexOf(`/settings/webhooks/${id}"`));
      return from.slice(0, from.indexOf("</tr>"));
    };
    expect(rowOf(healthy.id)).toContain("Healthy");
    expect(rowOf(healthy.id)).toContain("2026-11-20 08:15 UTC");
    expect(rowOf(failing.id)).toMatch(/Failing since <time dateTime="2026-11-21T09:30:00.000Z">2026-11-21 09:30 UTC/);
    expect(rowOf(failing.id)).toContain("2026-11-19 10:00 UTC");
    expect(rowOf(disabled.id)).toContain("Disabled: Every delivery failed since 2026-11-16.");
    expect(rowOf(disabled.id)).toContain("Never");

    const detail = await page(`/settings/webhooks/${failing.id}`);
    expect(detail.html).toMatch(/data-testid="health"><span class="badge failing">Failing since/);
  });
});

describe("/settings/webhooks/:id", () => {
  it("sends a test event and shows its delivery with the attempt and the answer as text", async () => {
    receiver.answer = (_, response) => response.writeHead(200).end("<script>alert(1)</script> ok");
    const { id, secret } = await create({ url: `${receiver.url}/ping` });
    const res = await post(`/settings/webhooks/${id}`, [["intent", "test"]]);
    expect(res.status).toBe(200);
    expect(res.html).toContain("Test event queued");
    await expect.poll(() => received("/ping").length, { timeout: 10_000 }).toBe(1);
    expect(JSON.parse(received("/ping")[0].body)).toMatchObject({ type: "ping", data: { endpointId: id } });
    expect(received("/ping")[0].headers["webhook-signature"]).toMatch(/^v1,/);
    expect(secret).toMatch(/^whsec_/);

    await expect
      .poll(async () => (await db.webhookDelivery.findFirst({ where: { endpointId: id } }))?.status, {
        timeout: 10_000,
      })
      .toBe("succeeded");
    const html = (await page(`/settings/webhooks/${id}`)).html;
    expect(html).toContain("<code>ping</code>");
    expect(html).toMatch(/data-testid="delivery-status">succeeded</);
    expect(html).toContain("1 attempt ·");
    expect(html).toMatch(/<td[^>]*>200<\/td><td[^>]*>\d+ ms<\/td>/);
    // The receiver's answer is text in a <pre>, never markup.
    expect(html).toContain('<pre class="response-body">&lt;script&gt;alert(1)&lt;/script&gt; ok</pre>');
    expect(html).not.toContain("<script>alert(1)");
  });

  it("retries a failed delivery from its Retry button", async () => {
    receiver.answer = (_, response) => response.writeHead(500).end("down");
    const { id } = await create({ url: `${receiver.url}/flaky` });
    await post(`/settings/webhooks/${id}`, [["intent", "test"]]);
    // One retry (WEBHOOK_RETRY_DELAYS=0.2), then the delivery has failed.
    await expect
      .poll(async () => (await db.webhookDelivery.findFirst({ where: { endpointId: id } }))?.status, {
        timeout: 10_000,
      })
      .toBe("failed");
    const delivery = (await db.webhookDelivery.findFirst({ where: { endpointId: id } }))!;
    const failedPage = (await page(`/settings/webhooks/${id}`)).html;
    expect(failedPage).toMatch(/data-testid="delivery-status">failed</);
    expect(failedPage).toContain("2 attempts");
    expect(failedPage).toMatch(/<td[^>]*>500<\/td>/);
    expect(failedPage).toContain(`name="deliveryId" value="${delivery.id}"`);

    receiver.answer = (_, response) => response.writeHead(204).end();
    const retried = await post(`/settings/webhooks/${id}`, [
      ["intent", "retry"],
      ["deliveryId", delivery.id],
    ]);
    expect(retried.status).toBe(200);
    expect(retried.html).toContain("Delivery queued to be attempted again now.");
    await expect.poll(() => received("/flaky").length, { timeout: 10_000 }).toBe(3);
    await expect
      .poll(async () => (await db.webhookDelivery.findUnique({ where: { id: delivery.id } }))?.status, {
        timeout: 10_000,
      })
      .toBe("succeeded");
    const html = (await page(`/settings/webhooks/${id}`)).html;
    expect(html).toMatch(/data-testid="delivery-status">succeeded</);
    expect(html).not.toContain(`name="deliveryId" value="${delivery.id}"`);

    const unknown = await post(`/settings/webhooks/${id}`, [
      ["intent", "retry"],
      ["deliveryId", "nope"],
    ]);
    expect(unknown.status).toBe(404);
    expect(unknown.html).toContain("No delivery with id &quot;nope&quot;.");
  });

  it("disables and enables the endpoint", async () => {
    const { id } = await create({ url: `${receiver.url}/toggle` });
    const disabled = await post(`/settings/webhooks/${id}`, [["intent", "disable"]]);
    expect(disabled.status).toBe(200);
    expect(disabled.html).toContain("Disabled: Disabled by staff.");
    expect(disabled.html).toMatch(/<input type="hidden" name="intent" value="enable"\/><button[^>]*>Enable</);
    expect((await db.webhookEndpoint.findUnique({ where: { id } }))!.disabledAt).not.toBeNull();
    expect((await page("/settings/webhooks")).html).toContain("Disabled: Disabled by staff.");

    const enabled = await post(`/settings/webhooks/${id}`, [["intent", "enable"]]);
    expect(enabled.status).toBe(200);
    expect(enabled.html).toMatch(/data-testid="health"><span class="badge healthy">Healthy/);
    expect((await db.webhookEndpoint.findUnique({ where: { id } }))!.disabledAt).toBeNull();
  });

  it("rotates the secret, shows the new one once and keeps the old one signing", async () => {
    const { id, secret } = await create({ url: `${receiver.url}/rotate` });
    const res = await post(`/settings/webhooks/${id}`, [["intent", "rotate"]]);
    expect(res.status).toBe(200);
    expect(res.cacheControl).toBe("no-store");
    const shown = res.html.match(/data-testid="signing-secret">(whsec_[^<]+)</)?.[1];
    const row = (await db.webhookEndpoint.findUnique({ where: { id } }))!;
    expect(shown).toBe(row.secret);
    expect(shown).not.toBe(secret);
    expect(row.previousSecret).toBe(secret);
    expect(res.html).toContain("The previous secret keeps signing beside it for 24 hours");
    expect(res.html).toContain("Copy it now: it will not be shown again.");
    const after = (await page(`/settings/webhooks/${id}`)).html;
    expect(after).not.toContain(row.secret);
    expect(after).toContain("Previous secret");
  });

  it("saves the settings, refusing a bad URL next to its input", async () => {
    const { id } = await create({ url: `${receiver.url}/edit` });
    const settings = (fields: Record<string, string | string[]>) =>
      newEndpoint(fields)
        .filter(([name]) => name !== "kind")
        .map(([name, value]): [string, string] => [name, name === "intent" ? "update" : value]);

    const bad = await post(`/settings/webhooks/${id}`, settings({ url: "http://user:pw@127.0.0.1/x" }));
    expect(bad.status).toBe(422);
    expect(bad.html).toMatch(/<p id="settings-url-error" class="field-error">[^<]+<\/p>/);
    expect((await db.webhookEndpoint.findUnique({ where: { id } }))!.url).toBe(`${receiver.url}/edit`);

    const good = await post(
      `/settings/webhooks/${id}`,
      settings({ url: `${receiver.url}/edited`, description: "Edited", events: ["lead.deleted"], formId }),
    );
    expect(good.status).toBe(200);
    expect(good.html).toContain("Saved.");
    const row = (await db.webhookEndpoint.findUnique({ where: { id } }))!;
    expect(row).toMatchObject({ url: `${receiver.url}/edited`, description: "Edited", formId });
    expect(row.events).toEqual(["lead.deleted"]);

    // "All forms" and an empty description clear them.
    await post(`/settings/webhooks/${id}`, settings({ url: `${receiver.url}/edited`, events: ["lead.deleted"] }));
    expect(await db.webhookEndpoint.findUnique({ where: { id } })).toMatchObject({ formId: null, description: "" });
  });

  it("deletes only once “I understand” is ticked, then the page is gone", async () => {
    const { id } = await create({ url: `${receiver.url}/delete` });
    const refused = await post(`/settings/webhooks/${id}`, [["intent", "delete"]]);
    expect(refused.status).toBe(422);
    expect(refused.html).toContain("Tick “I understand” to delete the endpoint.");
    expect(refused.html).toMatch(/<details class="card danger-zone" open="">/);
    expect(await db.webhookEndpoint.findUnique({ where: { id } })).not.toBeNull();

    const deleted = await post(`/settings/webhooks/${id}`, [
      ["intent", "delete"],
      ["confirm", "on"],
    ]);
    expect(deleted.status).toBe(302);
    expect(deleted.location).toBe("/settings/webhooks?deleted=1");
    expect(await db.webhookEndpoint.findUnique({ where: { id } })).toBeNull();
    expect((await page(deleted.location!)).html).toContain("The endpoint was deleted.");

    const gone = await page(`/settings/webhooks/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.html).toContain("There is no webhook endpoint with this id.");
    expect((await post(`/settings/webhooks/${id}`, [["intent", "test"]])).status).toBe(404);
  });

  it("answers an unknown action with 400, hostile ids with 404, and refuses a cross-site post with 403", async () => {
    const { id } = await create({ url: `${receiver.url}/misc` });
    expect((await post(`/settings/webhooks/${id}`, [["intent", "explode"]])).status).toBe(400);
    for (const deliveryId of ["\u0000", "x".repeat(10_000), "'; DROP TABLE x; --"]) {
      const res = await post(`/settings/webhooks/${id}`, [
        ["intent", "retry"],
        ["deliveryId", deliveryId],
      ]);
      expect(res.status).toBe(404);
    }
    for (const hostile of ["%00", "x".repeat(5000), "%F0%9F%92%A9"]) {
      expect((await page(`/settings/webhooks/${hostile}`)).status).toBe(404);
      expect((await post(`/settings/webhooks/${hostile}`, [["intent", "test"]])).status).toBe(404);
    }
    const crossSite = await post(`/settings/webhooks/${id}`, [["intent", "disable"]], {
      Origin: "https://evil.example",
    });
    expect(crossSite.status).toBe(403);
    expect((await db.webhookEndpoint.findUnique({ where: { id } }))!.disabledAt).toBeNull();
  });
});
