// Retention (decision 054): finished records older than their period go, in batches; what is
// pending, recent, or kept forever stays. Rows are seeded straight into the database with old
// timestamps, and the pass runs in this process against the same database.
import { register } from "prom-client";
import { describe, expect, it } from "vitest";
import { runRetention, type RetentionPeriods } from "~/retention/retention.server";
import { db } from "~/storage/db.server";
import { attachmentChunkStore } from "~/storage/index.server";
import { createForm } from "../support/leads";
import { startServer } from "../support/server";

const DAY_MS = 24 * 60 * 60_000;

async function removedTotal(kind: string): Promise<number> {
  const metric = await register.getSingleMetric("leadcapture_retention_removed_total")!.get();
  return metric.values.find((value) => value.labels.kind === kind)?.value ?? 0;
}
const NOW = Date.now();
const daysAgo = (days: number) => new Date(NOW - days * DAY_MS);
const PERIODS: RetentionPeriods = {
  webhookDays: 30,
  emailDays: 30,
  auditDays: 365,
  attachmentDays: 90,
  partialLeadDays: 30,
  unconfirmedLeadDays: 30,
};

let serial = 0;
const unique = (prefix: string) => `${prefix}_${process.pid}_${++serial}`;

async function newEndpoint(): Promise<string> {
  const form = await createForm(unique("Retention"), [[]]);
  const endpoint = await db.webhookEndpoint.create({
    data: { url: "https://hooks.example.com/in", events: ["lead.created"], secret: "whsec_test", formId: form.id },
  });
  return endpoint.id;
}

type DeliverySeed = { status: "pending" | "delivering" | "succeeded" | "failed"; age: number };

/** An event `age` days old with one delivery per seed; fanOutTo set: still to be fanned out. */
async function newEvent(endpointId: string, age: number, deliveries: DeliverySeed[], fanOutTo?: string) {
  const id = unique("msg");
  await db.webhookEvent.create({
    data: {
      id,
      type: "lead.created",
      payload: "{}",
      createdAt: daysAgo(age),
      fanOutTo,
      fanOutAt: fanOutTo ? daysAgo(age) : null,
    },
  });
  const ids: string[] = [];
  for (const delivery of deliveries) {
    const row = await db.webhookDelivery.create({
      data: {
        eventId: id,
        endpointId,
        status: delivery.status,
        createdAt: daysAgo(age),
        nextAttemptAt: daysAgo(delivery.age),
        attemptLog: { create: { statusCode: 200, durationMs: 5, createdAt: daysAgo(delivery.age) } },
      },
    });
    ids.push(row.id);
  }
  return { id, deliveryIds: ids };
}

/** A ticket last written to `lastMessageAge` days ago, and last changed (closed, say) `changedAge` days ago. */
// Written straight to the database with backdated times, which no API can give a ticket.
async function newTicket(status: "open" | "pending" | "closed", lastMessageAge: number, changedAge = lastMessageAge) {
  const number = 100_000 + ++serial;
  return db.ticket.create({
    data: {
      number,
      reference: `SR-${number}`,
      email: "customer@example.com",
      subject: "Help",
      status,
      threadMessageId: `<thread-${number}@example.com>`,
      lastMessageAt: daysAgo(lastMessageAge),
      createdAt: daysAgo(lastMessageAge),
      updatedAt: daysAgo(changedAge),
    },
  });
}

async function newEmail(options: { ticketId?: string; status: "pending" | "sent" | "failed"; age: number }) {
  return db.outboxEmail.create({
    data: {
      ticketId: options.ticketId,
      toEmail: "someone@example.com",
      subject: "Reset your password",
      text: "Open https://leads.example.com/reset/secret-token to choose a password.",
      messageId: `<${unique("mail")}@example.com>`,
      status: options.status,
      sentAt: options.status === "sent" ? daysAgo(options.age) : null,
      nextAttemptAt: daysAgo(options.age),
      createdAt: daysAgo(options.age),
    },
  });
}

/** An inbound message on `ticketId` with one attachment of `chunks` chunks. */
async function newAttachment(ticketId: string, chunks: number) {
  const message = await db.ticketMessage.create({
    data: {
      ticketId,
      direction: "inbound",
      author: "customer",
      fromEmail: "customer@example.com",
      body: "hi",
      fullBody: "hi",
    },
  });
  const attachment = await db.ticketAttachment.create({
    data: { messageId: message.id, filename: "invoice.pdf", contentType: "application/pdf", size: chunks * 4 },
  });
  for (let seq = 0; seq < chunks; seq++) await attachmentChunkStore.write(attachment.id, seq, Buffer.from("%PDF"));
  return { messageId: message.id, attachmentId: attachment.id };
}

