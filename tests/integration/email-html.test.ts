// Every kind of email the service sends arrives as multipart/alternative: the text part
// exactly as the outbox stored it, and an HTML part in the brand (name and logo on top,
// From named after it) in which nothing a visitor, customer or staff member typed is markup.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { digestPeriodEnd, sendDueDigests } from "~/notifications/notifications.server";
import { db } from "~/storage/db.server";
import { createFormThroughApi } from "../support/forms";
import { apiClient, staffSession, type ApiClient } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import { startSmtp, type TestSmtp } from "../support/smtp";
import { startReceiver, type Receiver } from "../support/webhook-receiver";
import type { ParsedMail } from "mailparser";

const PASSWORD = "email html test password";
const BRAND = { name: "Acme <Mail> & Co", accentColor: "#0a7d5a" };
const BRAND_HTML = "Acme &lt;Mail&gt; &amp; Co";
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);
const RECIPIENT = "recipient@team.example";

let smtp: TestSmtp;
let receiver: Receiver;
let server: TestServer;
let owner: ApiClient;

beforeAll(async () => {
  [smtp, receiver] = await Promise.all([startSmtp(), startReceiver()]);
  server = await startServer({
    SMTP_URL: smtp.url,
    OUTBOX_POLL_MS: "100",
    SUPPORT_NOTIFY_EMAILS: "desk@team.example",
    SUPPORT_FROM_EMAIL: "help@support.example",
    SUBMIT_RATE_LIMIT_PER_MINUTE: "0",
    SUPPORT_RATE_LIMIT_PER_HOUR: "0",
    WEBHOOK_ALLOW_HTTP: "true",
    WEBHOOK_ALLOW_PRIVATE: "true",
    WEBHOOK_RETRY_DELAYS: "0.2,0.2,0.2",
    WEBHOOK_POLL_MS: "100",
  });
  ({ call: owner } = await staffSession(server.url, {
    email: "owner@mail.example",
    password: PASSWORD,
    role: "owner",
  }));
  const brand = await owner("PATCH", "/api/settings/branding", {
    ...BRAND,
    logo: `data:image/png;base64,${PNG.toString("base64")}`,
  });
  expect(brand.status, brand.text).toBe(200);
});
afterAll(async () => {
  await server?.stop();
  await Promise.all([smtp?.close(), receiver?.close()]);
});

async function mailTo(address: string, subject: RegExp): Promise<ParsedMail> {
  const find = () =>
    smtp.received.filter(
      (mail) => !Array.isArray(mail.to) && mail.to?.value[0]?.address === address && subject.test(mail.subject ?? ""),
    );
  await expect.poll(() => find().length, { timeout: 15_000, interval: 50 }).toBe(1);
  return find()[0];
}

