// Inbound email replies to support requests: which thread an email belongs to, whether
// it really comes from the ticket's customer (docs/decisions/017 and 018), dedupe of
// redeliveries, and the status rule (a verified customer's reply reopens the ticket).
import { db, isUniqueViolation } from "~/storage/db.server";
import { DomainError } from "~/utils/domain-error";
import { env } from "~/utils/env.server";
import { supportReplyNotifications } from "../../notifications/notifications.server";
import { discardAttachments, storeUnlinkedAttachments } from "../attachment-store.server";
import { writeWithTicketEvents } from "../support-thread.server";
import { referenceInSubject } from "../ticket-reference.server";
import { dedupeKeyOf, type InboundEmail } from "./inbound-email.server";
import { findByDedupeKey, openTicketFromEmail, type InboundResult } from "./inbound-new-ticket.server";
import { bareMessageId, carriesReplyToken, providerVouchesFor, referenceInReplyAddress } from "./sender-trust.server";
import type { WebhookEventType } from "../../webhooks/webhook-schemas";

export type { InboundResult };

/**
 * Records an inbound email in the thread its subject (or its recipient, the ticket's reply
 * address with a valid token) names. Without a reference: a new ticket when
 * INBOUND_NEW_TICKETS is on (inbound-new-ticket.server.ts), else 422;
 * 404 for a reference to no ticket. A redelivery (same Message-ID, or same sender,
 * subject and body on the same day) returns the first copy with `duplicate: true`.
 */
export async function recordInboundEmail(email: InboundEmail, receivedAt = new Date()): Promise<InboundResult> {
  // The subject names the ticket; a reply to the ticket's own reply address does too.
  const reference = referenceInSubject(email.subject) ?? referenceInReplyAddress(email.recipients);
  if (!reference) {
    if (env.INBOUND_NEW_TICKETS) return openTicketFromEmail(email, receivedAt);
    referenceMissing();
  }
  const named = await db.ticket.findUnique({
    where: { reference },
    select: { ...filingSelect, mergedInto: { select: filingSelect } },
  });
  if (!named) throw new DomainError("ticket_not_found", `No support request ${reference}.`);
  // A reply to a merged ticket is filed in the one it went into (decision 072); who sent it
  // is still proved against the ticket it answers.
  const ticket = named.mergedInto ?? named;

  // Per ticket and sender: someone else's Message-ID posted to another ticket, or by
  // another sender, cannot make a genuine reply look like a redelivery. A redelivery of a
  // reply filed before a merge finds it where it moved.
  const dedupeKey = `${named.id}:${email.from}:${dedupeKeyOf(email, receivedAt)}`;
  const existing = await findByDedupeKey(dedupeKey);
  if (existing) return existing;

  const verified = email.from === named.email.toLowerCase() && (await provesCustomer(named, ticket.id, email));
  // Written first, in short chunks, and linked by the message's own write below.
  const attachmentIds = await storeUnlinkedAttachments(email.attachments, receivedAt);
  // Only the customer's own, human reply reopens a ticket that waits on them or was closed.
  const reopen = verified && !email.isAutoReply && ticket.status !== "open";
  try {
    const events: WebhookEventType[] = ["support_request.message_received"];
    if (reopen) events.push("support_request.status_changed");
    const updated = await writeWithTicketEvents(
      events,
      (client) =>
        client.ticket.update({
          // Not merged since it was read: then the update finds nothing, and the email is filed again.
          where: { id: ticket.id, mergedIntoId: null },
          data: {
            ...(reopen ? { status: "open" as const } : {}),
            lastMessageAt: receivedAt,
            messages: {
              create: {
                // Inbound mail is the customer's side of the thread, whatever its From says.
                direction: "inbound",
                author: "customer",
                authorUserId: null,
                fromEmail: email.from,
                body: email.visibleText,
                fullBody: email.text,
                unverifiedSender: !verified,
                isAutoReply: email.isAutoReply,
                emailMessageId: email.messageId,
                dedupeKey,
                notKept: email.notKept.length > 0 ? email.notKept.join("\n") : null,
                attachments: { connect: attachmentIds.map((id) => ({ id })) },
                createdAt: receivedAt,
              },
            },
          },
          select: { reference: true, messages: { where: { dedupeKey }, select: { id: true } } },
        }),
      () => ticket.id,
      await supportReplyNotifications(
        { ...ticket, assigneeEmail: ticket.assignee?.disabledAt ? null : ticket.assignee?.email },
        {
          from: email.from,
          body: email.visibleText,
          unverifiedSender: !verified,
          isAutoReply: email.isAutoReply,
        },
      ),
    );
    return { duplicate: false, ticketReference: updated.reference, messageId: updated.messages[0].id };
  } catch (error) {
    await discardAttachments(attachmentIds);
    if (isRecordNotFound(error)) return recordInboundEmail(email, receivedAt);
    // A concurrent delivery of the same email won the unique dedupeKey.
    if (isUniqueViolation(error)) {
      const first = await findByDedupeKey(dedupeKey);
      if (first) return first;
    }
    throw error;
  }
}

const filingSelect = {
  id: true,
  reference: true,
  email: true,
  name: true,
  subject: true,
  status: true,
  assignee: { select: { email: true, disabledAt: true } },
} as const;

/** Prisma found no row to update (P2025). */
function isRecordNotFound(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "P2025";
}

function referenceMissing(): never {
  throw new DomainError(
    "ticket_reference_missing",
    `The subject names no ticket (it must contain #${env.SUPPORT_TICKET_PREFIX}-<number>) and no recipient is a ticket's reply address.`,
    [{ path: "subject", message: `Expected a reference such as #${env.SUPPORT_TICKET_PREFIX}-1042.` }],
  );
}

/**
 * Something a stranger cannot forge: our reply address with the ticket's token among the
 * recipients, an answer to one of the ticket's Message-IDs, or the provider's word.
 */
async function provesCustomer(
  ticket: { id: string; reference: string },
  filedInId: string,
  email: InboundEmail,
): Promise<boolean> {
  if (carriesReplyToken(ticket.reference, email.recipients)) return true;
  if (providerVouchesFor(email.from, email.auth)) return true;
  if (email.answers.length === 0) return false;
  // A merged ticket's sent emails moved with its thread: they are read where they are now.
  const ours = await db.ticket.findMany({
    where: { id: { in: [...new Set([ticket.id, filedInId])] } },
    select: { threadMessageId: true, outbox: { select: { messageId: true }, take: 1_000 } },
  });
  const ids = new Set(
    ours
      .flatMap((one) => [one.threadMessageId, ...one.outbox.map((sent) => sent.messageId)])
      .filter(Boolean)
      .map((id) => bareMessageId(id)),
  );
  return email.answers.some((id) => ids.has(id));
}
