// An inbound email post, from the bytes the provider sent to one normal form: the spec's
// JSON shape and the native posts of SendGrid Inbound Parse, Postmark and Mailgun routes,
// attachments included. Runs in a worker thread (app/support/inbound/inbound-email.worker.ts): a
// 25 MB post takes JSON.parse, multipart parsing and base64 decoding far past what the
// event loop may spend on one request. Pure: no database, no configuration.
import { createHash } from "node:crypto";
import addressparser from "nodemailer/lib/addressparser";
import { DomainError, invalidFields, parseJson } from "~/utils/domain-error";
import { stripForbiddenText } from "~/utils/text-policy";
import { readMultipartForm } from "../../capture/uploads/multipart-form";
import { formFromParts, formFromUrlEncoded, fromForm } from "./inbound-form-providers";
import { fromMime } from "./inbound-mime";
import { fromJson, type Raw } from "./inbound-providers";
import type { DecodedEmail, HeaderMap, InboundAttachment } from "./inbound-types";

/** Larger posts are refused with 413 (providers include attachments in their posts). */
export const INBOUND_BODY_LIMIT = 25 * 1024 * 1024;
/** Each body part (text, html) is kept up to this size; the rest is cut and the message says so. */
export const BODY_TEXT_LIMIT = 1024 * 1024;
/** Attachments are kept up to this total per email, in the order they came. */
export const ATTACHMENT_BYTES_LIMIT = 10 * 1024 * 1024;
/** And at most this many. */
export const ATTACHMENT_COUNT_LIMIT = 50;

/** Bare addresses of a list of address headers or values ("A <a@x>, b@y"). */
export function addressesIn(values: Array<string | undefined | null>): string[] {
  const found: string[] = [];
  for (const value of values) {
    if (!value) continue;
    for (const entry of addressparser(value.slice(0, 10_000), { flatten: true })) {
      if (entry.address?.includes("@")) found.push(entry.address.toLowerCase());
    }
  }
  return found;
}

/** Message-IDs in In-Reply-To / References values, without angle brackets, lower-cased. */
export function messageIdsIn(values: Array<string | undefined | null>): string[] {
  const ids: string[] = [];
  for (const value of values) {
    if (!value) continue;
    for (const match of value.slice(0, 20_000).matchAll(/<?([^<>\s,]+@[^<>\s,]+)>?/g)) ids.push(match[1].toLowerCase());
  }
  return ids;
}

export function isAutoReply(headers: HeaderMap): boolean {
  const submitted = headers.get("auto-submitted")?.toLowerCase();
  if (submitted && submitted !== "no") return true;
  if (headers.has("x-autoreply") || headers.has("x-autorespond")) return true;
  const precedence = headers.get("precedence")?.trim().toLowerCase();
  return precedence === "bulk" || precedence === "auto_reply" || precedence === "junk";
}

/**
 * Mailing-list mail (Precedence: list). Not an auto-reply: a customer's reply may come
 * through a list (a Google Group as the support address) and still counts; but no
 * acknowledgement goes to a list (RFC 3834).
 */
const isListMail = (headers: HeaderMap) => headers.get("precedence")?.trim().toLowerCase() === "list";

/**
 * A bounce: a null return path (`Return-Path: <>`, as the delivering server writes it),
 * the provider's envelope saying so, or a delivery status report from MAILER-DAEMON.
 */
function isBounce(raw: Raw, from: string): boolean {
  if (raw.bounce) return true;
  if (raw.headers.get("return-path")?.replace(/\s+/g, "") === "<>") return true;
  return from.startsWith("mailer-daemon@");
}

/**
 * A spam verdict (decision 063): the provider's own (SendGrid's spam_score, Mailgun's
 * X-Mailgun-Sflag, Amazon SES's X-SES-Spam-Verdict: FAIL), or SpamAssassin's X-Spam-Flag: YES /
 * X-Spam-Status: Yes as the receiving server (or Postmark) writes them. A sender could write those headers too, but
 * only to flag their own message: nothing here ever clears a verdict.
 */
function isSpam(raw: Raw): boolean {
  if (raw.spam) return true;
  if (raw.headers.get("x-spam-flag")?.trim().toLowerCase() === "yes") return true;
  // Amazon SES's receipt verdict, above the message's headers.
  if (raw.headers.get("x-ses-spam-verdict")?.trim().toLowerCase() === "fail") return true;
  return /^\s*yes\b/i.test(raw.headers.get("x-spam-status") ?? "");
}

function senderAddress(from: string | undefined): string {
  const address = from
    ? addressparser(from, { flatten: true }).find((entry) => entry.address?.includes("@"))?.address
    : undefined;
  if (!address || !/^[^\s@]+@[^\s@]+$/.test(address)) {
    throw invalidFields(
      [{ path: "from", message: 'Expected an address such as "Name <name@example.com>".' }],
      "The sender has no email address.",
    );
  }
  return address.toLowerCase();
}

const SIZE = new Intl.NumberFormat("en", { maximumFractionDigits: 1 });
const megabytes = (bytes: number) => `${SIZE.format(bytes / 1024 / 1024)} MB`;

/** A file name safe to show and to send back: no path, no control characters, not empty. */
export function safeFilename(name: string | undefined): string {
  const base = stripForbiddenText(name ?? "")
    .replace(/[\u0000-\u001f\u007f]/g, "")
    .split(/[\\/]/)
    .pop()!
    .trim();
  return (base.replace(/^\.+/, "") || "attachment").slice(0, 200);
}