/** multipart/alternative; the text part as stored; the brand in the HTML part, the logo inside, the From name. */
async function expectBranded(mail: ParsedMail): Promise<string> {
  expect(mail.headers.get("content-type")).toMatchObject({ value: "multipart/alternative" });
  const stored = await db.outboxEmail.findUnique({ where: { messageId: mail.messageId! }, select: { text: true } });
  expect(mail.text?.trimEnd()).toBe(stored!.text.trimEnd());
  expect(mail.from?.value).toEqual([{ name: BRAND.name, address: "help@support.example" }]);
  const html = mail.html as string;
  expect(html).toContain(BRAND_HTML);
  expect(html).toContain("border-top:4px solid #0a7d5a");
  expect(mail.attachments.map((file) => [file.contentType, file.related])).toEqual([["image/png", true]]);
  expect(html).not.toMatch(/<script|<img[^>]+src="https?:/);
  return html;
}

let forms = 0;
async function newForm(notifications: Record<string, unknown>) {
  const form = await createFormThroughApi(owner, {
    name: `Mail form ${++forms}`,
    fields: [
      { key: "name", label: "Full name", type: "text", required: true },
      { key: "email", label: "Email", type: "email", required: true },
    ],
    settings: { notifications },
  });
  return form.id as string;
}
const submit = (formId: string, name: string) =>
  apiClient(server.url)("POST", "/api/leads/submit", { formId, data: { name, email: "lead@example.com" } });

describe("staff notifications", () => {
  it("a new lead: the visitor's value escaped, the link to it a button in the accent colour", async () => {
    const formId = await newForm({ recipients: [RECIPIENT], mode: "instant" });
    expect((await submit(formId, `Ann <b>O'Neil</b> & Co`)).status).toBe(201);
    const html = await expectBranded(await mailTo(RECIPIENT, /^New lead: Mail form 1$/));
    expect(html).toContain("Full name: Ann &lt;b&gt;O&#39;Neil&lt;/b&gt; &amp; Co");
    expect(html).toMatch(
      /<td style="background:#0a7d5a;[^"]*"><a href="http:\/\/[^"]+\/leads\/[^"]+"[^>]*>Open it<\/a>/,
    );
  });

  it("a daily digest", async () => {
    const formId = await newForm({ recipients: ["digest@team.example"], mode: "digest" });
    await submit(formId, "Digest <Person>");
    await sendDueDigests(new Date(digestPeriodEnd(new Date()).getTime() + 24 * 60 * 60_000 + 5 * 60_000));
    const html = await expectBranded(await mailTo("digest@team.example", /^Daily digest/));
    expect(html).toContain("Digest &lt;Person&gt;");
  });

  it("a disabled webhook endpoint", async () => {
    const formId = await newForm({ recipients: ["hooks@team.example"], mode: "digest" });
    receiver.answer = (_request, response) => response.writeHead(503).end();
    const created = await owner("POST", "/api/webhooks", {
      url: `${receiver.url}/down`,
      events: ["lead.created"],
      formId,
    });
    expect(created.status, created.text).toBe(201);
    await submit(formId, "First");
    await expect
      .poll(async () => (await owner("GET", `/api/webhooks/${created.body.id}`)).body.failingSince, { timeout: 10_000 })
      .not.toBeNull();
    await db.webhookEndpoint.update({
      where: { id: created.body.id },
      data: { failingSince: new Date(Date.now() - 121 * 60 * 60_000) },
    });
    await submit(formId, "Second");
    const html = await expectBranded(await mailTo("hooks@team.example", /^Webhook endpoint disabled/));
    expect(html).toContain(`/settings/webhooks/${created.body.id}"`);
  });
});

describe("support email", () => {
  it("the acknowledgement to the customer and the notice to the desk, the customer's text escaped", async () => {
    const res = await apiClient(server.url)("POST", "/api/support-requests", {
      email: "customer@example.com",
      subject: "Broken <blink>",
      message: "It <script>alert(1)</script> broke\nsince Monday & Tuesday",
    });
    expect(res.status, res.text).toBe(201);
    const ack = await expectBranded(await mailTo("customer@example.com", new RegExp(res.body.reference)));
    expect(ack).toContain("##- Please type your reply above this line -##");
    const notice = await expectBranded(await mailTo("desk@team.example", new RegExp(res.body.reference)));
    expect(notice).toContain("It &lt;script&gt;alert(1)&lt;/script&gt; broke<br>since Monday &amp; Tuesday");
  });

  it("a staff reply: its text escaped with line breaks, never its markup", async () => {
    const ticket = await apiClient(server.url)("POST", "/api/support-requests", {
      email: "replied@example.com",
      subject: "Question",
      message: "Hello?",
    });
    const reply = await owner("POST", `/api/support-requests/${ticket.body.reference}/replies`, {
      message: 'Try <a href="https://evil.example">this</a>\nthen restart & wait.',
    });
    expect(reply.status, reply.text).toBe(201);
    const find = () => smtp.received.filter((mail) => mail.text?.includes("then restart & wait."));
    await expect.poll(() => find().length, { timeout: 15_000 }).toBe(1);
    const html = await expectBranded(find()[0]);
    expect(html).toContain(
      "Try &lt;a href=&quot;https://evil.example&quot;&gt;this&lt;/a&gt;<br>then restart &amp; wait.",
    );
    expect(html).not.toContain('href="https://evil.example"');
  });
});

describe("account links", () => {
  it("an invitation and a password reset carry their link as a button", async () => {
    const invited = await owner("POST", "/api/staff", { email: "invitee@mail.example", role: "agent" });
    expect(invited.status, invited.text).toBe(201);
    const invite = await expectBranded(await mailTo("invitee@mail.example", /invited/));
    expect(invite).toMatch(/<a href="http:\/\/[^"]+\/invite\/[A-Za-z0-9_-]{43}"[^>]*>Open the link<\/a>/);

    const reset = await fetch(`${server.url}/forgot-password`, {
      method: "POST",
      body: new URLSearchParams({ email: "owner@mail.example" }),
      redirect: "manual",
    });
    expect(reset.status).toBeLessThan(400);
    const html = await expectBranded(await mailTo("owner@mail.example", /Reset your/));
    expect(html).toMatch(/href="http:\/\/[^"]+\/reset-password\/[A-Za-z0-9_-]{43}"/);
  });
});
