// Partial capture (issue 31, item 7; decision 060): POST /api/leads/partial keeps the answers
// of a visitor's completed steps once they hold a valid email, on a form that opted in, and
// the submit with that partialId stores one ordinary lead (one lead.created, one notification)
// and forgets the partial. The endpoint is public: refusals are pinned as carefully as success.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { newForm, THREE_STEPS } from "../support/forms";
import { apiClient, loginAsStaff, postForm, type ApiClient } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import { startReceiver, type Receiver } from "../support/webhook-receiver";

let server: TestServer;
let api: ApiClient;
let visitor: ApiClient;
let receiver: Receiver;
let cookie: string;

beforeAll(async () => {
  receiver = await startReceiver();
  server = await startServer({
    SUBMIT_RATE_LIMIT_PER_MINUTE: "0",
    WEBHOOK_ALLOW_HTTP: "true",
    WEBHOOK_ALLOW_PRIVATE: "true",
    WEBHOOK_POLL_MS: "200",
  });
  cookie = await loginAsStaff(server.url);
  api = apiClient(server.url, cookie);
  visitor = apiClient(server.url, undefined, { "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0" });
});
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

const RECIPIENT = "sales@example.com";

async function partialForm(capturePartial = true) {
  return newForm({
    name: "Stepped",
    fields: THREE_STEPS.fields,
    settings: {
      ...THREE_STEPS.settings,
      capturePartial,
      notifications: { recipients: [RECIPIENT], mode: "instant" },
    },
  });
}

const STEP_ONE = { plan: "pro", email: "Ada@Example.com", reason: "support" };

