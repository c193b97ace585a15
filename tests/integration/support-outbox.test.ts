import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { apiClient, loginAsStaff } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import { startSmtp, type TestSmtp } from "../support/smtp";
import { bearer, inboundSecret, newTicket } from "../support/support-desk";
import type { ParsedMail } from "mailparser";

let smtp: TestSmtp;
let server: TestServer;
let call: ReturnType<typeof apiClient>;

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    SUPPORT_RATE_LIMIT_PER_HOUR: "0",
    SUPPORT_FROM_EMAIL: "help@support.example",
  });
  call = apiClient(server.url);
});
afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

function mailsTo(address: string, received = smtp.received): ParsedMail[] {
  return received.filter((mail) => mail.to && !Array.isArray(mail.to) && mail.to.value[0]?.address === address);
}

async function waitForMails(address: string, count: number, received = smtp.received): Promise<ParsedMail[]> {
  await expect.poll(() => mailsTo(address, received).length, { timeout: 15_000, interval: 50 }).toBe(count);
  return mailsTo(address, received);
}

function referencesOf(mail: ParsedMail): string[] {
  return mail.references === undefined ? [] : Array.isArray(mail.references) ? mail.references : [mail.references];
}

describe("delivering support email over SMTP", () => {
  it("sends the customer an acknowledgement carrying the reference, threaded and marked automatic", async () => {
    const ticket = await newTicket(call);
    const [ack] = await waitForMails(ticket.email, 1);
    expect(ack.subject).toBe(`We received your support request [#${ticket.reference}]`);
    expect(ack.from?.value[0].address).toBe("help@support.example");
    expect(ack.text).toContain(ticket.reference);
    expect(ack.text).toMatch(/reply above this line/i);
    expect(ack.headers.get("auto-submitted")).toBe("auto-replied");
    const stored = await db.ticket.findUnique({ where: { id: ticket.id }, select: { threadMessageId: true } });
    expect(ack.messageId).toBe(stored?.threadMessageId);

    await expect
      .poll(
        async () =>
          (await db.outboxEmail.findFirst({ where: { ticketId: ticket.id }, select: { status: true } }))?.status,
      )
      .toBe("sent");
    const attempts = await db.outboxAttempt.findMany({
      where: { email: { ticketId: ticket.id } },
      select: { ok: true },
    });
    expect(attempts).toEqual([{ ok: true }]);
  });

  it("emails a staff reply with In-Reply-To and References so it threads under the customer's latest email", async () => {
    const ticket = await newTicket(call);
    const [ack] = await waitForMails(ticket.email, 1);

    await call(
      "POST",
      `/api/support-requests/${ticket.reference}/replies`,
      { message: "We are looking into it." },
      bearer(),
    );
    const [, first] = await waitForMails(ticket.email, 2);
    expect(first.subject).toBe(`Re: ${ticket.subject} [#${ticket.reference}]`);
    expect(first.text).toContain("We are looking into it.");
    expect(first.inReplyTo).toBe(ack.messageId);
    expect(referencesOf(first)).toEqual([ack.messageId]);
    expect(first.headers.has("auto-submitted")).toBe(false);

    // The customer answers that email; the next staff reply answers theirs.
    const customerMessageId = `<reply-${ticket.reference}@customer.example>`;
    const inbound = await call(
      "POST",
      "/api/support-requests/inbound",
      { from: ticket.email, subject: first.subject, text: "Thanks!", messageId: customerMessageId },
      inboundSecret(),
    );
    expect(inbound.status).toBe(201);
    await call("POST", `/api/support-requests/${ticket.reference}/replies`, { message: "Found it." }, bearer());
    const [, , second] = await waitForMails(ticket.email, 3);
    expect(second.inReplyTo).toBe(customerMessageId);
    expect(referencesOf(second)).toEqual([ack.messageId, customerMessageId]);
    expect(second.messageId).not.toBe(first.messageId);

    const thread = await call("GET", `/api/support-requests/${ticket.reference}`, undefined, bearer());
    const outbound = thread.body.ticket.messages.filter((m: { direction: string }) => m.direction === "outbound");
    await expect
      .poll(async () => {
        const t = await call("GET", `/api/support-requests/${ticket.reference}`, undefined, bearer());
        return t.body.ticket.messages
          .filter((m: { direction: string }) => m.direction === "outbound")
          .map((m: any) => m.delivery?.status);
      })
      .toEqual(["sent", "sent"]);
    expect(outbound).toHaveLength(2);
  });

  it("retries a rejected delivery with exponential backoff, logging every attempt, until the server accepts", async () => {
    smtp.rejectNext(2);
    const ticket = await newTicket(call);
    const [ack] = await waitForMails(ticket.email, 1);
    expect(ack.text).toContain(ticket.reference);
    // The SMTP server has the message before the outbox row records the acceptance.
    const readRow = () =>
      db.outboxEmail.findFirstOrThrow({
        where: { ticketId: ticket.id },
        select: {
          status: true,
          attempts: true,
          lastError: true,
          attemptLog: { orderBy: { createdAt: "asc" }, select: { ok: true, error: true, createdAt: true } },
        },
      });
    await expect.poll(async () => (await readRow()).status).toBe("sent");
    const email = await readRow();
    expect(email).toMatchObject({ status: "sent", attempts: 3, lastError: null });
    expect(email.attemptLog.map((a) => a.ok)).toEqual([false, false, true]);
    expect(email.attemptLog[0].error).toMatch(/451/);
    // Backoff: the second try waits at least 1 s after the first, the third at least 2 s after the second.
    const [a1, a2, a3] = email.attemptLog.map((a) => a.createdAt.getTime());
    expect(a2 - a1).toBeGreaterThanOrEqual(900);
    expect(a3 - a2).toBeGreaterThanOrEqual(1900);
    expect(smtp.rejected()).toBeGreaterThanOrEqual(2);
  });

  it("reclaims an email whose sender died mid-send once its lock has expired", async () => {
    const messageId = `<stale-${Date.now()}@support.example>`;
    await db.outboxEmail.create({
      data: {
        toEmail: "stale@example.com",
        subject: "Left behind",
        text: "Sent by a crashed instance",
        messageId,
        status: "sending",
        lockedUntil: new Date(Date.now() - 1000),
      },
    });
    const [mail] = await waitForMails("stale@example.com", 1);
    expect(mail.messageId).toBe(messageId);
    // The SMTP server has the mail a moment before the worker records it as sent.
    await expect
      .poll(
        async () => (await db.outboxEmail.findUniqueOrThrow({ where: { messageId }, select: { status: true } })).status,
        {
          timeout: 5_000,
        },
      )
      .toBe("sent");
  });

  it("delivers each email exactly once when two server instances share the database", async () => {
    const second = await startServer({ SMTP_URL: smtp.url, SUPPORT_RATE_LIMIT_PER_HOUR: "0" });
    try {
      const viaSecond = apiClient(second.url);
      const tickets = await Promise.all(Array.from({ length: 30 }, (_, i) => newTicket(i % 2 ? call : viaSecond)));
      for (const ticket of tickets) await waitForMails(ticket.email, 1);
      // Give a double send the time to show up before counting.
      await expect.poll(() => db.outboxEmail.count({ where: { status: { not: "sent" } } })).toBe(0);
      const ids = smtp.received.map((mail) => mail.messageId);
      expect(new Set(ids).size).toBe(ids.length);
      for (const ticket of tickets) expect(mailsTo(ticket.email)).toHaveLength(1);
    } finally {
      await second.stop();
    }
  });

  it("finishes a send in progress before a graceful shutdown completes", async () => {
    // Only this instance may pick the email up (the shared one would send it elsewhere).
    await server.stop();
    const smtpSlow = await startSmtp();
    const instance = await startServer({ SMTP_URL: smtpSlow.url, SUPPORT_RATE_LIMIT_PER_HOUR: "0" });
    smtpSlow.delayNext(1500);
    const ticket = await newTicket(apiClient(instance.url));
    await expect.poll(() => smtpSlow.started(), { timeout: 10_000, interval: 20 }).toBe(1);
    expect(await instance.stop()).toBe(0);
    expect(mailsTo(ticket.email, smtpSlow.received)).toHaveLength(1);
    const row = await db.outboxEmail.findFirstOrThrow({ where: { ticketId: ticket.id }, select: { status: true } });
    expect(row.status).toBe("sent");
    await smtpSlow.close();
  });
});

