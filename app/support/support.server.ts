// Support requests: tickets with a human reference (SR-1042), their threads, staff
// replies and status rules. The JSON API and the dashboard both call these functions;
// inbound email replies are recorded by support-inbound.server.ts.
//
// Status rules: a staff reply sets `pending` (waiting on the customer); a customer's
// reply to a `pending` or `closed` ticket sets it back to `open`. Auto-replies and
// mail from unverified senders are recorded without changing the status.
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { composeSupportEmail, newMessageId } from "~/notifications/mailer.server";
import { db, type Prisma } from "~/storage/db.server";
import { decodeCursorOrFail, encodeCursor } from "~/storage/keyset.server";
import { notePerson } from "~/storage/people/person-arrival.server";
import { DomainError, invalidFields } from "~/utils/domain-error";
import { env } from "~/utils/env.server";
import { consumeOrFail, createRateLimiter } from "~/utils/rate-limit.server";
import { supportNotifications } from "../notifications/notifications.server";
import { kickOutbox } from "../notifications/outbox.server";
import { workingStaffOrFail } from "../staff/staff.server";
import { CreateTicketSchema } from "./support-schemas";
import {
  listSelect,
  mergedIntoSelect,
  messageSelect,
  noteSelect,
  writeWithTicketEvents,
} from "./support-thread.server";
import { refuseMerged } from "./ticket-merge.server";
import { nextTicketNumber, ticketWhere } from "./ticket-reference.server";

import { TICKET_STATUSES, type TicketStatus } from "./ticket-status";
import type { WebhookEventType } from "../webhooks/webhook-schemas";

export { CreateTicketSchema, TICKET_STATUSES, type TicketStatus };

/**
 * A request as a JSON body: its fields and the `website` honeypot, nothing else. A site's
 * plain HTML form post is read with CreateTicketSchema alone: its own extra inputs (a
 * submit button's name) are dropped, as the lead submit endpoint drops them.
 */
export const CreateTicketBodySchema = CreateTicketSchema.extend({ website: z.unknown().optional() }).strict();

export const ListTicketsSchema = z.object({
  status: z.enum(TICKET_STATUSES, { error: "Use open, pending or closed." }).optional(),
  q: z
    .string()
    .max(200)
    .optional()
    .transform((value) => value?.trim() || undefined),
  /** "mine", "unassigned", or a staff user's id. */
  assignee: z.string().max(64).optional(),
  /** Spam-flagged tickets (decision 063): "hide" them, or "only" them; shown among the rest by default. */
  spam: z.enum(["hide", "only"], { error: "Use hide or only." }).optional(),
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(25),
});

// ---------------------------------------------------------------------------
// Reading

export type TicketSummary = Prisma.TicketGetPayload<{ select: typeof listSelect }>;

