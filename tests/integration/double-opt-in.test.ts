// Double opt-in (issue 32, item 2; decision 067), with a real SMTP server and a real webhook
// receiver: a lead of a form with settings.doubleOptIn is stored awaiting confirmation, and
// the only email is the confirmation link to the visitor. A GET of the link (a mail scanner)
// confirms nothing; the page's POST confirms once, and only then do the form's notification
// and lead.created go out. Unconfirmed leads are filterable, and retention deletes them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { digestPeriodEnd, sendDueDigests } from "~/notifications/notifications.server";
import { runRetention } from "~/retention/retention.server";
import { db } from "~/storage/db.server";
import { createFormThroughApi } from "../support/forms";
import { apiClient, loginAsStaff, postForm, type ApiClient } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import { startSmtp, type TestSmtp } from "../support/smtp";
import { startReceiver, type Receiver } from "../support/webhook-receiver";
import type { ParsedMail } from "mailparser";

const RECIPIENT = "sales@team.example";
const DAY_MS = 24 * 60 * 60_000;
let smtp: TestSmtp;
let server: TestServer;
let receiver: Receiver;
let call: ApiClient;
let cookie: string;

beforeAll(async () => {
  [smtp, receiver] = await Promise.all([startSmtp(), startReceiver()]);
  server = await startServer({
    SMTP_URL: smtp.url,
    OUTBOX_POLL_MS: "100",
    SUBMIT_RATE_LIMIT_PER_MINUTE: "0",
    WEBHOOK_ALLOW_HTTP: "true",
    WEBHOOK_ALLOW_PRIVATE: "true",
    WEBHOOK_POLL_MS: "100",
  });
  cookie = await loginAsStaff(server.url);
  call = apiClient(server.url, cookie);
});
afterAll(async () => {
  await server?.stop();
  await Promise.all([smtp?.close(), receiver?.close()]);
});

const to = (mail: ParsedMail) => (Array.isArray(mail.to) ? undefined : mail.to?.value[0]?.address);
const mailsTo = (address: string) => smtp.received.filter((mail) => to(mail) === address);

let forms = 0;
async function optInForm() {
  forms++;
  const form = await createFormThroughApi(call, {
    name: `Newsletter ${forms}`,
    fields: [{ key: "email", label: "Email", type: "email", required: true }],
    settings: { doubleOptIn: true, notifications: { recipients: [RECIPIENT], mode: "instant" } },
  });
  const hook = await call("POST", "/api/webhooks", {
    url: `${receiver.url}/doi-${forms}`,
    events: ["lead.created"],
    formId: form.id,
  });
  expect(hook.status, hook.text).toBe(201);
  return form.id as string;
}

async function confirmationLink(address: string): Promise<string> {
  await expect.poll(() => mailsTo(address).length, { timeout: 15_000, interval: 50 }).toBe(1);
  const text = mailsTo(address)[0].text ?? "";
  const link = /https?:\/\/\S+\/confirm\/\S+/.exec(text)?.[0];
  expect(link, text).toBeDefined();
  return new URL(link!).pathname;
}

