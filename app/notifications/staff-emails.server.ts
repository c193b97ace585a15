// Emails to staff through the outbox: built with one subject and text for each recipient,
// and written in the caller's transaction (with what they announce). What each
// notification says is notifications.server.ts; sending them is outbox.server.ts.
import { newMessageId } from "~/notifications/mailer.server";
import type { StaffEmail } from "~/storage/outbox-store.server";
import { timeOrderedId } from "~/utils/random-text.server";

/** A row of the outbox for staff: no ticket, and its own Reply-To (or none); a lead is written with its own. */
export type { StaffEmail };

/** Emails to staff (or anyone) with one subject and text, ready for writeStaffEmails. */
export function staffEmails(
  recipients: readonly string[],
  message: { subject: string; text: string; replyTo?: string | null },
  createdAt = new Date(),
): StaffEmail[] {
  return recipients.map((toEmail) => ({
    id: timeOrderedId("eml_"),
    toEmail,
    subject: message.subject.slice(0, 250),
    text: message.text,
    messageId: newMessageId("notify"),
    replyTo: message.replyTo ?? null,
    createdAt,
  }));
}
