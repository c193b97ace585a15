// Tickets by email (INBOUND_NEW_TICKETS=true, docs/decisions/063-raw-mime-and-tickets-by-email.md):
// an inbound email that names no ticket opens one from its sender, as the public support
// form would (anyone can use either, so the sender need not be verified), with that form's
// limits, and no acknowledgement to an auto-reply, a bounce or a message flagged as spam.
import { newMessageId } from "~/notifications/mailer.server";
import { db, isUniqueViolation } from "~/storage/db.server";
import { notePerson } from "~/storage/people/person-arrival.server";
import { env } from "~/utils/env.server";
import { supportNotifications } from "../../notifications/notifications.server";
import { kickOutbox } from "../../notifications/outbox.server";
import { discardAttachments, storeUnlinkedAttachments } from "../attachment-store.server";
import { writeWithTicketEvents } from "../support-thread.server";
import { acknowledgement, limitSupportRequestsFrom, mayAcknowledge } from "../support.server";
import { nextTicketNumber } from "../ticket-reference.server";
import { dedupeKeyOf, type InboundEmail } from "./inbound-email.server";
import { providerVouchesFor } from "./sender-trust.server";

export type InboundResult = {
  duplicate: boolean;
  ticketReference: string;
  messageId: string;
  /** For a ticket opened by this email. */
  created?: boolean;
};

/** As the public form's subject (CreateTicketSchema). */
const SUBJECT_LENGTH = 200;

export async function findByDedupeKey(dedupeKey: string): Promise<InboundResult | null> {
  const message = await db.ticketMessage.findUnique({
    where: { dedupeKey },
    select: { id: true, ticket: { select: { reference: true } } },
  });
  return message ? { duplicate: true, ticketReference: message.ticket.reference, messageId: message.id } : null;
}

/**
 * Opens a support request from an email that names no ticket. A redelivery (same
 * Message-ID from the same sender, or the same content the same day) answers with the
 * first ticket and `duplicate: true`; the unique dedupeKey of the first message makes two
 * concurrent deliveries open one ticket. 429 past SUPPORT_RATE_LIMIT_PER_HOUR for the
 * sender; past SUPPORT_ACKS_PER_RECIPIENT_PER_DAY the ticket is opened without an acknowledgement.
 */
export async function openTicketFromEmail(email: InboundEmail, receivedAt = new Date()): Promise<InboundResult> {
  const dedupeKey = `new:${email.from}:${dedupeKeyOf(email, receivedAt)}`;
  const existing = await findByDedupeKey(dedupeKey);
  if (existing) return existing;
  // The form counts per client address; an email's client is its sender.
  await limitSupportRequestsFrom(`email:${email.from}`);
  const automatic = email.isAutoReply || email.isBounce;
  // Nothing is sent back to a machine, to a bounce's null sender, or to spam's forged one.
  const acknowledge = !automatic && !email.isListMail && !email.spam && (await mayAcknowledge(email.from));
  const verified = providerVouchesFor(email.from, email.auth);
  const subject = email.subject.trim().slice(0, SUBJECT_LENGTH) || "(no subject)";

  const number = await nextTicketNumber();
  const reference = `${env.SUPPORT_TICKET_PREFIX}-${number}`;
  const threadMessageId = newMessageId(reference);
  const attachmentIds = await storeUnlinkedAttachments(email.attachments, receivedAt);
  try {
    const ticket = await writeWithTicketEvents(
      ["support_request.created"],
      (client) =>
        client.ticket
          .create({
            data: {
              number,
              reference,
              email: email.from,
              subject,
              threadMessageId,
              spam: email.spam,
              lastMessageAt: receivedAt,
              createdAt: receivedAt,
              messages: {
                create: {
                  direction: "inbound",
                  author: "customer",
                  fromEmail: email.from,
                  body: email.visibleText,
                  fullBody: email.text,
                  unverifiedSender: !verified,
                  isAutoReply: automatic,
                  emailMessageId: email.messageId,
                  dedupeKey,
                  notKept: email.notKept.length > 0 ? email.notKept.join("\n") : null,
                  attachments: { connect: attachmentIds.map((id) => ({ id })) },
                  createdAt: receivedAt,
                },
              },
              ...(acknowledge ? { outbox: { create: acknowledgement(reference, email.from, threadMessageId) } } : {}),
            },
            select: { id: true, reference: true, messages: { select: { id: true } } },
          })
          .then(async (created) => {
            // Its person (decision 071), in the same transaction.
            await notePerson(client, { email: email.from, name: null, firstId: created.id, at: receivedAt });
            return created;
          }),
      (created) => created.id,
      // Staff hear of it as of a form's request; of an automatic message or spam, not at all.
      supportNotifications(
        "created",
        { reference, subject, email: email.from, name: null },
        {
          from: email.from,
          body: email.visibleText,
          unverifiedSender: !verified,
          isAutoReply: automatic || email.spam,
        },
      ),
    );
    if (acknowledge) kickOutbox();
    return { duplicate: false, created: true, ticketReference: ticket.reference, messageId: ticket.messages[0].id };
  } catch (error) {
    await discardAttachments(attachmentIds);
    // A concurrent delivery of the same email won the unique dedupeKey: its ticket stands.
    if (isUniqueViolation(error)) {
      const first = await findByDedupeKey(dedupeKey);
      if (first) return first;
    }
    throw error;
  }
}
