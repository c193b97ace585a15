// Tickets by email (INBOUND_NEW_TICKETS=true): an email that names no ticket opens one from
// its sender, with the usual acknowledgement delivered to a real SMTP server; none to an
// auto-reply, bulk or list mail, a bounce, or spam; the provider's or the receiving
// server's spam verdict flags the ticket; a redelivery opens one ticket only; and the
// public support form's per-sender limits hold. Raw MIME and the providers' real posts
// (../shared/fixtures/providers, read in place; variants derived in code).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { apiClient } from "../support/http";
import { readSample, type Sample } from "../support/provider-samples";
import { buildEmail, postRaw } from "../support/raw-email";
import { startServer, type TestServer } from "../support/server";
import { startSmtp, type TestSmtp } from "../support/smtp";
import { bearer, inboundSecret } from "../support/support-desk";
import type { ParsedMail } from "mailparser";

let smtp: TestSmtp;
let server: TestServer;
let call: ReturnType<typeof apiClient>;
const PER_HOUR = 6;
const ACKS_PER_DAY = 3;

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    INBOUND_NEW_TICKETS: "true",
    SUPPORT_RATE_LIMIT_PER_HOUR: String(PER_HOUR),
    SUPPORT_ACKS_PER_RECIPIENT_PER_DAY: String(ACKS_PER_DAY),
  });
  call = apiClient(server.url);
});
afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

const mailsTo = (address: string): ParsedMail[] =>
  smtp.received.filter((mail) => !Array.isArray(mail.to) && mail.to?.value[0]?.address === address);

async function waitForAck(address: string, reference: string): Promise<ParsedMail> {
  await expect
    .poll(() => mailsTo(address).filter((mail) => mail.subject?.includes(reference)).length, { timeout: 15_000 })
    .toBe(1);
  return mailsTo(address).find((mail) => mail.subject?.includes(reference))!;
}

/**
 * That no acknowledgement was written for the ticket (it would be, in the ticket's own
 * transaction), and none reached the SMTP server by the time a later one did.
 */
async function expectNoAck(reference: string, address: string) {
  const ticket = await db.ticket.findUniqueOrThrow({ where: { reference }, select: { id: true } });
  expect(await db.outboxEmail.count({ where: { ticketId: ticket.id } })).toBe(0);
  const barrier = `barrier-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`;
  const res = await postRaw(server.url, buildEmail({ from: barrier, subject: "Barrier", text: "After it." }));
  expect(res.status).toBe(201);
  await waitForAck(barrier, res.body.ticketReference);
  expect(mailsTo(address).filter((mail) => mail.subject?.includes(reference))).toEqual([]);
}

async function ticket(reference: string) {
  const res = await call("GET", `/api/support-requests/${reference}`, undefined, bearer());
  expect(res.status).toBe(200);
  return res.body.ticket as {
    reference: string;
    email: string;
    subject: string;
    status: string;
    spam: boolean;
    messages: Array<{
      body: string;
      fromEmail: string;
      unverifiedSender: boolean;
      isAutoReply: boolean;
      attachments: Array<{ filename: string; size: number }>;
    }>;
    emails: Array<{ kind: string; toEmail: string }>;
  };
}