const exists = {
  event: async (id: string) => (await db.webhookEvent.count({ where: { id } })) === 1,
  delivery: async (id: string) => (await db.webhookDelivery.count({ where: { id } })) === 1,
};

describe("a retention pass", () => {
  it("removes exactly the finished webhook deliveries and events past the period", async () => {
    const endpointId = await newEndpoint();
    const delivered = await newEvent(endpointId, 40, [{ status: "succeeded", age: 40 }]);
    const gaveUp = await newEvent(endpointId, 40, [{ status: "failed", age: 39 }]);
    // One delivery done, one still retrying: the done one goes, the event stays for the other.
    const half = await newEvent(endpointId, 40, [
      { status: "succeeded", age: 40 },
      { status: "pending", age: 38 },
    ]);
    const claimed = await newEvent(endpointId, 40, [{ status: "delivering", age: 40 }]);
    // Retried by staff last week: its last attempt is recent, whatever its age.
    const retried = await newEvent(endpointId, 40, [{ status: "succeeded", age: 7 }]);
    const recent = await newEvent(endpointId, 5, [{ status: "succeeded", age: 5 }]);
    const waiting = await newEvent(endpointId, 40, [], endpointId);
    const empty = await newEvent(endpointId, 40, []);

    const counts = await runRetention({ now: NOW, periods: PERIODS, batchSize: 2, pauseMs: 1 });

    expect(await exists.delivery(delivered.deliveryIds[0]!)).toBe(false);
    expect(await exists.event(delivered.id)).toBe(false);
    expect(await exists.event(gaveUp.id)).toBe(false);
    expect(await exists.delivery(half.deliveryIds[0]!)).toBe(false);
    expect(await exists.delivery(half.deliveryIds[1]!)).toBe(true);
    expect(await exists.event(half.id)).toBe(true);
    expect(await exists.delivery(claimed.deliveryIds[0]!)).toBe(true);
    expect(await exists.delivery(retried.deliveryIds[0]!)).toBe(true);
    expect(await exists.delivery(recent.deliveryIds[0]!)).toBe(true);
    expect(await exists.event(recent.id)).toBe(true);
    expect(await exists.event(waiting.id)).toBe(true);
    expect(await exists.event(empty.id)).toBe(false);
    expect(counts.webhookDeliveries).toBe(3);
    expect(counts.webhookEvents).toBe(3);
    // The attempts of a deleted delivery go with it.
    expect(await db.webhookAttempt.count({ where: { deliveryId: delivered.deliveryIds[0]! } })).toBe(0);
  });

  it("blanks old support mail, deletes old staff notifications (sent or given up on), and leaves unsent and recent mail", async () => {
    const ticket = await newTicket("open", 1);
    const oldReply = await newEmail({ ticketId: ticket.id, status: "sent", age: 45 });
    const recentReply = await newEmail({ ticketId: ticket.id, status: "sent", age: 3 });
    const oldUnsent = await newEmail({ ticketId: ticket.id, status: "pending", age: 45 });
    const oldFailed = await newEmail({ status: "failed", age: 45 });
    const oldFailedReply = await newEmail({ ticketId: ticket.id, status: "failed", age: 45 });
    const recentFailed = await newEmail({ status: "failed", age: 3 });
    const oldNotice = await newEmail({ status: "sent", age: 45 });
    const recentNotice = await newEmail({ status: "sent", age: 3 });

    const counts = await runRetention({ now: NOW, periods: PERIODS, batchSize: 2, pauseMs: 1 });

    const text = async (id: string) =>
      (await db.outboxEmail.findUnique({ where: { id }, select: { text: true } }))?.text;
    const blanked = await db.outboxEmail.findUniqueOrThrow({ where: { id: oldReply.id } });
    expect(blanked.text).toBe("");
    expect([blanked.subject, blanked.messageId, blanked.status]).toEqual([
      oldReply.subject,
      oldReply.messageId,
      "sent",
    ]);
    expect(await text(recentReply.id)).toBe(recentReply.text);
    expect(await text(oldUnsent.id)).toBe(oldUnsent.text);
    // Given up on past the period: a lead's or a customer's words, no longer of use.
    expect(await text(oldFailed.id)).toBeUndefined();
    expect(await text(oldFailedReply.id)).toBe("");
    expect(await text(recentFailed.id)).toBe(recentFailed.text);
    expect(await text(oldNotice.id)).toBeUndefined();
    expect(await text(recentNotice.id)).toBe(recentNotice.text);
    expect(counts).toMatchObject({ emailBodies: 2, staffEmails: 2 });

    // Blanked mail is not counted again.
    const again = await runRetention({ now: NOW, periods: PERIODS, batchSize: 2, pauseMs: 1 });
    expect(again).toMatchObject({ emailBodies: 0, staffEmails: 0 });
  });

  it("deletes audit entries past the period, in batches, and keeps the rest", async () => {
    const old = Array.from({ length: 1_101 }, (_, i) => ({
      id: `aud_old_${String(i).padStart(5, "0")}`,
      action: "lead.export",
      createdAt: daysAgo(400 + (i % 30)),
    }));
    await db.auditEntry.createMany({ data: old });
    await db.auditEntry.create({ data: { id: "aud_recent", action: "lead.export", createdAt: daysAgo(300) } });
    const before = await removedTotal("auditEntries");

    const counts = await runRetention({ now: NOW, periods: PERIODS, batchSize: 500, pauseMs: 1 });

    expect(counts.auditEntries).toBe(1_101);
    expect(await db.auditEntry.count({ where: { id: { startsWith: "aud_old_" } } })).toBe(0);
    expect(await db.auditEntry.count({ where: { id: "aud_recent" } })).toBe(1);
    // What /metrics shows (leadcapture_retention_removed_total) moved by as much.
    expect(await removedTotal("auditEntries")).toBe(before + 1_101);
  });

  it("deletes more finished deliveries than one batch holds", async () => {
    const endpointId = await newEndpoint();
    const events = Array.from({ length: 1_050 }, () => ({
      id: unique("msg"),
      type: "lead.created",
      payload: "{}",
      createdAt: daysAgo(60),
    }));
    await db.webhookEvent.createMany({ data: events });
    await db.webhookDelivery.createMany({
      data: events.map((event) => ({
        id: unique("dlv"),
        eventId: event.id,
        endpointId,
        status: "succeeded" as const,
        createdAt: daysAgo(60),
        nextAttemptAt: daysAgo(60),
      })),
    });

    const counts = await runRetention({ now: NOW, periods: PERIODS, batchSize: 500, pauseMs: 1 });

    expect(counts.webhookDeliveries).toBe(1_050);
    expect(counts.webhookEvents).toBe(1_050);
    expect(await db.webhookDelivery.count({ where: { endpointId } })).toBe(0);
  });

  it("keeps everything whose period is off", async () => {
    await db.auditEntry.create({ data: { id: "aud_ancient", action: "lead.export", createdAt: daysAgo(5_000) } });
    const endpointId = await newEndpoint();
    const event = await newEvent(endpointId, 400, [{ status: "succeeded", age: 400 }]);
    const mail = await newEmail({ status: "sent", age: 400 });

    const off = {
      webhookDays: null,
      emailDays: null,
      auditDays: null,
      attachmentDays: null,
      partialLeadDays: null,
      unconfirmedLeadDays: null,
    };
    expect(Object.values(await runRetention({ now: NOW, periods: off, pauseMs: 1 }))).toEqual([
      0, 0, 0, 0, 0, 0, 0, 0, 0,
    ]);
    expect(await db.auditEntry.count({ where: { id: "aud_ancient" } })).toBe(1);
    expect(await exists.event(event.id)).toBe(true);
    expect(await db.outboxEmail.count({ where: { id: mail.id } })).toBe(1);
  });

  it("removes attachments of tickets closed past the period, with their bytes, and says so on the message", async () => {
    const closedLongAgo = await newTicket("closed", 120);
    const expired = await newAttachment(closedLongAgo.id, 20);
    const second = await newAttachment(closedLongAgo.id, 1);
    const closedRecently = await newAttachment((await newTicket("closed", 10)).id, 2);
    const openOld = await newAttachment((await newTicket("open", 120)).id, 2);
    // Empty files: nothing to delete but the row, and the same rule for it.
    const emptyExpired = await newAttachment(closedLongAgo.id, 0);
    const emptyOpen = await newAttachment((await newTicket("pending", 120)).id, 0);

    const counts = await runRetention({ now: NOW, periods: PERIODS, batchSize: 2, pauseMs: 1 });

    expect(counts.attachments).toBe(3);
    for (const gone of [expired, second, emptyExpired]) {
      expect(await db.ticketAttachment.count({ where: { id: gone.attachmentId } })).toBe(0);
      expect(await db.attachmentChunk.count({ where: { attachmentId: gone.attachmentId } })).toBe(0);
      const message = await db.ticketMessage.findUniqueOrThrow({ where: { id: gone.messageId } });
      expect(message.notKept).toMatch(/^invoice\.pdf: Attachments of requests closed over 90 days ago are removed/);
    }
    for (const kept of [closedRecently, openOld]) {
      expect(await db.attachmentChunk.count({ where: { attachmentId: kept.attachmentId } })).toBe(2);
    }
    expect(await db.ticketAttachment.count({ where: { id: emptyOpen.attachmentId } })).toBe(1);
    // Off by default: no period, no removal.
    const old = await newAttachment(closedLongAgo.id, 1);
    await runRetention({ now: NOW, periods: { ...PERIODS, attachmentDays: null }, pauseMs: 1 });
    expect(await db.ticketAttachment.count({ where: { id: old.attachmentId } })).toBe(1);
  });

  it("keeps the files of a request open for months and closed today, and finishes a file a stopped pass began", async () => {
    // Its last message is old, but it was closed (changed) today: its period starts now.
    const closedToday = await newAttachment((await newTicket("closed", 120, 0)).id, 2);
    // A pass stopped (a shutdown) after the first statement of a 20-chunk file.
    const begun = await newAttachment((await newTicket("closed", 120)).id, 20);
    await db.attachmentChunk.deleteMany({ where: { attachmentId: begun.attachmentId, seq: { lt: 8 } } });

    // (The file's earlier tests left an expired attachment too: the rows say what went, not the count.)
    await runRetention({ now: NOW, periods: PERIODS, pauseMs: 1 });

    expect(await db.attachmentChunk.count({ where: { attachmentId: closedToday.attachmentId } })).toBe(2);
    expect(await db.ticketAttachment.count({ where: { id: begun.attachmentId } })).toBe(0);
    expect(await db.attachmentChunk.count({ where: { attachmentId: begun.attachmentId } })).toBe(0);
  });

  it("deletes partial leads last saved before the period (never completed), and keeps recent ones", async () => {
    const form = await createForm(unique("Partial"), [[]]);
    const partial = (key: string, age: number) =>
      db.partialLead.create({
        data: { key, formId: form.id, schemaVersion: 1, data: {}, email: "a@example.com", updatedAt: daysAgo(age) },
      });
    await partial(unique("stale"), 40);
    await partial(unique("stale"), 31);
    await partial(unique("stale"), 35);
    const fresh = await partial(unique("fresh"), 29);

    const counts = await runRetention({ now: NOW, periods: PERIODS, batchSize: 2, pauseMs: 1 });

    expect(counts.partialLeads).toBe(3);
    expect(
      (await db.partialLead.findMany({ where: { formId: form.id }, select: { key: true } })).map((row) => row.key),
    ).toEqual([fresh.key]);
    expect(await removedTotal("partialLeads")).toBeGreaterThanOrEqual(3);
  });

  it("stops between batches once asked to, and starts no further kind", async () => {
    const endpointId = await newEndpoint();
    await newEvent(endpointId, 60, [{ status: "succeeded", age: 60 }]);
    await db.auditEntry.create({ data: { id: "aud_stopped", action: "lead.export", createdAt: daysAgo(400) } });
    const stopped = new AbortController();
    stopped.abort();

    const counts = await runRetention({ now: NOW, periods: PERIODS, pauseMs: 1, signal: stopped.signal });

    expect(Object.values(counts).every((count) => count === 0)).toBe(true);
    expect(await db.auditEntry.count({ where: { id: "aud_stopped" } })).toBe(1);
  });
});

describe("retention settings at start", () => {
  it("refuse a period that is no number of days, naming the variable and not starting", async () => {
    const refusal = await startServer({ RETENTION_WEBHOOK_DAYS: "a month" }).then(
      async (server) => {
        await server.stop();
        return "started";
      },
      (error: Error) => error.message,
    );
    expect(refusal).toMatch(
      /RETENTION_WEBHOOK_DAYS: must be a whole number of days \(1 to 36500\), or 0 or off to keep forever/,
    );
  });
});