/** Matches subject and name as typed, lower-cased and capitalised (both databases alike). */
function searchWhere(q: string): Prisma.TicketWhereInput {
  const variants = [...new Set([q, q.toLowerCase(), q.charAt(0).toUpperCase() + q.slice(1).toLowerCase()])];
  return {
    OR: [
      { reference: { contains: q.replace(/^#/, "").toUpperCase() } },
      { email: { contains: q.toLowerCase() } },
      ...variants.flatMap((v) => [{ subject: { contains: v } }, { name: { contains: v } }]),
    ],
  };
}

/** Tickets with the latest activity first, keyset-paged on (lastMessageAt, id). */
export async function listTickets(
  query: z.output<typeof ListTicketsSchema>,
  me: { id: string } | null = null,
): Promise<{ tickets: TicketSummary[]; nextCursor: string | null }> {
  const and: Prisma.TicketWhereInput[] = [];
  if (query.status) and.push({ status: query.status });
  if (query.assignee === "mine") {
    if (!me) {
      throw invalidFields([{ path: "assignee", message: "mine needs a staff user: use their id." }]);
    }
    and.push({ assigneeId: me.id });
  } else if (query.assignee === "unassigned") and.push({ assigneeId: null });
  else if (query.assignee) and.push({ assigneeId: query.assignee });
  if (query.q) and.push(searchWhere(query.q));
  if (query.spam) and.push({ spam: query.spam === "only" });
  if (query.cursor) {
    const { at: lastMessageAt, id } = decodeCursorOrFail(query.cursor);
    and.push({ OR: [{ lastMessageAt: { lt: lastMessageAt } }, { lastMessageAt, id: { lt: id } }] });
  }
  const rows = await db.ticket.findMany({
    where: { AND: and },
    orderBy: [{ lastMessageAt: "desc" }, { id: "desc" }],
    take: query.limit + 1,
    select: listSelect,
  });
  const tickets = rows.slice(0, query.limit);
  return {
    tickets,
    nextCursor:
      rows.length > query.limit
        ? encodeCursor({ at: tickets[tickets.length - 1].lastMessageAt, id: tickets[tickets.length - 1].id })
        : null,
  };
}

/** One attachment of a ticket's thread, with its bytes; null when there is none such. */
export async function getAttachment(reference: string, id: string) {
  const attachment = await db.ticketAttachment.findUnique({
    where: { id },
    select: {
      id: true,
      filename: true,
      contentType: true,
      size: true,
      message: { select: { ticket: { select: { reference: true } } } },
    },
  });
  if (!attachment?.message || attachment.message.ticket.reference !== reference.toUpperCase()) return null;
  const { message: _message, ...file } = attachment;
  return file;
}

export { getTicketThread } from "./support-thread.server";
export { getMessageText } from "./support-thread-page.server";

function notFound(idOrReference: string): never {
  throw new DomainError("not_found", `No support request ${idOrReference}.`);
}

// ---------------------------------------------------------------------------
// Writing

/**
 * The acknowledgement of a new request, as an outbox row: its reference and nothing the
 * requester wrote (see createTicket). Also sent for requests opened by email.
 */
export function acknowledgement(reference: string, toEmail: string, threadMessageId: string) {
  const composed = composeSupportEmail({
    toEmail,
    subject: "",
    reference,
    messageId: threadMessageId,
    threadIds: [],
    body: [
      "Hello,",
      "",
      `We received your support request and will answer soon. Its reference is ${reference}.`,
      "",
      "If you did not ask us for help, you can ignore this email.",
    ].join("\n"),
  });
  return { ...composed, subject: `We received your support request [#${reference}]` };
}

/**
 * Opens a ticket with the customer's first message and queues the acknowledgement
 * email (which carries the reference) in the same write. Anyone can open a request for
 * any address, so the acknowledgement carries no word the requester chose: not the
 * name, subject or message, which would make us send a stranger's text to anyone.
 */
export async function createTicket(input: z.output<typeof CreateTicketSchema>) {
  const number = await nextTicketNumber();
  const reference = `${env.SUPPORT_TICKET_PREFIX}-${number}`;
  const threadMessageId = newMessageId(reference);
  const ack = acknowledgement(reference, input.email, threadMessageId);
  const ticket = await writeWithTicketEvents(
    ["support_request.created"],
    (client) =>
      client.ticket
        .create({
          data: {
            number,
            reference,
            email: input.email,
            name: input.name,
            subject: input.subject,
            threadMessageId,
            messages: {
              create: {
                direction: "inbound",
                author: "customer",
                fromEmail: input.email,
                body: input.message,
                fullBody: input.message,
              },
            },
            outbox: { create: ack },
          },
          select: { id: true, reference: true, status: true, createdAt: true },
        })
        .then(async ({ createdAt, ...created }) => {
          // Its person (decision 071), in the same transaction.
          await notePerson(client, {
            email: input.email,
            name: input.name ?? null,
            firstId: created.id,
            at: createdAt,
          });
          return created;
        }),
    (created) => created.id,
    supportNotifications(
      "created",
      { reference, subject: input.subject, email: input.email, name: input.name },
      { from: input.email, body: input.message },
    ),
  );
  kickOutbox();
  return ticket;
}

const createLimiter =
  env.SUPPORT_RATE_LIMIT_PER_HOUR > 0
    ? createRateLimiter({
        keyPrefix: "support-create",
        points: env.SUPPORT_RATE_LIMIT_PER_HOUR,
        durationSeconds: 60 * 60,
      })
    : null;

// Anyone may name any address, so the acknowledgements one address receives are limited
// too, or a script could use us to flood a stranger's inbox (from changing addresses).
const recipientLimiter =
  env.SUPPORT_ACKS_PER_RECIPIENT_PER_DAY > 0
    ? createRateLimiter({
        keyPrefix: "support-recipient",
        points: env.SUPPORT_ACKS_PER_RECIPIENT_PER_DAY,
        durationSeconds: 24 * 60 * 60,
      })
    : null;

/** Counts a public support request from a client address: 429 past SUPPORT_RATE_LIMIT_PER_HOUR. */
export async function limitSupportRequestsFrom(ip: string): Promise<void> {
  if (createLimiter)
    await consumeOrFail(createLimiter, ip, "Too many support requests from this address. Try again later.");
}

/** Counts one for the recipient address: 429 past SUPPORT_ACKS_PER_RECIPIENT_PER_DAY. */
export async function limitSupportRequestsFor(email: string): Promise<void> {
  if (recipientLimiter) {
    await consumeOrFail(
      recipientLimiter,
      email,
      "Too many support requests for this email address today. Try again tomorrow.",
    );
  }
}

/**
 * Counts one acknowledgement for the recipient address; false past
 * SUPPORT_ACKS_PER_RECIPIENT_PER_DAY. For requests opened by email, which are filed
 * without an acknowledgement then rather than refused (decision 063).
 */
export async function mayAcknowledge(email: string): Promise<boolean> {
  try {
    await limitSupportRequestsFor(email);
    return true;
  } catch (refusal) {
    if (refusal instanceof DomainError && refusal.code === "rate_limited") return false;
    throw refusal;
  }
}

/**
 * A number and a reference exactly like a real ticket's, without creating one: the
 * answer a honeypot-caught bot gets, so it cannot tell it was refused.
 */
export async function decoyTicket() {
  const number = await nextTicketNumber();
  return {
    id: `c${randomBytes(12).toString("hex").slice(0, 24)}`,
    reference: `${env.SUPPORT_TICKET_PREFIX}-${number}`,
    status: "open" as const,
  };
}

export type ReplyAuthor = { author: "api"; user: null } | { author: "staff"; user: { id: string } };

/** A staff reply: added to the thread, emailed to the requester, and the ticket set to pending. */
export async function addStaffReply(idOrReference: string, message: string, by: ReplyAuthor) {
  const ticket = await db.ticket.findUnique({
    where: ticketWhere(idOrReference),
    select: {
      id: true,
      reference: true,
      email: true,
      subject: true,
      threadMessageId: true,
      status: true,
      ...mergedIntoSelect,
    },
  });
  if (!ticket) notFound(idOrReference);
  refuseMerged(ticket);
  // Answer the customer's latest email, so their client threads the reply under it.
  const lastInbound = await db.ticketMessage.findFirst({
    where: { ticketId: ticket.id, direction: "inbound", emailMessageId: { not: null } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: { emailMessageId: true },
  });
  const messageId = newMessageId(ticket.reference);
  const email = composeSupportEmail({
    toEmail: ticket.email,
    subject: ticket.subject,
    reference: ticket.reference,
    messageId,
    threadIds: [ticket.threadMessageId, lastInbound?.emailMessageId ?? ""],
    body: message,
  });
  const now = new Date();
  const events: WebhookEventType[] = ticket.status === "pending" ? [] : ["support_request.status_changed"];
  const updated = await writeWithTicketEvents(
    events,
    (client) =>
      client.ticket.update({
        where: { id: ticket.id },
        data: {
          status: "pending",
          lastMessageAt: now,
          messages: {
            create: {
              direction: "outbound",
              author: by.author,
              authorUserId: by.user?.id ?? null,
              fromEmail: env.SUPPORT_FROM_EMAIL,
              body: message,
              fullBody: message,
              emailMessageId: messageId,
              createdAt: now,
            },
          },
          outbox: { create: email },
        },
        select: {
          reference: true,
          status: true,
          messages: { where: { emailMessageId: messageId }, select: messageSelect },
        },
      }),
    () => ticket.id,
  );
  kickOutbox();
  const { emailMessageId: _, ...created } = updated.messages[0];
  return { ticket: { reference: updated.reference, status: updated.status }, message: created };
}

/** Changes a ticket's status, its assignee (null: nobody), or both. */
export async function updateTicket(
  idOrReference: string,
  patch: { status?: TicketStatus; assigneeId?: string | null },
) {
  const where = ticketWhere(idOrReference);
  const exists = await db.ticket.findUnique({ where, select: { id: true, status: true } });
  if (!exists) notFound(idOrReference);
  if (patch.assigneeId) await workingStaffOrFail(patch.assigneeId, "assigneeId");
  const events: WebhookEventType[] =
    patch.status === undefined || exists.status === patch.status ? [] : ["support_request.status_changed"];
  return writeWithTicketEvents(
    events,
    (client) =>
      client.ticket.update({
        where: { id: exists.id },
        data: {
          ...(patch.status !== undefined && { status: patch.status }),
          ...(patch.assigneeId !== undefined && { assigneeId: patch.assigneeId }),
        },
        select: listSelect,
      }),
    () => exists.id,
  );
}

/** A staff note on a ticket: kept apart from the conversation and never emailed. */
export async function addTicketNote(idOrReference: string, body: string, author: { id: string } | null) {
  const ticket = await db.ticket.findUnique({
    where: ticketWhere(idOrReference),
    select: { id: true, reference: true, ...mergedIntoSelect },
  });
  if (!ticket) notFound(idOrReference);
  refuseMerged(ticket);
  return db.ticketNote.create({
    data: { ticketId: ticket.id, body, authorUserId: author?.id ?? null },
    select: noteSelect,
  });
}

/**
 * Whether someone other than `userId` replied on the ticket after the message `seenMessageId`
 * (the newest one when the replying page was loaded): sending then asks for confirmation.
 */
export async function repliedSince(idOrReference: string, seenMessageId: string, userId: string): Promise<boolean> {
  const ticket = await db.ticket.findUnique({ where: ticketWhere(idOrReference), select: { id: true } });
  if (!ticket) notFound(idOrReference);
  const seen = seenMessageId
    ? await db.ticketMessage.findFirst({
        where: { id: seenMessageId, ticketId: ticket.id },
        select: { createdAt: true },
      })
    : null;
  const newer = await db.ticketMessage.count({
    where: {
      ticketId: ticket.id,
      direction: "outbound",
      ...(seen && { createdAt: { gt: seen.createdAt } }),
      OR: [{ authorUserId: null }, { authorUserId: { not: userId } }],
    },
  });
  return newer > 0;
}
