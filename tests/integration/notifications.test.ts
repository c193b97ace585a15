// Staff notifications through the outbox, captured by a real SMTP server: a form's
// instant lead emails (Reply-To the lead) and its daily digest (once, whichever
// instance gets there first), support requests and customer replies, and the email
// that tells staff a failing webhook endpoint was disabled.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { digestPeriodEnd, sendDueDigests } from "~/notifications/notifications.server";
import { db } from "~/storage/db.server";
import { outboxStore } from "~/storage/index.server";
import { replyAddress } from "~/support/inbound/sender-trust.server";
import { createFormThroughApi } from "../support/forms";
import { apiClient, loginAsStaff, STAFF, type ApiClient } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import { startSmtp, type TestSmtp } from "../support/smtp";
import { inboundSecret } from "../support/support-desk";
import { startReceiver, type Receiver } from "../support/webhook-receiver";
import type { ParsedMail } from "mailparser";

const SUPPORT_DESK = ["desk@team.example", "lead@team.example"];

let smtp: TestSmtp;
let server: TestServer;
let receiver: Receiver;
let call: ApiClient;

beforeAll(async () => {
  [smtp, receiver] = await Promise.all([startSmtp(), startReceiver()]);
  server = await startServer({
    SMTP_URL: smtp.url,
    OUTBOX_POLL_MS: "100",
    SUPPORT_NOTIFY_EMAILS: SUPPORT_DESK.join(", "),
    SUPPORT_FROM_EMAIL: "help@support.example",
    SUBMIT_RATE_LIMIT_PER_MINUTE: "0",
    SUPPORT_RATE_LIMIT_PER_HOUR: "0",
    SUPPORT_ACKS_PER_RECIPIENT_PER_DAY: "0",
    WEBHOOK_ALLOW_HTTP: "true",
    WEBHOOK_ALLOW_PRIVATE: "true",
    WEBHOOK_RETRY_DELAYS: "0.2,0.2,0.2",
    WEBHOOK_POLL_MS: "100",
  });
  call = apiClient(server.url, await loginAsStaff(server.url));
});
afterAll(async () => {
  await server?.stop();
  await Promise.all([smtp?.close(), receiver?.close()]);
});

const to = (mail: ParsedMail) => (Array.isArray(mail.to) ? undefined : mail.to?.value[0]?.address);

async function mailsTo(address: string, count: number, subject?: RegExp): Promise<ParsedMail[]> {
  const find = () =>
    smtp.received.filter((mail) => to(mail) === address && (!subject || subject.test(mail.subject ?? "")));
  await expect.poll(() => find().length, { timeout: 15_000, interval: 50 }).toBe(count);
  return find();
}

let forms = 0;
async function newForm(notifications?: Record<string, unknown>) {
  forms++;
  const form = await createFormThroughApi(call, {
    name: `Demo request ${forms}`,
    fields: [
      { key: "name", label: "Full name", type: "text", required: true },
      { key: "work_email", label: "Work email", type: "email", required: true },
      { key: "message", label: "Message", type: "textarea" },
      { key: "newsletter", label: "Newsletter", type: "checkbox" },
    ],
  });
  // Set by a PATCH, as staff change them on a form that exists.
  if (notifications) {
    const patched = await call("PATCH", `/api/forms/${form.id}`, { settings: { notifications } });
    expect(patched.status, patched.text).toBe(200);
  }
  return form as { id: string; name: string };
}

