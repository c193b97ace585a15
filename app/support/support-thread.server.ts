// A support request as the API shows it (GET /api/support-requests/:ticket): the ticket,
// its thread and the delivery state of every email sent for it; and the webhook events a
// change to a ticket causes (and the staff emails it sends), written in that change's
// transaction with this view of it.
import { AsyncLocalStorage } from "node:async_hooks";
import { db, type Prisma } from "~/storage/db.server";
import { kickOutbox, writeStaffEmails, type StaffEmail } from "../notifications/outbox.server";
import { nudgeWebhooks } from "../webhooks/webhook-delivery.server";
import { newWebhookEvent, subscribersOf, writeWebhookEvent } from "../webhooks/webhook-events.server";
import { ticketWhere } from "./ticket-reference.server";
import type { WebhookEventType } from "../webhooks/webhook-schemas";

export const listSelect = {
  id: true,
  reference: true,
  email: true,
  name: true,
  subject: true,
  status: true,
  lastMessageAt: true,
  createdAt: true,
  spam: true,
  assignee: { select: { id: true, email: true, name: true } },
} as const;

const MAX_THREAD_MESSAGES = 500;

/** The ticket a merged one went into (decision 072); shown as its reference, or null. */
export const mergedIntoSelect = { mergedInto: { select: { reference: true } } } as const;

export const noteSelect = {
  id: true,
  body: true,
  authorUser: { select: { id: true, email: true, name: true } },
  createdAt: true,
} as const;

export const messageSelect = {
  id: true,
  direction: true,
  author: true,
  authorUser: { select: { id: true, email: true, name: true } },
  fromEmail: true,
  body: true,
  fullBody: true,
  unverifiedSender: true,
  isAutoReply: true,
  emailMessageId: true,
  notKept: true,
  attachments: {
    select: { id: true, filename: true, contentType: true, size: true },
    orderBy: { id: "asc" },
  },
  createdAt: true,
} as const;

export const emailSelect = {
  id: true,
  toEmail: true,
  subject: true,
  messageId: true,
  status: true,
  attempts: true,
  lastError: true,
  nextAttemptAt: true,
  sentAt: true,
  createdAt: true,
} as const;

type OutboxState = Prisma.OutboxEmailGetPayload<{ select: typeof emailSelect }>;

/** A ticket with its thread (oldest first) and the delivery state of every email sent for it. */
export async function getTicketThread(idOrReference: string, client: Prisma.TransactionClient = db) {
  const ticket = await client.ticket.findUnique({
    where: ticketWhere(idOrReference),
    select: {
      ...listSelect,
      ...mergedIntoSelect,
      threadMessageId: true,
      messages: { orderBy: [{ createdAt: "asc" }, { id: "asc" }], take: MAX_THREAD_MESSAGES, select: messageSelect },
      outbox: { orderBy: [{ createdAt: "asc" }, { id: "asc" }], take: MAX_THREAD_MESSAGES, select: emailSelect },
      notes: { orderBy: [{ createdAt: "asc" }, { id: "asc" }], take: MAX_THREAD_MESSAGES, select: noteSelect },
    },
  });
  if (!ticket) return null;
  const { threadMessageId, messages, outbox, mergedInto, ...rest } = ticket;
  return {
    ...rest,
    mergedInto: mergedInto?.reference ?? null,
    messages: threadMessages(rest.reference, messages, outbox, (message) => ({
      hasQuotedText: message.fullBody.trim() !== message.body.trim(),
    })),
    emails: threadEmails(outbox, threadMessageId),
  };
}

/** What a stored message has that both views of a thread (the API's, the page's) show alike. */
type StoredMessage = {
  direction: string;
  emailMessageId: string | null;
  notKept: string | null;
  attachments: Array<{ id: string; filename: string; contentType: string; size: number }>;
};