async function postSample(sample: Sample) {
  const response = await fetch(`${server.url}/api/support-requests/inbound`, {
    method: "POST",
    headers: { ...inboundSecret(), "Content-Type": sample.contentType },
    body: new Uint8Array(sample.body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

let unique = 0;
const sender = (name: string) => `${name}-${++unique}@example.com`;

describe("a new question by email", () => {
  it("opens a ticket from its sender (subject, text, attachments), acknowledged by email; a reply files into it", async () => {
    const from = sender("ada");
    const pdf = Buffer.from("%PDF-1.4 invoice");
    const res = await postRaw(
      server.url,
      buildEmail({
        from: `Ada Lovelace <${from}>`,
        subject: "Do you ship to Norway?",
        text: "Hello,\n\nDo you ship to Norway? Invoice attached.\n\nAda",
        headers: { "Message-ID": `<q-${unique}@mail.example.com>` },
        attachments: [{ filename: "invoice.pdf", contentType: "application/pdf", data: pdf }],
      }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.created).toBe(true);
    const opened = await ticket(res.body.ticketReference);
    expect(opened).toMatchObject({ email: from, subject: "Do you ship to Norway?", status: "open", spam: false });
    expect(opened.messages).toHaveLength(1);
    expect(opened.messages[0]).toMatchObject({ fromEmail: from, unverifiedSender: true, isAutoReply: false });
    expect(opened.messages[0].body).toContain("Do you ship to Norway?");
    expect(opened.messages[0].attachments).toMatchObject([{ filename: "invoice.pdf", size: pdf.length }]);

    const ack = await waitForAck(from, opened.reference);
    expect(ack.subject).toBe(`We received your support request [#${opened.reference}]`);
    // As the form's: nothing the sender wrote is sent back.
    expect(ack.text).not.toContain("Norway");
    expect(opened.emails).toMatchObject([{ kind: "acknowledgement", toEmail: from }]);

    const reply = await postRaw(
      server.url,
      buildEmail({ from, subject: `Re: ${ack.subject}`, text: "Also to Iceland?" }),
    );
    expect(reply.status).toBe(201);
    expect(reply.body.created).toBeUndefined();
    expect(reply.body.ticketReference).toBe(opened.reference);
    expect((await ticket(opened.reference)).messages).toHaveLength(2);
  });

  it("opens a ticket from a provider's real post (Mailgun), its verdict on the sender kept", async () => {
    const res = await postSample(readSample("multi_mail/mailgun-parsed-valid.txt"));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const opened = await ticket(res.body.ticketReference);
    expect(opened).toMatchObject({ email: "james@opennorth.ca", subject: "Test", spam: false });
    // Mailgun's SPF pass for opennorth.ca vouches for the sender.
    expect(opened.messages[0].unverifiedSender).toBe(false);
    expect(opened.messages[0].attachments.map((file) => file.filename)).toEqual(["foo.txt", "bar.txt"]);
    await waitForAck("james@opennorth.ca", opened.reference);

    // The provider's retry: the same post again.
    const again = await postSample(readSample("multi_mail/mailgun-parsed-valid.txt"));
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ duplicate: true, ticketReference: opened.reference });
  });
});

describe("no acknowledgement to machines", () => {
  it.each([
    ["an auto-reply (Auto-Submitted: auto-replied)", { "Auto-Submitted": "auto-replied" }, true],
    ["bulk mail (Precedence: bulk)", { Precedence: "bulk" }, true],
    // Not automatic (a customer may write through a list), but nothing is sent to a list.
    ["list mail (Precedence: list)", { Precedence: "list" }, false],
    ["junk (Precedence: junk)", { Precedence: "junk" }, true],
    ["a bounce (Return-Path: <>)", { "Return-Path": "<>" }, true],
  ])("%s opens a ticket (marked automatic: %s), and nothing is sent back", async (_name, headers, automatic) => {
    const from = sender("machine");
    const res = await postRaw(server.url, buildEmail({ from, subject: "Out of office", text: "Away.", headers }));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const opened = await ticket(res.body.ticketReference);
    expect(opened.messages[0].isAutoReply).toBe(automatic);
    await expectNoAck(opened.reference, from);
  });

  it("acknowledges Auto-Submitted: no as a person's mail", async () => {
    const from = sender("person");
    const res = await postRaw(
      server.url,
      buildEmail({ from, subject: "A question", text: "Hi.", headers: { "Auto-Submitted": "no" } }),
    );
    expect(res.status).toBe(201);
    await waitForAck(from, res.body.ticketReference);
  });

  it("sends nothing for a delivery status report from MAILER-DAEMON", async () => {
    const boundary = "dsn";
    const report = Buffer.from(
      [
        "From: Mail Delivery System <MAILER-DAEMON@mx.example.net>",
        "To: support@localhost",
        "Subject: Undelivered Mail Returned to Sender",
        "MIME-Version: 1.0",
        `Content-Type: multipart/report; report-type=delivery-status; boundary="${boundary}"`,
        "",
        `--${boundary}`,
        "Content-Type: text/plain",
        "",
        "Your message could not be delivered.",
        `--${boundary}`,
        "Content-Type: message/delivery-status",
        "",
        "Reporting-MTA: dns; mx.example.net",
        "",
        "Final-Recipient: rfc822; gone@example.org",
        "Action: failed",
        "Status: 5.1.1",
        `--${boundary}--`,
        "",
      ].join("\r\n"),
    );
    const res = await postRaw(server.url, report);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const opened = await ticket(res.body.ticketReference);
    expect(opened.messages[0].isAutoReply).toBe(true);
    await expectNoAck(opened.reference, "mailer-daemon@mx.example.net");
  });
});

describe("redelivery", () => {
  it("the same message (same Message-ID) delivered twice, or three times at once, opens one ticket", async () => {
    const from = sender("twice");
    const email = buildEmail({
      from,
      subject: "Retried by the provider",
      text: "Once only, please.",
      headers: { "Message-ID": `<retry-${unique}@mail.example.com>` },
    });
    const first = await postRaw(server.url, email);
    expect(first.status).toBe(201);
    const second = await postRaw(server.url, email);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ duplicate: true, ticketReference: first.body.ticketReference });
    expect(await db.ticket.count({ where: { email: from } })).toBe(1);
    await waitForAck(from, first.body.ticketReference);

    // Another sender: each racing copy counts against the daily acknowledgements before one wins.
    const racer = sender("racing");
    const racing = buildEmail({
      from: racer,
      subject: "Retried at once",
      text: "Concurrent copies.",
      headers: { "Message-ID": `<race-${unique}@mail.example.com>` },
    });
    const answers = await Promise.all([1, 2, 3].map(() => postRaw(server.url, racing)));
    const references = new Set(answers.map((answer) => answer.body.ticketReference));
    expect(references.size).toBe(1);
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1);
    expect(await db.ticket.count({ where: { email: racer } })).toBe(1);
    await waitForAck(racer, [...references][0]);
  });
});