async function submit(formId: string, data: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const res = await apiClient(server.url)("POST", "/api/leads/submit", { formId, data, ...extra });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

describe("settings.notifications through the forms API", () => {
  it("defaults to nobody, instant; takes recipients and a mode; merges a partial change", async () => {
    const form = await newForm();
    expect((await call("GET", `/api/forms/${form.id}`)).body.settings.notifications).toEqual({
      recipients: [],
      mode: "instant",
    });
    const set = await call("PATCH", `/api/forms/${form.id}`, {
      settings: { notifications: { recipients: [" Sales@Team.example ", "sales@team.example", "ops@team.example"] } },
    });
    expect(set.status, set.text).toBe(200);
    expect(set.body.settings.notifications).toEqual({
      recipients: ["sales@team.example", "ops@team.example"],
      mode: "instant",
    });
    const digest = await call("PATCH", `/api/forms/${form.id}`, { settings: { notifications: { mode: "digest" } } });
    expect(digest.body.settings.notifications).toEqual({
      recipients: ["sales@team.example", "ops@team.example"],
      mode: "digest",
    });
  });

  it("refuses a bad address or mode with 422 naming the field, and changes nothing", async () => {
    const form = await newForm({ recipients: ["sales@team.example"] });
    const bad = await call("PATCH", `/api/forms/${form.id}`, {
      settings: { notifications: { recipients: ["sales@team.example", "not an address"] } },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe("validation_failed");
    expect(bad.body.error.details).toContainEqual(
      expect.objectContaining({ path: "settings.notifications.recipients.1" }),
    );
    const mode = await call("PATCH", `/api/forms/${form.id}`, { settings: { notifications: { mode: "hourly" } } });
    expect(mode.status).toBe(422);
    expect(mode.body.error.details).toContainEqual(expect.objectContaining({ path: "settings.notifications.mode" }));
    const extra = await call("PATCH", `/api/forms/${form.id}`, { settings: { notifications: { sms: true } } });
    expect(extra.status).toBe(422);
    const tooMany = Array.from({ length: 21 }, (_, i) => `r${i}@team.example`);
    expect(
      (await call("PATCH", `/api/forms/${form.id}`, { settings: { notifications: { recipients: tooMany } } })).status,
    ).toBe(422);
    expect((await call("GET", `/api/forms/${form.id}`)).body.settings.notifications.recipients).toEqual([
      "sales@team.example",
    ]);
  });
});

describe("instant lead notifications", () => {
  it("emails each recipient the fields in order, the source and a link, with Reply-To the lead", async () => {
    const form = await newForm({ recipients: ["sales@team.example", "ceo@team.example"], mode: "instant" });
    const id = await submit(
      form.id,
      { message: "Call me\nafter 5", work_email: "ada@lovelace.example", name: "Ada Lovelace", newsletter: true },
      {
        utm: { utm_source: "google", utm_campaign: "spring" },
        referrerUrl: "https://www.google.com/search?q=forms",
        landingPageUrl: "https://shop.example/pricing",
      },
    );
    const [sales] = await mailsTo("sales@team.example", 1, new RegExp(form.name));
    const [ceo] = await mailsTo("ceo@team.example", 1, new RegExp(form.name));
    for (const mail of [sales, ceo]) {
      expect(mail.subject).toBe(`New lead: ${form.name}`);
      expect(mail.replyTo?.value[0].address).toBe("ada@lovelace.example");
      expect(mail.from?.value[0].address).toBe("help@support.example");
      expect(mail.headers.get("auto-submitted")).toBe("auto-generated");
    }
    const text = sales.text!;
    // The form's order, not the submission's.
    const order = ["Full name: Ada Lovelace", "Work email: ada@lovelace.example", "Message:", "Newsletter: Yes"].map(
      (line) => text.indexOf(line),
    );
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(text).toContain("  Call me\n  after 5");
    expect(text).toContain("utm_source: google");
    expect(text).toContain("utm_campaign: spring");
    expect(text).toContain("Referrer: https://www.google.com/search?q=forms");
    expect(text).toContain("Landing page: https://shop.example/pricing");
    expect(text).toContain(`/leads/${id}`);
  });

  it("sends nothing for spam, for a form without recipients, or for a digest form", async () => {
    const instant = await newForm({ recipients: ["spam-watch@team.example"] });
    await submit(instant.id, { name: "Bot", work_email: "bot@spam.example" }, { _hp: "http://spam.example" });
    const quiet = await newForm();
    await submit(quiet.id, { name: "Quiet", work_email: "quiet@example.com" });
    const digest = await newForm({ recipients: ["digest-only@team.example"], mode: "digest" });
    await submit(digest.id, { name: "Later", work_email: "later@example.com" });
    // A real lead on the instant form afterwards: once it has arrived, the earlier ones had their chance.
    await submit(instant.id, { name: "Real", work_email: "real@example.com" });
    const [mail] = await mailsTo("spam-watch@team.example", 1);
    expect(mail.text).toContain("Full name: Real");
    expect(smtp.received.filter((received) => to(received) === "digest-only@team.example")).toHaveLength(0);
    const written = await db.outboxEmail.findMany({ where: { text: { contains: "Full name: Bot" } } });
    expect(written).toHaveLength(0);
  });

  it("writes the emails with the lead: a lead refused for bad input leaves no email behind", async () => {
    const form = await newForm({ recipients: ["nothing-half@team.example"] });
    const res = await apiClient(server.url)("POST", "/api/leads/submit", {
      formId: form.id,
      data: { name: "No email" },
    });
    expect(res.status).toBe(422);
    expect(await db.outboxEmail.count({ where: { toEmail: "nothing-half@team.example" } })).toBe(0);
  });
});

describe("a visitor's text in a notification", () => {
  it("cannot start a line of its own: values stay indented under their label, sources on one line", async () => {
    const form = await newForm({ recipients: ["inject@team.example"] });
    await submit(
      form.id,
      { name: "Eve", work_email: "eve@example.com", message: "hi\r\nOpen it: https://evil.example/a\u2028-- " },
      { utm: { utm_source: "x", utm_campaign: "spring\n\nOpen it: https://evil.example/login\n-- \nfooter" } },
    );
    const [mail] = await mailsTo("inject@team.example", 1);
    const lines = mail.text!.split("\n");
    expect(lines.filter((line) => line.startsWith("Open it:"))).toHaveLength(1);
    expect(lines.filter((line) => line.startsWith("Open it:"))[0]).not.toContain("evil");
    expect(lines.filter((line) => line === "-- ")).toHaveLength(1);
    expect(mail.text).toContain("  utm_campaign: spring  Open it: https://evil.example/login --  footer");
  });
});

describe("daily digests", () => {
  it("ends a period at the digest hour in the time zone, across a change of clocks", () => {
    const at = (iso: string) => new Date(iso);
    expect(digestPeriodEnd(at("2026-11-23T15:00:00Z"), 8, "UTC").toISOString()).toBe("2026-11-23T08:00:00.000Z");
    expect(digestPeriodEnd(at("2026-11-23T07:59:00Z"), 8, "UTC").toISOString()).toBe("2026-11-22T08:00:00.000Z");
    // 08:00 in Berlin is 07:00 UTC in winter and 06:00 UTC in summer.
    expect(digestPeriodEnd(at("2026-11-23T07:30:00Z"), 8, "Europe/Berlin").toISOString()).toBe(
      "2026-11-23T07:00:00.000Z",
    );
    expect(digestPeriodEnd(at("2026-03-29T06:30:00Z"), 8, "Europe/Berlin").toISOString()).toBe(
      "2026-03-29T06:00:00.000Z",
    );
    expect(digestPeriodEnd(at("2026-03-29T05:30:00Z"), 8, "Europe/Berlin").toISOString()).toBe(
      "2026-03-28T07:00:00.000Z",
    );
    expect(digestPeriodEnd(at("2026-11-23T02:00:00Z"), 9, "America/New_York").toISOString()).toBe(
      "2026-11-22T14:00:00.000Z",
    );
  });

  it("sends one digest per recipient of the period's leads, once, even when two instances race", async () => {
    const form = await newForm({ recipients: ["digest@team.example", "boss@team.example"], mode: "digest" });
    await submit(form.id, { name: "First Person", work_email: "first@example.com" }, { utm: { utm_source: "news" } });
    await submit(form.id, { name: "Second Person", work_email: "second@example.com" });
    await submit(form.id, { name: "Spam Bot", work_email: "bot@example.com" }, { _hp: "x" });
    // The next digest hour, a few minutes after it.
    const due = new Date(digestPeriodEnd(new Date()).getTime() + 24 * 60 * 60_000 + 5 * 60_000);
    await Promise.all([sendDueDigests(due), sendDueDigests(due)]);
    await sendDueDigests(due);
    const [mail] = await mailsTo("digest@team.example", 1);
    await mailsTo("boss@team.example", 1);
    expect(mail.subject).toBe(`Daily digest: 2 new leads for ${form.name}`);
    expect(mail.text).toContain("Full name: First Person");
    expect(mail.text).toContain("Full name: Second Person");
    expect(mail.text).toContain("utm_source: news");
    expect(mail.text).not.toContain("Spam Bot");
    expect(mail.text).toMatch(new RegExp(`/leads/c[0-9a-z]+`));
    expect(mail.headers.get("auto-submitted")).toBe("auto-generated");
    expect(await db.notificationDigest.count({ where: { formId: form.id, leadCount: 2 } })).toBe(1);
    // The next period starts where this one ended: nothing new, nothing sent.
    await sendDueDigests(new Date(due.getTime() + 24 * 60 * 60_000));
    expect(await db.notificationDigest.count({ where: { formId: form.id } })).toBeGreaterThanOrEqual(2);
    expect(await db.outboxEmail.count({ where: { toEmail: "digest@team.example" } })).toBe(1);
  });
});

describe("changing a form between instant and digest", () => {
  it("emails every lead once: leaving the digest sends the leads since the last one, entering it starts afresh", async () => {
    const form = await newForm({ recipients: ["switch@team.example"], mode: "digest" });
    await submit(form.id, { name: "Under Digest", work_email: "d@example.com" });
    await call("PATCH", `/api/forms/${form.id}`, { settings: { notifications: { mode: "instant" } } });
    const [flushed] = await mailsTo("switch@team.example", 1, /Digest until now/);
    expect(flushed.text).toContain("Full name: Under Digest");
    await submit(form.id, { name: "Under Instant", work_email: "i@example.com" });
    await mailsTo("switch@team.example", 1, /New lead/);
    await call("PATCH", `/api/forms/${form.id}`, { settings: { notifications: { mode: "digest" } } });
    await submit(form.id, { name: "Digest Again", work_email: "a@example.com" });
    const due = new Date(digestPeriodEnd(new Date()).getTime() + 24 * 60 * 60_000 + 5 * 60_000);
    await sendDueDigests(due);
    const [daily] = await mailsTo("switch@team.example", 1, /Daily digest/);
    expect(daily.subject).toBe(`Daily digest: 1 new lead for ${form.name}`);
    expect(daily.text).toContain("Full name: Digest Again");
    expect(daily.text).not.toContain("Under Instant");
    expect(daily.text).not.toContain("Under Digest");
  });
});

describe("support notifications", () => {
  it("tells SUPPORT_NOTIFY_EMAILS of a new request and of each customer reply, never of an auto-reply", async () => {
    const created = await apiClient(server.url)("POST", "/api/support-requests", {
      email: "buyer@example.com",
      name: "Bea Buyer",
      subject: "Refund for #SR-1 please",
      message: "The parcel never came.",
    });
    expect(created.status, created.text).toBe(201);
    const reference = created.body.reference as string;
    for (const address of SUPPORT_DESK) {
      const [mail] = await mailsTo(address, 1, new RegExp(`New support request ${reference}`));
      // No "#" from the customer's subject: a staff reply to this email names no ticket.
      expect(mail.subject).toBe(`New support request ${reference}: Refund for SR-1 please`);
      expect(mail.text).toContain("Bea Buyer <buyer@example.com> opened");
      expect(mail.text).toContain("The parcel never came.");
      expect(mail.text).toContain(`/support/${reference}`);
      expect(mail.replyTo).toBeUndefined();
    }
    const inbound = (body: Record<string, unknown>) =>
      apiClient(server.url)("POST", "/api/support-requests/inbound", body, inboundSecret());
    const reply = await inbound({
      from: "buyer@example.com",
      to: replyAddress(reference),
      subject: `Re: Refund [#${reference}]`,
      text: "Any news?",
    });
    expect(reply.status, reply.text).toBe(201);
    const [notice] = await mailsTo(SUPPORT_DESK[0], 1, /Customer reply/);
    expect(notice.subject).toBe(`Customer reply on ${reference}: Refund for SR-1 please`);
    expect(notice.text).toContain("Any news?");
    const auto = await inbound({
      from: "buyer@example.com",
      to: replyAddress(reference),
      subject: `Out of office [#${reference}]`,
      text: "I am away.",
      headers: { "Auto-Submitted": "auto-replied" },
    });
    expect(auto.status, auto.text).toBe(201);
    // A later real reply arrives; the auto-reply before it never did.
    await inbound({
      from: "buyer@example.com",
      to: replyAddress(reference),
      subject: `Re [#${reference}]`,
      text: "Hello?",
    });
    const notices = await mailsTo(SUPPORT_DESK[0], 2, /Customer reply/);
    expect(notices.map((mail) => mail.text).join("\n")).not.toContain("I am away.");

    // A stranger who writes into the ticket is named as themselves, and not quoted.
    const stranger = await inbound({
      from: "mallory@evil.example",
      to: "help@support.example",
      subject: `Re: [#${reference}]`,
      text: "New bank details: IBAN XX00",
    });
    expect(stranger.status, stranger.text).toBe(201);
    const all = await mailsTo(SUPPORT_DESK[0], 3, /Customer reply/);
    const strangers = all.find((mail) => mail.text!.includes("mallory@evil.example"))!;
    expect(strangers.text).toContain("mallory@evil.example replied on");
    expect(strangers.text).toContain("could not be verified");
    expect(strangers.text).not.toContain("IBAN");
    expect(strangers.text).not.toContain("Bea Buyer");
  });

  it("sends at most 10 reply notices per ticket an hour, filing every message", async () => {
    const created = await apiClient(server.url)("POST", "/api/support-requests", {
      email: "chatty@example.com",
      subject: "Many replies",
      message: "First",
    });
    const reference = created.body.reference as string;
    for (let i = 0; i < 12; i++) {
      const res = await apiClient(server.url)(
        "POST",
        "/api/support-requests/inbound",
        { from: "chatty@example.com", to: replyAddress(reference), subject: `Re [#${reference}]`, text: `Reply ${i}` },
        inboundSecret(),
      );
      expect(res.status, res.text).toBe(201);
    }
    const ticket = await db.ticket.findUniqueOrThrow({
      where: { reference },
      select: { _count: { select: { messages: true } } },
    });
    expect(ticket._count.messages).toBe(13);
    await mailsTo(SUPPORT_DESK[1], 10, new RegExp(`Customer reply on ${reference}`));
    expect(
      await db.outboxEmail.count({
        where: { toEmail: SUPPORT_DESK[1], subject: { startsWith: `Customer reply on ${reference}` } },
      }),
    ).toBe(10);
  });
});

describe("a webhook endpoint failing for days", () => {
  it("is disabled after WEBHOOK_DISABLE_AFTER_HOURS of failures, and the form's recipients are told", async () => {
    const form = await newForm({ recipients: ["hooks@team.example"], mode: "digest" });
    receiver.answer = (request, response) => response.writeHead(request.path === "/down" ? 503 : 204).end();
    const created = await call("POST", "/api/webhooks", {
      url: `${receiver.url}/down`,
      events: ["lead.created"],
      formId: form.id,
    });
    expect(created.status, created.text).toBe(201);
    const endpointId = created.body.id as string;
    await submit(form.id, { name: "Health", work_email: "health@example.com" });
    await expect
      .poll(async () => (await call("GET", `/api/webhooks/${endpointId}`)).body.failingSince, { timeout: 10_000 })
      .not.toBeNull();
    expect((await call("GET", `/api/webhooks/${endpointId}`)).body.enabled).toBe(true);
    // Five days and a bit into the streak, the next failure disables it.
    await db.webhookEndpoint.update({
      where: { id: endpointId },
      data: { failingSince: new Date(Date.now() - 121 * 60 * 60_000) },
    });
    await submit(form.id, { name: "Health 2", work_email: "health2@example.com" });
    await expect
      .poll(async () => (await call("GET", `/api/webhooks/${endpointId}`)).body.enabled, { timeout: 10_000 })
      .toBe(false);
    const endpoint = (await call("GET", `/api/webhooks/${endpointId}`)).body;
    expect(endpoint.disabledReason).toMatch(/^Every delivery failed since /);
    const [mail] = await mailsTo("hooks@team.example", 1, /Webhook endpoint disabled/);
    expect(mail.subject).toBe(`Webhook endpoint disabled: ${new URL(receiver.url).host}`);
    expect(mail.text).toContain(`/settings/webhooks/${endpointId}`);
    // Enabled again by staff: its old streak no longer counts.
    const enabled = await call("PATCH", `/api/webhooks/${endpointId}`, { enabled: true });
    expect(enabled.body).toMatchObject({ enabled: true, failingSince: null });
  });

  it("records the last success and clears a failing streak when a delivery gets through", async () => {
    // A lead with both an event and an email to write: one transaction carries both.
    const form = await newForm({ recipients: ["flaky@team.example"] });
    let down = true;
    receiver.answer = (request, response) => response.writeHead(request.path === "/flaky" && down ? 500 : 204).end();
    const created = await call("POST", "/api/webhooks", {
      url: `${receiver.url}/flaky`,
      events: ["lead.created"],
      formId: form.id,
    });
    const endpointId = created.body.id as string;
    await submit(form.id, { name: "Flaky", work_email: "flaky@example.com" });
    await expect
      .poll(async () => (await call("GET", `/api/webhooks/${endpointId}`)).body.failingSince, { timeout: 10_000 })
      .not.toBeNull();
    down = false;
    await expect
      .poll(async () => (await call("GET", `/api/webhooks/${endpointId}`)).body.lastSuccessAt, { timeout: 10_000 })
      .not.toBeNull();
    expect((await call("GET", `/api/webhooks/${endpointId}`)).body).toMatchObject({
      failingSince: null,
      enabled: true,
    });
    const [mail] = await mailsTo("flaky@team.example", 1);
    expect(mail.text).toContain("Full name: Flaky");
  });
});

describe("without staff recipients on the form", () => {
  it("tells every staff user when their endpoint is disabled", async () => {
    const form = await newForm();
    receiver.answer = (request, response) => response.writeHead(request.path === "/gone" ? 410 : 204).end();
    const created = await call("POST", "/api/webhooks", {
      url: `${receiver.url}/gone`,
      events: ["lead.created"],
      formId: form.id,
    });
    const endpointId = created.body.id as string;
    await db.webhookEndpoint.update({
      where: { id: endpointId },
      data: { failingSince: new Date(Date.now() - 200 * 60 * 60_000) },
    });
    await submit(form.id, { name: "Gone", work_email: "gone@example.com" });
    const [mail] = await mailsTo(STAFF.email, 1, /Webhook endpoint disabled/);
    // The host, not the URL: a URL can be the credential (a Slack hook's).
    expect(mail.text).toContain(`on ${new URL(receiver.url).host} was disabled`);
    expect(mail.text).not.toContain("/gone");
  });
});

describe("the outbox's order", () => {
  it("claims mail to customers before staff notifications that are due as long", async () => {
    const created = await apiClient(server.url)("POST", "/api/support-requests", {
      email: "first-in-line@example.com",
      subject: "Order",
      message: "Hello",
    });
    const ticket = await db.ticket.findUniqueOrThrow({
      where: { reference: created.body.reference },
      select: { id: true },
    });
    // Due in an hour, so this server's worker (on the real clock) leaves them alone.
    const hour = Date.now() + 60 * 60_000;
    await db.outboxEmail.createMany({
      data: Array.from({ length: 12 }, (_, i) => ({
        toEmail: `flood${i}@team.example`,
        subject: "New lead",
        text: "x",
        messageId: `<flood${i}.order@test>`,
        nextAttemptAt: new Date(hour + i),
      })),
    });
    const reply = await db.outboxEmail.create({
      data: {
        ticketId: ticket.id,
        toEmail: "first-in-line@example.com",
        subject: "Re: Order",
        text: "Answer",
        messageId: "<reply.order@test>",
        nextAttemptAt: new Date(hour + 60_000),
      },
    });
    const claimed = await outboxStore.claimDue(new Date(hour + 2 * 60_000), new Date(hour + 3 * 60_000), 10);
    expect(claimed).toHaveLength(10);
    expect(claimed).toContain(reply.id);
  });
});