/**
 * A thread's messages as the API and the dashboard show them: each with `extra` (what only
 * that view has) after its own fields, then its attachments with their download addresses,
 * the parts that were not kept, and, for a reply sent by email, that email's delivery.
 */
export function threadMessages<M extends StoredMessage, X extends object>(
  reference: string,
  messages: M[],
  outbox: OutboxState[],
  extra: (message: Omit<M, "emailMessageId" | "notKept" | "attachments">) => X,
) {
  const byMessageId = new Map(outbox.map((email) => [email.messageId, email]));
  return messages.map(({ emailMessageId, notKept, attachments, ...message }) => ({
    ...message,
    ...extra(message),
    attachments: attachments.map((file) => ({ ...file, url: attachmentPath(reference, file.id) })),
    notKept: notKept ? notKept.split("\n") : [],
    delivery: (message.direction === "outbound" && emailMessageId && byMessageId.get(emailMessageId)) || null,
  }));
}

/** The emails sent for a ticket: the acknowledgement of the first message, then the replies. */
export function threadEmails(outbox: OutboxState[], threadMessageId: string | null) {
  return outbox.map((email) => ({
    ...email,
    kind: email.messageId === threadMessageId ? ("acknowledgement" as const) : ("reply" as const),
  }));
}

/** Where staff download an attachment (app/routes/support.$reference.attachments.$id.ts). */
export function attachmentPath(reference: string, id: string): string {
  return `/support/${encodeURIComponent(reference)}/attachments/${encodeURIComponent(id)}`;
}

type Alongside = (client: Prisma.TransactionClient) => Promise<unknown>;

// Holds a function that hands the write over once: timers started during the filing (the
// outbox's kick) carry this context too, and their own ticket writes must not take it.
const alongsideWrite = new AsyncLocalStorage<() => Alongside | null>();

/**
 * Runs `work` (an inbound filing) so that the ticket writes it makes also write `alongside` in
 * their transaction: the IMAP intake's checkpoint stands or falls with the filed message
 * (decision 070), whichever path files it, without a parameter through each of them.
 */
export function alongsideTicketWrites<T>(alongside: Alongside, work: () => Promise<T>): Promise<T> {
  let pending: Alongside | null = alongside;
  const take = () => {
    const once = pending;
    pending = null;
    return once;
  };
  return alongsideWrite.run(take, work);
}

/**
 * Runs a write to a ticket and, in the same transaction, the webhook events it causes for
 * the endpoints subscribed to them, each carrying the ticket as the API shows it after the
 * write, the staff notification emails it sends, and the write `alongsideTicketWrites` asked
 * for. With none of them, the write runs alone.
 */
export async function writeWithTicketEvents<T>(
  types: WebhookEventType[],
  write: (client: Prisma.TransactionClient) => Promise<T>,
  ticketIdOf: (result: T) => string,
  emails: StaffEmail[] = [],
): Promise<T> {
  const alongside = alongsideWrite.getStore()?.();
  const subscribed: Array<[WebhookEventType, string[]]> = [];
  for (const type of types) {
    const endpointIds = await subscribersOf(type, null);
    if (endpointIds.length > 0) subscribed.push([type, endpointIds]);
  }
  // A new ticket notes its person beside it (decision 071): always one transaction.
  const opens = types.includes("support_request.created");
  if (subscribed.length === 0 && emails.length === 0 && !alongside && !opens) return write(db);
  const result = await db.$transaction(async (tx) => {
    const written = await write(tx);
    if (subscribed.length > 0) {
      const thread = await getTicketThread(ticketIdOf(written), tx);
      for (const [type, endpointIds] of subscribed) {
        await writeWebhookEvent(newWebhookEvent(type, thread, endpointIds), tx);
      }
    }
    await writeStaffEmails(emails, tx);
    await alongside?.(tx);
    return written;
  });
  if (subscribed.length > 0) nudgeWebhooks();
  if (emails.length > 0) kickOutbox();
  return result;
}