/** A media type as sent when it is one, else application/octet-stream. */
export function safeContentType(type: string | undefined): string {
  const bare = (type ?? "").split(";")[0].trim().toLowerCase();
  return /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,127}$/.test(bare)
    ? bare
    : "application/octet-stream";
}

/** Attachments in the order they came, while they fit the limits; the rest listed as not kept. */
function keepAttachments(files: NonNullable<Raw["attachments"]>, notKept: string[]): InboundAttachment[] {
  const kept: InboundAttachment[] = [];
  const dropped: string[] = [];
  let total = 0;
  for (const file of files) {
    const filename = safeFilename(file.filename);
    if (kept.length < ATTACHMENT_COUNT_LIMIT && total + file.data.byteLength <= ATTACHMENT_BYTES_LIMIT) {
      kept.push({ filename, contentType: safeContentType(file.contentType), data: file.data });
      total += file.data.byteLength;
    } else {
      dropped.push(`${filename} (${megabytes(file.data.byteLength)})`);
    }
  }
  if (dropped.length > 0) {
    notKept.push(
      `${dropped.length === 1 ? "1 attachment was" : `${dropped.length} attachments were`} not kept, over the limit of ${megabytes(ATTACHMENT_BYTES_LIMIT)} and ${ATTACHMENT_COUNT_LIMIT} files per email: ${dropped.slice(0, 20).join(", ")}${dropped.length > 20 ? ", …" : ""}.`,
    );
  }
  return kept;
}

function cutBody(name: string, value: string | undefined, notKept: string[]): string | undefined {
  if (value === undefined || value.length <= BODY_TEXT_LIMIT) return value;
  notKept.push(
    `The ${name} part was ${megabytes(value.length)}; only its first ${megabytes(BODY_TEXT_LIMIT)} is kept.`,
  );
  return value.slice(0, BODY_TEXT_LIMIT);
}

export function normalize(raw: Raw): DecodedEmail {
  const from = senderAddress(raw.from);
  // An email whose only file could not be read is still kept: its thread says so.
  if (!raw.text?.trim() && !raw.html?.trim() && !raw.attachments?.length && !raw.unreadable?.length) {
    throw invalidFields([{ path: "text", message: "Give the body in text or html." }], "The email has no body.");
  }
  const notKept: string[] = [...(raw.unreadable ?? [])];
  const messageId = raw.messageId?.trim() || null;
  const digest = createHash("sha256");
  for (const part of [raw.text, raw.html, raw.stripped]) digest.update(`${part?.length ?? -1}:`).update(part ?? "");
  for (const file of raw.attachments ?? []) digest.update(`${file.data.byteLength}:`).update(file.data);
  return {
    provider: raw.provider,
    from,
    subject: raw.subject.replace(/[\r\n]+/g, " ").trim(),
    body: {
      text: cutBody("text", raw.text, notKept),
      html: cutBody("HTML", raw.html, notKept),
      stripped: cutBody("stripped reply", raw.stripped, notKept),
    },
    messageId: messageId && messageId.length <= 1000 ? messageId : null,
    isAutoReply: isAutoReply(raw.headers),
    isListMail: isListMail(raw.headers),
    isBounce: isBounce(raw, from),
    spam: isSpam(raw),
    recipients: addressesIn([
      raw.headers.get("to"),
      raw.headers.get("cc"),
      raw.headers.get("delivered-to"),
      ...(raw.recipients ?? []),
    ]),
    answers: messageIdsIn([
      raw.inReplyTo,
      raw.references,
      raw.headers.get("in-reply-to"),
      raw.headers.get("references"),
    ]),
    auth: raw.auth,
    attachments: keepAttachments(raw.attachments ?? [], notKept),
    notKept,
    contentDigest: digest.digest("hex"),
  };
}

/**
 * An inbound email post as one normal form: JSON (the spec's shape or Postmark's),
 * multipart or urlencoded form (SendGrid's or Mailgun's). Throws DomainError for a body
 * that cannot be parsed, another content type, or a missing sender, subject or body.
 */
export function decodeInboundPayload(bytes: Uint8Array, contentType: string): DecodedEmail {
  const type = contentType.split(";")[0].trim().toLowerCase();
  if (type === "application/json" || type.endsWith("+json")) {
    return normalize(
      fromJson(parseJson(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8"))),
    );
  }
  if (type === "multipart/form-data") return normalize(fromForm(formFromParts(readMultipartForm(bytes, contentType))));
  if (type === "application/x-www-form-urlencoded") {
    const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
    return normalize(fromForm(formFromUrlEncoded(new URLSearchParams(body))));
  }
  throw new DomainError("unsupported_media_type", INBOUND_TYPES_MESSAGE);
}

/** A raw email's media type: the whole message as received (RFC 5322, MIME). */
export const isRawEmailType = (contentType: string) =>
  contentType.split(";")[0].trim().toLowerCase() === "message/rfc822";

export const INBOUND_TYPES_MESSAGE =
  "Send JSON, multipart/form-data, application/x-www-form-urlencoded, or the whole email as message/rfc822.";

/** decodeInboundPayload, and the whole email as message/rfc822 (read with mailparser). */
export async function decodeInbound(bytes: Uint8Array, contentType: string): Promise<DecodedEmail> {
  if (isRawEmailType(contentType)) return normalize(await fromMime(bytes));
  return decodeInboundPayload(bytes, contentType);
}