describe("spam verdicts", () => {
  /** SendGrid's spam_score field set to a value, and a Message-Id of its own (not a redelivery). */
  const sendGridScored = (score: string): Sample => {
    const sample = readSample("multi_mail/sendgrid-valid.txt");
    const text = sample.body
      .toString("latin1")
      .replace(/(name="spam_score"\r?\n\r?\n)[^\r\n]*/, (_all, before: string) => before + score)
      .replace(/^Message-Id: <[^>]+>/im, `Message-Id: <scored-${score}@opennorth.ca>`);
    return { ...sample, body: Buffer.from(text, "latin1") };
  };

  it.each([
    ["Mailgun's X-Mailgun-Sflag: Yes (its real post of GTUBE)", () => readSample("multi_mail/mailgun-parsed-spam.txt")],
    ["SendGrid's spam_score of 7.5", () => sendGridScored("7.5")],
  ])("%s flags the ticket and sends nothing back", async (_name, sample) => {
    const res = await postSample(sample());
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const opened = await ticket(res.body.ticketReference);
    expect(opened.spam).toBe(true);
    const row = await db.ticket.findUniqueOrThrow({ where: { reference: opened.reference }, select: { id: true } });
    expect(await db.outboxEmail.count({ where: { ticketId: row.id } })).toBe(0);
  });

  it("SendGrid's spam_score below 5 (its real post: -2.599) is not spam", async () => {
    const res = await postSample(sendGridScored("4.9"));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((await ticket(res.body.ticketReference)).spam).toBe(false);
  });

  it.each([
    ["X-Spam-Flag: YES", { "X-Spam-Flag": "YES" }, true],
    ["X-Spam-Status: Yes, score=9.1", { "X-Spam-Status": "Yes, score=9.1 required=5.0 tests=GTUBE" }, true],
    ["Amazon SES's X-SES-Spam-Verdict: FAIL", { "X-SES-Spam-Verdict": "FAIL" }, true],
    ["X-Spam-Status: No, score=0.1", { "X-Spam-Status": "No, score=0.1 required=5.0" }, false],
  ])("raw MIME with %s", async (_name, headers, spam) => {
    const from = sender("scored");
    const res = await postRaw(server.url, buildEmail({ from, subject: "Offer", text: "Buy now.", headers }));
    expect(res.status).toBe(201);
    expect((await ticket(res.body.ticketReference)).spam).toBe(spam);
    if (spam) await expectNoAck(res.body.ticketReference, from);
    else await waitForAck(from, res.body.ticketReference);
  });
});

describe("the public form's per-sender limits", () => {
  it(`acknowledges ${ACKS_PER_DAY} a day, then opens without one; past ${PER_HOUR} an hour, 429`, async () => {
    const from = sender("busy");
    const references: string[] = [];
    for (let i = 0; i < PER_HOUR; i++) {
      const res = await postRaw(server.url, buildEmail({ from, subject: `Question ${i}`, text: `Number ${i}.` }));
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      references.push(res.body.ticketReference);
    }
    const over = await postRaw(server.url, buildEmail({ from, subject: "One more", text: "Again." }));
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe("rate_limited");
    expect(await db.ticket.count({ where: { email: from } })).toBe(PER_HOUR);
    for (const reference of references.slice(0, ACKS_PER_DAY)) await waitForAck(from, reference);
    for (const reference of references.slice(ACKS_PER_DAY)) await expectNoAck(reference, from);
  });
});
