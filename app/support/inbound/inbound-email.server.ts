// Inbound email as the webhook receives it, in one normal form for the spec's JSON shape
// and the native posts of SendGrid Inbound Parse, Postmark and Mailgun routes. What the thread shows is the new text only (quoted
// history and the "reply above this line" marker cut off); the whole text is kept.
import { createHash } from "node:crypto";
import { DomainError } from "~/utils/domain-error";
import { INBOUND_TYPES_MESSAGE } from "./inbound-payload";
import { readEmailInWorker } from "./inbound-worker.server";
import type { DecodedEmail } from "./inbound-types";

const INBOUND_TYPES = new Set([
  "application/json",
  "multipart/form-data",
  "application/x-www-form-urlencoded",
  "message/rfc822",
]);

export type InboundEmail = Omit<DecodedEmail, "body"> & {
  /** The whole body as plain text (the html converted when there is no text part). */
  text: string;
  /** What the thread shows: the reply without quoted history. */
  visibleText: string;
};

/** Whether a Content-Type is one an inbound post may have; unsupported_media_type otherwise. */
export function assertInboundType(contentType: string): void {
  const type = contentType.split(";")[0].trim().toLowerCase();
  if (!INBOUND_TYPES.has(type) && !type.endsWith("+json")) {
    throw new DomainError("unsupported_media_type", INBOUND_TYPES_MESSAGE);
  }
}

/**
 * Reads an inbound email post (JSON: the spec's shape or Postmark's; multipart or
 * urlencoded form: SendGrid's or Mailgun's; message/rfc822: the whole email) in a worker thread. Throws DomainError when
 * it is not an email (no sender, no subject, a body that cannot be parsed).
 */
export async function readInboundEmail(bytes: Uint8Array, contentType: string): Promise<InboundEmail> {
  assertInboundType(contentType);
  const { cleaned, ...rest } = await readEmailInWorker(bytes, contentType);
  return {
    ...rest,
    text: cleaned.text || "(no text)",
    visibleText: cleaned.visibleText || "(no text)",
  };
}

/**
 * What makes a redelivery recognisable: the Message-ID, or else the sender, subject,
 * body parts and attachments as received, on the same UTC day.
 */
export function dedupeKeyOf(email: InboundEmail, receivedAt = new Date()): string {
  if (email.messageId) return `mid:${email.messageId.replace(/^<|>$/g, "").toLowerCase()}`;
  const day = receivedAt.toISOString().slice(0, 10);
  const digest = createHash("sha256")
    .update([email.from, email.subject, email.contentDigest, day].join("\n"))
    .digest("hex");
  return `sha256:${digest}`;
}