describe("without SMTP configured", () => {
  it("keeps email marked 'not sent: no SMTP configured' and says so in the API and the dashboard", async () => {
    // The instance with SMTP would send these emails: only the unconfigured one may run.
    await server.stop();
    const unconfigured = await startServer({ SMTP_URL: "", SUPPORT_RATE_LIMIT_PER_HOUR: "0" });
    try {
      const via = apiClient(unconfigured.url);
      const ticket = await newTicket(via);
      await via("POST", `/api/support-requests/${ticket.reference}/replies`, { message: "Queued reply" }, bearer());
      await expect
        .poll(() =>
          db.outboxEmail.findMany({ where: { ticketId: ticket.id }, select: { status: true, lastError: true } }),
        )
        .toEqual([
          { status: "not_configured", lastError: "not sent: no SMTP configured" },
          { status: "not_configured", lastError: "not sent: no SMTP configured" },
        ]);
      expect(await db.outboxAttempt.count({ where: { email: { ticketId: ticket.id } } })).toBe(0);

      const thread = await via("GET", `/api/support-requests/${ticket.reference}`, undefined, bearer());
      const reply = thread.body.ticket.messages.find((m: { direction: string }) => m.direction === "outbound");
      expect(reply.delivery).toMatchObject({ status: "not_configured", lastError: "not sent: no SMTP configured" });

      const cookie = await loginAsStaff(unconfigured.url);
      const page = await fetch(`${unconfigured.url}/support/${ticket.reference}`, { headers: { Cookie: cookie } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("not sent: no SMTP configured");
      expect(mailsTo(ticket.email)).toHaveLength(0);
    } finally {
      await unconfigured.stop();
    }
  });
});