describe("a form with double opt-in", () => {
  it("stores the lead unconfirmed, emails only the visitor, and announces it once the link's button is pressed", async () => {
    const formId = await optInForm();
    const submitted = await call("POST", "/api/leads/submit", { formId, data: { email: "Ada@Example.com" } });
    expect(submitted.status, submitted.text).toBe(201);
    expect(submitted.body.awaitingConfirmation).toBe(true);
    const lead = await db.lead.findUniqueOrThrow({ where: { id: submitted.body.id } });
    expect(lead).toMatchObject({ awaitingConfirmation: true, confirmedAt: null });

    expect((await call("GET", `/api/leads/${lead.id}`)).body.lead).toMatchObject({
      awaitingConfirmation: true,
      confirmedAt: null,
    });
    const path = await confirmationLink("ada@example.com");
    expect(mailsTo("ada@example.com")[0].subject).toBe("Please confirm your email address");
    // A mail scanner follows the link: a page with a button, and nothing confirmed.
    const scanned = await fetch(`${server.url}${path}`);
    expect(scanned.status).toBe(200);
    const page = await scanned.text();
    expect(page).toContain("Confirm your email address");
    expect(page).toMatch(/<form[^>]*method="post"/);
    expect((await db.lead.findUniqueOrThrow({ where: { id: lead.id } })).awaitingConfirmation).toBe(true);
    // Neither the staff notification nor the webhook went out meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(mailsTo(RECIPIENT)).toHaveLength(0);
    expect(receiver.received.filter((hit) => hit.body.includes(lead.id))).toHaveLength(0);
    // Listed among the unconfirmed leads, and not among the confirmed ones.
    const waiting = await call("GET", `/api/leads?formId=${formId}&confirmed=false`);
    expect(
      waiting.body.leads.map((item: { id: string; awaitingConfirmation: boolean }) => [
        item.id,
        item.awaitingConfirmation,
      ]),
    ).toEqual([[lead.id, true]]);
    expect((await call("GET", `/api/leads?formId=${formId}&confirmed=true`)).body.leads).toEqual([]);
    expect((await call("GET", `/api/leads?confirmed=maybe`)).status).toBe(422);

    // The button's POST confirms: confirmedAt set, then one notification and one lead.created.
    const confirmed = await fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { Origin: server.url },
      body: new URLSearchParams(),
    });
    expect(confirmed.status).toBe(200);
    expect(await confirmed.text()).toContain("Your address is confirmed");
    const after = await db.lead.findUniqueOrThrow({ where: { id: lead.id } });
    expect(after.awaitingConfirmation).toBe(false);
    expect(after.confirmedAt).not.toBeNull();
    expect((await call("GET", `/api/leads/${lead.id}`)).body.lead).toMatchObject({
      awaitingConfirmation: false,
      confirmedAt: after.confirmedAt!.toISOString(),
    });
    await expect.poll(() => mailsTo(RECIPIENT).length, { timeout: 15_000, interval: 50 }).toBe(1);
    await expect
      .poll(() => receiver.received.filter((hit) => hit.body.includes(lead.id)).length, { timeout: 15_000 })
      .toBe(1);
    expect(JSON.parse(receiver.received.find((hit) => hit.body.includes(lead.id))!.body).type).toBe("lead.created");

    // Pressed again (a second tab, a replay): nothing more is written or sent.
    const again = await fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { Origin: server.url },
      body: new URLSearchParams(),
    });
    expect(await again.text()).toContain("Your address is confirmed");
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(mailsTo(RECIPIENT)).toHaveLength(1);
    expect(await db.webhookEvent.count({ where: { leadId: lead.id, type: "lead.created" } })).toBe(1);
  });

  it("refuses a forged or altered link, and says so for an expired one", async () => {
    const formId = await optInForm();
    const submitted = await call("POST", "/api/leads/submit", { formId, data: { email: "grace@example.com" } });
    const path = await confirmationLink("grace@example.com");
    const [, , token] = path.split("/");
    const [leadId, expires, mac] = token.split(".");
    expect(leadId).toBe(submitted.body.id);
    // Another lead's id under this signature, a later expiry, a made-up token: nothing confirmed.
    for (const forged of [
      `cother.${expires}.${mac}`,
      `${leadId}.${(parseInt(expires, 36) + 99).toString(36)}.${mac}`,
      "nonsense",
    ]) {
      const res = await fetch(`${server.url}/confirm/${forged}`, {
        method: "POST",
        headers: { Origin: server.url },
        body: new URLSearchParams(),
      });
      expect(res.status).toBeLessThan(500);
      expect(await res.text()).toContain("This link does not work");
    }
    expect((await db.lead.findUniqueOrThrow({ where: { id: leadId } })).awaitingConfirmation).toBe(true);
  });

  it("is refused for a form without a required email field (422 at settings.doubleOptIn)", async () => {
    const res = await call("POST", "/api/forms", {
      name: "No address",
      fields: [{ key: "name", label: "Name", type: "text", required: true }],
      settings: { doubleOptIn: true },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.details[0].path).toBe("settings.doubleOptIn");
  });

  it("is switched on and off on the builder's settings page with a plain post, refused without an email field", async () => {
    const post = (formId: string, fields: Record<string, string>) =>
      postForm(
        `${server.url}/forms/${formId}/settings`,
        { intent: "update-double-opt-in", ...fields },
        { Cookie: cookie },
      );
    const stored = async (formId: string) => {
      const row = await db.form.findUniqueOrThrow({ where: { id: formId }, select: { settings: true } });
      return (typeof row.settings === "string" ? JSON.parse(row.settings) : row.settings).doubleOptIn;
    };
    const withEmail = await createFormThroughApi(call, {
      name: "Switch",
      fields: [{ key: "email", label: "Email", type: "email", required: true }],
    });
    const on = await post(withEmail.id, { doubleOptIn: "on" });
    expect(on.status).toBe(200);
    expect(on.html).toContain("Saved.");
    expect(await stored(withEmail.id)).toBe(true);
    expect((await post(withEmail.id, {})).status).toBe(200);
    expect(await stored(withEmail.id)).toBe(false);

    const without = await createFormThroughApi(call, {
      name: "No email",
      fields: [{ key: "name", label: "Name", type: "text", required: true }],
    });
    const refused = await post(without.id, { doubleOptIn: "on" });
    expect(refused.html).toContain("Double opt-in needs a required email field");
    expect(await stored(without.id)).toBeUndefined();
  });

  it("lets retention delete a lead never confirmed, keeping confirmed ones", async () => {
    const formId = await optInForm();
    const old = await call("POST", "/api/leads/submit", { formId, data: { email: "old@example.com" } });
    const kept = await call("POST", "/api/leads/submit", { formId, data: { email: "kept@example.com" } });
    const month = new Date(Date.now() - 40 * 24 * 60 * 60 * 1000);
    await db.lead.updateMany({ where: { id: { in: [old.body.id, kept.body.id] } }, data: { createdAt: month } });
    await db.lead.update({
      where: { id: kept.body.id },
      data: { awaitingConfirmation: false, confirmedAt: new Date() },
    });
    const counts = await runRetention({
      periods: {
        webhookDays: null,
        emailDays: null,
        auditDays: null,
        attachmentDays: null,
        partialLeadDays: null,
        unconfirmedLeadDays: 30,
      },
      pauseMs: 1,
    });
    expect(counts.unconfirmedLeads).toBeGreaterThanOrEqual(1);
    expect(await db.lead.count({ where: { id: old.body.id } })).toBe(0);
    expect(await db.lead.count({ where: { id: kept.body.id } })).toBe(1);
  });

  it("lists a lead in the daily digest of the period it was confirmed in, never while it waits", async () => {
    const digestTo = "digest-optin@team.example";
    const form = await createFormThroughApi(call, {
      name: "Digest newsletter",
      fields: [
        { key: "email", label: "Email", type: "email", required: true },
        { key: "name", label: "Name", type: "text" },
      ],
      settings: { doubleOptIn: true, notifications: { recipients: [digestTo], mode: "digest" } },
    });
    const send = async (email: string, name: string) => {
      const res = await call("POST", "/api/leads/submit", { formId: form.id, data: { email, name } });
      expect(res.status, res.text).toBe(201);
      return res.body.id as string;
    };
    const waiting = await send("waiting@example.com", "Waiting Person");
    await send("prompt@example.com", "Prompt Person");
    const confirmed = await fetch(`${server.url}${await confirmationLink("prompt@example.com")}`, {
      method: "POST",
      headers: { Origin: server.url },
      body: new URLSearchParams(),
      redirect: "manual",
    });
    expect(confirmed.status).toBeLessThan(400);

    // The next digest hour, a few minutes after it: the confirmed lead only.
    const end = digestPeriodEnd(new Date()).getTime() + DAY_MS;
    await sendDueDigests(new Date(end + 5 * 60_000));
    await expect.poll(() => mailsTo(digestTo).length, { timeout: 15_000, interval: 50 }).toBe(1);
    const [first] = mailsTo(digestTo);
    expect(first.subject).toBe("Daily digest: 1 new lead for Digest newsletter");
    expect(first.text).toContain("Prompt Person");
    expect(first.text).not.toContain("Waiting Person");

    // Its visitor confirms the next morning (the time set here, as the test cannot wait a day):
    // it is in the next period's digest, though it was stored in the one before.
    await db.lead.update({
      where: { id: waiting },
      data: { awaitingConfirmation: false, confirmedAt: new Date(end + 60 * 60_000) },
    });
    await sendDueDigests(new Date(end + DAY_MS + 5 * 60_000));
    await expect.poll(() => mailsTo(digestTo).length, { timeout: 15_000, interval: 50 }).toBe(2);
    const second = mailsTo(digestTo)[1];
    expect(second.subject).toBe("Daily digest: 1 new lead for Digest newsletter");
    expect(second.text).toContain("Waiting Person");
    expect(second.text).not.toContain("Prompt Person");
  });
});
