// Outgoing support email: the SMTP transport (nodemailer over SMTP_URL) and the shape
// of every message we send, so mail clients thread them and replies find their ticket.
import { randomBytes } from "node:crypto";
import nodemailer, { type Transporter } from "nodemailer";
import { env } from "../utils/env.server";

/** The line customers reply above; inbound mail is cut at it (app/support/inbound/inbound-email.worker.ts). */
export const REPLY_MARKER = "##- Please type your reply above this line -##";

function mailDomain(): string {
  return env.SUPPORT_FROM_EMAIL.split("@")[1] ?? "localhost";
}

/** A fresh RFC 5322 Message-ID naming the ticket, e.g. `<k3j2h4.sr-1042@example.com>`. */
export function newMessageId(reference: string): string {
  return `<${randomBytes(9).toString("base64url")}.${reference.toLowerCase()}@${mailDomain()}>`;
}

/** `Re: <subject> [#SR-1042]`: the reference the inbound webhook looks for, once. */
export function outgoingSubject(subject: string, reference: string): string {
  const bare = subject
    .replace(/\s*\[#[A-Za-z]+-\d+\]\s*/g, " ")
    .replace(/^\s*((re|fwd?|aw|sv)\s*:\s*)+/i, "")
    .trim();
  return `Re: ${bare} [#${reference}]`;
}

export type OutgoingEmail = {
  toEmail: string;
  subject: string;
  text: string;
  messageId: string;
  inReplyTo: string | null;
  references: string | null;
};

/**
 * A support email: the marker on top (clients quote below it), the message, and a
 * footer naming the reference. `threadIds` are the Message-IDs it answers, oldest first.
 */
export function composeSupportEmail(input: {
  toEmail: string;
  subject: string;
  reference: string;
  body: string;
  messageId: string;
  threadIds: string[];
}): OutgoingEmail {
  const ids = [...new Set(input.threadIds.filter((id) => id && id !== input.messageId))];
  return {
    toEmail: input.toEmail,
    subject: outgoingSubject(input.subject, input.reference),
    text: [
      REPLY_MARKER,
      "",
      input.body.trim(),
      "",
      "-- ",
      `Support request ${input.reference}. Reply to this email to add to the conversation.`,
      "",
    ].join("\n"),
    messageId: input.messageId,
    inReplyTo: ids.at(-1) ?? null,
    references: ids.length > 0 ? ids.join(" ") : null,
  };
}

export function isSmtpConfigured(): boolean {
  return Boolean(env.SMTP_URL);
}

let transport: Transporter | undefined;

function getTransport(): Transporter {
  // Query parameters of SMTP_URL are transport options (e.g. ?ignoreTLS=true).
  transport ??= nodemailer.createTransport({
    url: env.SMTP_URL!,
    // Bounded so a hung server cannot hold an outbox row past its lock (outbox.server.ts).
    connectionTimeout: 20_000,
    greetingTimeout: 15_000,
    socketTimeout: 30_000,
  } as Parameters<typeof nodemailer.createTransport>[0]);
  return transport;
}

/** An image that travels inside the email, shown by its `cid:` (the brand's logo). */
export type InlineImage = { cid: string; content: Buffer; contentType: string; filename: string };

/**
 * Sends one email: the text part as composed, and with `html` a multipart/alternative
 * whose HTML part may show `inlineImages`; From carries `fromName` when given.
 */
export async function sendEmail(
  email: OutgoingEmail & {
    autoSubmitted?: "auto-replied" | "auto-generated";
    replyTo?: string;
    html?: string;
    inlineImages?: InlineImage[];
    fromName?: string;
    /** An autoresponse's unsubscribe address (decision 066): List-Unsubscribe, one-click. */
    listUnsubscribe?: string;
  },
): Promise<void> {
  await getTransport().sendMail({
    from: email.fromName ? { name: email.fromName, address: env.SUPPORT_FROM_EMAIL } : env.SUPPORT_FROM_EMAIL,
    replyTo: email.replyTo,
    to: email.toEmail,
    subject: email.subject,
    text: email.text,
    html: email.html,
    attachments: email.inlineImages?.map((image) => ({ ...image, contentDisposition: "inline" as const })),
    messageId: email.messageId,
    inReplyTo: email.inReplyTo ?? undefined,
    references: email.references ?? undefined,
    // RFC 3834: our automatic acknowledgements must not trigger customers' auto-replies.
    headers: {
      ...(email.autoSubmitted ? { "Auto-Submitted": email.autoSubmitted } : {}),
      ...(email.listUnsubscribe
        ? { "List-Unsubscribe": `<${email.listUnsubscribe}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" }
        : {}),
    },
  });
}