describe("POST /api/leads/partial", () => {
  it("creates a partial (201, a random partialId), updates it with the same id (200), and lists no lead", async () => {
    const formId = await partialForm();
    const created = await visitor("POST", "/api/leads/partial", {
      formId,
      data: STEP_ONE,
      utm: { utm_source: "news" },
    });
    expect(created.status, created.text).toBe(201);
    const { partialId } = created.body;
    expect(partialId).toMatch(/^[A-Za-z0-9_-]{40,}$/);

    const updated = await visitor("POST", "/api/leads/partial", {
      formId,
      partialId,
      data: { ...STEP_ONE, message: "Call after five" },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toEqual({ partialId });

    const rows = await db.partialLead.findMany({ where: { formId } });
    expect(rows).toHaveLength(1);
    expect(rows[0].key).not.toBe(partialId); // only its hash is stored
    expect(rows[0].email).toBe("ada@example.com");
    expect(rows[0].data).toEqual({ ...STEP_ONE, message: "Call after five" });
    expect(rows[0].utmSource).toBeNull(); // the update's own (absent) source replaced it
    expect(await db.lead.count({ where: { formId } })).toBe(0);
    expect(await db.outboxEmail.count({ where: { toEmail: RECIPIENT } })).toBe(0);
  });

  it("takes the hosted page's own form post: the fields of the steps reached, answered in JSON", async () => {
    const formId = await partialForm();
    const fields = new URLSearchParams({ formId, plan: "pro", email: "ada@example.com", reason: "sales" });
    fields.set("_step", "1");
    const created = await visitor("POST", "/api/leads/partial", fields, { Accept: "application/json" });
    expect(created.status, created.text).toBe(201);
    fields.set("_partialId", created.body.partialId);
    fields.set("company", "Analytical Engines");
    const updated = await visitor("POST", "/api/leads/partial", fields, { Accept: "application/json" });
    expect(updated.status, updated.text).toBe(200);
    const row = await db.partialLead.findFirstOrThrow({ where: { formId }, select: { data: true } });
    expect(row.data).toEqual({ plan: "pro", email: "ada@example.com", reason: "sales", company: "Analytical Engines" });
  });

  it("does not require a later step's required field, but needs a valid email", async () => {
    const formId = await partialForm();
    const noEmail = await visitor("POST", "/api/leads/partial", { formId, data: { reason: "support" } });
    expect(noEmail.status).toBe(422);
    expect(noEmail.body.error.details.map((detail: { path: string }) => detail.path)).toEqual(["data.email"]);
    const badEmail = await visitor("POST", "/api/leads/partial", { formId, data: { ...STEP_ONE, email: "ada@" } });
    expect(badEmail.status).toBe(422);
    expect(badEmail.body.error.details.map((detail: { path: string }) => detail.path)).toEqual(["data.email"]);
    // Step 1's own required field is still required.
    const noReason = await visitor("POST", "/api/leads/partial", { formId, data: { email: "ada@example.com" } });
    expect(noReason.status).toBe(422);
    expect(noReason.body.error.details.map((detail: { path: string }) => detail.path)).toEqual(["data.reason"]);
    const unknown = await visitor("POST", "/api/leads/partial", { formId, data: { ...STEP_ONE, vip: "yes" } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.details[0].path).toBe("data.vip");
  });

  it("refuses a form without capturePartial (403), an unknown form (404), a bad partialId (422), and a body of another type (415)", async () => {
    const off = await partialForm(false);
    const refused = await visitor("POST", "/api/leads/partial", { formId: off, data: STEP_ONE });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("forbidden");
    expect(await db.partialLead.count({ where: { formId: off } })).toBe(0);

    const missing = await visitor("POST", "/api/leads/partial", { formId: "nope", data: STEP_ONE });
    expect(missing.status).toBe(404);

    const formId = await partialForm();
    const badId = await visitor("POST", "/api/leads/partial", { formId, data: STEP_ONE, partialId: "../x" });
    expect(badId.status).toBe(422);
    expect(badId.body.error.details[0].path).toBe("partialId");

    const text = await visitor("POST", "/api/leads/partial", "formId=x", { "Content-Type": "text/plain" });
    expect(text.status).toBe(415);
  });

  it("refuses an origin the form does not allow (403), as the submit does", async () => {
    const formId = await newForm({
      fields: THREE_STEPS.fields,
      settings: { capturePartial: true, allowedOrigins: ["https://shop.example"] },
    });
    const res = await visitor(
      "POST",
      "/api/leads/partial",
      { formId, data: STEP_ONE },
      { Origin: "https://evil.example" },
    );
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("origin_not_allowed");
    expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });

  it("starts a fresh partial for an unknown partialId, or one of another form, instead of touching it", async () => {
    const formId = await partialForm();
    const other = await partialForm();
    const first = await visitor("POST", "/api/leads/partial", { formId, data: STEP_ONE });
    const guessed = await visitor("POST", "/api/leads/partial", {
      formId: other,
      partialId: first.body.partialId,
      data: { ...STEP_ONE, email: "eve@example.com" },
    });
    expect(guessed.status).toBe(201);
    expect(guessed.body.partialId).not.toBe(first.body.partialId);
    const mine = await db.partialLead.findFirstOrThrow({ where: { formId }, select: { email: true } });
    expect(mine.email).toBe("ada@example.com");
  });
});

describe("listing partial leads", () => {
  it("lists them only with partial=true (API, newest first, by form, a page at a time) and on /leads/partial", async () => {
    const formId = await partialForm();
    const other = await partialForm();
    for (const [form, email] of [
      [formId, "first@example.com"],
      [formId, "second@example.com"],
      [other, "elsewhere@example.com"],
    ]) {
      const res = await visitor("POST", "/api/leads/partial", { formId: form, data: { ...STEP_ONE, email } });
      expect(res.status, res.text).toBe(201);
    }
    const listed = await api("GET", `/api/leads?partial=true&formId=${formId}&limit=1`);
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.leads.map((item: { email: string; partial: boolean }) => [item.email, item.partial])).toEqual([
      ["second@example.com", true],
    ]);
    const rest = await api("GET", `/api/leads?partial=true&formId=${formId}&cursor=${listed.body.nextCursor}`);
    expect(rest.body.leads.map((item: { email: string }) => item.email)).toEqual(["first@example.com"]);
    expect(rest.body.nextCursor).toBeNull();
    // The lead list never shows them, as without the parameter.
    expect((await api("GET", `/api/leads?formId=${formId}`)).body.leads).toEqual([]);
    expect((await api("GET", `/api/leads?formId=${formId}&partial=false`)).body.leads).toEqual([]);
    // Refusals name the parameter; the partial list takes only formId, cursor and limit.
    const bad = await api("GET", "/api/leads?partial=maybe");
    expect(bad.status).toBe(422);
    expect(bad.body.error.details[0].path).toBe("partial");
    const unknown = await api("GET", "/api/leads?partial=true&status=won");
    expect(unknown.status).toBe(422);
    expect((await api("GET", "/api/leads?partial=true&cursor=nonsense")).status).toBe(422);
    expect((await apiClient(server.url)("GET", "/api/leads?partial=true")).status).toBe(401);

    const page = await fetch(`${server.url}/leads/partial?formId=${formId}`, { headers: { Cookie: cookie } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("first@example.com");
    expect(html).not.toContain("elsewhere@example.com");
  });
});

describe("listing leads and partial leads together (partial=all)", () => {
  it("pages through both newest first, each once, leads first at the same instant, for any page size", async () => {
    // No notifications: the finishing test below counts this file's only instant email.
    const formId = await newForm({
      name: "Joint",
      fields: THREE_STEPS.fields,
      settings: { ...THREE_STEPS.settings, capturePartial: true },
    });
    const at = (seconds: number) => new Date(Date.UTC(2026, 10, 20, 12, 0, seconds));
    // Two leads and three partials, at 10 s (a lead and a partial), 20 s (two partials and a lead) and 5 s.
    const leadAt = async (email: string, seconds: number) => {
      const res = await visitor("POST", "/api/leads/submit", { formId, data: { ...STEP_ONE, email } });
      expect(res.status, res.text).toBe(201);
      await db.lead.update({ where: { id: res.body.id }, data: { createdAt: at(seconds) } });
    };
    const partialAt = async (email: string, seconds: number) => {
      const res = await visitor("POST", "/api/leads/partial", { formId, data: { ...STEP_ONE, email } });
      expect(res.status, res.text).toBe(201);
      await db.partialLead.updateMany({ where: { formId, email }, data: { createdAt: at(seconds) } });
    };
    await leadAt("lead10@example.com", 10);
    await partialAt("partial10@example.com", 10);
    await partialAt("partial20a@example.com", 20);
    await partialAt("partial20b@example.com", 20);
    await leadAt("lead20@example.com", 20);
    await partialAt("partial05@example.com", 5);

    const whole = await api("GET", `/api/leads?partial=all&formId=${formId}`);
    expect(whole.status, whole.text).toBe(200);
    const order = whole.body.leads.map((item: { email: string; partial: boolean }) => [item.email, item.partial]);
    expect(order.slice(0, 1)).toEqual([["lead20@example.com", false]]);
    expect(
      order
        .slice(1, 3)
        .map((pair: [string, boolean]) => pair[0])
        .sort(),
    ).toEqual(["partial20a@example.com", "partial20b@example.com"]);
    expect(order.slice(3)).toEqual([
      ["lead10@example.com", false],
      ["partial10@example.com", true],
      ["partial05@example.com", true],
    ]);
    expect(whole.body.nextCursor).toBeNull();
    for (const limit of [1, 2, 4]) {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await api(
          "GET",
          `/api/leads?partial=all&formId=${formId}&limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`,
        );
        expect(res.status, res.text).toBe(200);
        expect(res.body.leads.length).toBeLessThanOrEqual(limit);
        seen.push(...res.body.leads.map((item: { email: string }) => item.email));
        cursor = res.body.nextCursor;
      } while (cursor);
      expect(seen, `limit ${limit}`).toEqual(order.map((pair: [string, boolean]) => pair[0]));
    }
    expect((await api("GET", "/api/leads?partial=all&cursor=nonsense")).status).toBe(422);
    expect((await api("GET", "/api/leads?partial=all&status=won")).status).toBe(422);
  });
});

describe("finishing the form with its partialId", () => {
  it("stores one ordinary lead, with one lead.created and one notification, and forgets the partial", async () => {
    const formId = await partialForm();
    const hook = await api("POST", "/api/webhooks", {
      url: `${receiver.url}/partial`,
      events: ["lead.created"],
      formId,
    });
    expect(hook.status, hook.text).toBe(201);
    const { partialId } = (await visitor("POST", "/api/leads/partial", { formId, data: STEP_ONE })).body;
    expect(await db.webhookEvent.count({ where: { type: "lead.created" } })).toBe(0);

    const done = await visitor("POST", "/api/leads/submit", {
      formId,
      partialId,
      data: { ...STEP_ONE, message: "Thanks" },
    });
    expect(done.status, done.text).toBe(201);
    expect(await db.partialLead.count({ where: { formId } })).toBe(0);
    expect(await db.lead.count({ where: { formId } })).toBe(1);
    // The one lead.created arrives at the receiver, naming the lead the submit stored.
    await expect.poll(() => receiver.received.length, { timeout: 10_000, interval: 50 }).toBe(1);
    expect(JSON.parse(receiver.received[0].body)).toMatchObject({
      type: "lead.created",
      data: { id: done.body.id },
    });
    // The only lead of this file's forms so far: the one instant notification.
    expect(await db.outboxEmail.count({ where: { toEmail: RECIPIENT } })).toBe(1);

    // The same partialId again (a second tab, a replay): an ordinary lead, no error and no leak.
    const again = await visitor("POST", "/api/leads/submit", { formId, partialId, data: STEP_ONE });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(done.body.id);
    expect(await db.partialLead.count({ where: { formId } })).toBe(0);
    await expect.poll(() => receiver.received.length, { timeout: 10_000, interval: 50 }).toBe(2);
    // The partial endpoint given the completed id starts afresh, never reviving the lead.
    const revived = await visitor("POST", "/api/leads/partial", { formId, partialId, data: STEP_ONE });
    expect(revived.status).toBe(201);
    expect(revived.body.partialId).not.toBe(partialId);
  });
});

describe("the builder's settings page", () => {
  it("turns capturePartial on and off with a plain post, next to a privacy note", async () => {
    const formId = await partialForm(false);
    const page = await fetch(`${server.url}/forms/${formId}/settings`, { headers: { Cookie: cookie } });
    const html = await page.text();
    expect(html).toContain('name="capturePartial"');
    expect(html).toContain("Privacy: a visitor who gives an email and then leaves has not sent the form.");
    const post = (fields: Record<string, string>) =>
      postForm(`${server.url}/forms/${formId}/settings`, { intent: "update-partial", ...fields }, { Cookie: cookie });
    const stored = async () => {
      const row = await db.form.findUniqueOrThrow({ where: { id: formId }, select: { settings: true } });
      return (typeof row.settings === "string" ? JSON.parse(row.settings) : row.settings).capturePartial;
    };

    const on = await post({ capturePartial: "on" });
    expect(on.status).toBe(200);
    expect(on.html).toContain("Saved.");
    expect(await stored()).toBe(true);
    expect((await visitor("POST", "/api/leads/partial", { formId, data: STEP_ONE })).status).toBe(201);

    expect((await post({})).status).toBe(200);
    expect(await stored()).toBe(false);
    expect((await visitor("POST", "/api/leads/partial", { formId, data: STEP_ONE })).status).toBe(403);
  });
});
