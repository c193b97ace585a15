// An inbound email post, from the bytes the provider sent to one normal form: the spec's
// JSON shape and the native posts of SendGrid Inbound Parse, Postmark and Mailgun routes,
// attachments included. Runs in a worker thread (app/workers/inbound-email.worker.ts): a
// 25 MB post takes JSON.parse, multipart parsing and base64 decoding far past what the
// event loop may spend on one request. Pure: no database, no configuration.
import { createHash } from "node:crypto";
import addressparser from "nodemailer/lib/addressparser";
import { z } from "zod";
import { DomainError, invalidFields, parseJson, parseOrThrow } from "~/utils/domain-error";
import { stripForbiddenDeep, stripForbiddenText } from "~/utils/text-policy";

/** Larger posts are refused with 413 (providers include attachments in their posts). */
export const INBOUND_BODY_LIMIT = 25 * 1024 * 1024;
/** Each body part (text, html) is kept up to this size; the rest is cut and the message says so. */
export const BODY_TEXT_LIMIT = 1024 * 1024;
/** Attachments are kept up to this total per email, in the order they came. */
export const ATTACHMENT_BYTES_LIMIT = 10 * 1024 * 1024;
/** And at most this many. */
export const ATTACHMENT_COUNT_LIMIT = 50;

export type InboundProvider = "json" | "sendgrid" | "postmark" | "mailgun";

/** What the receiving provider said about the sender's domain. */
export type AuthEvidence = {
  /** Authentication-Results header values (RFC 8601), the receiving server's first. */
  authenticationResults: string[];
  /** An SPF verdict without a header ("pass", "fail", ...), with the envelope sender it was for. */
  spf?: { result: string; envelopeFrom?: string };
  /** DKIM verdicts as domain -> result (SendGrid's `dkim` field, Mailgun's check result). */
  dkim?: Array<{ domain?: string; result: string }>;
};

export type InboundAttachment = { filename: string; contentType: string; data: Uint8Array };

/** An inbound email as read from the post, before its body is cleaned. */
export type DecodedEmail = {
  provider: InboundProvider;
  /** The sender's address, lower-cased. */
  from: string;
  subject: string;
  /** The body parts as received (each cut at BODY_TEXT_LIMIT) and a provider's stripped reply. */
  body: { text?: string; html?: string; stripped?: string };
  messageId: string | null;
  isAutoReply: boolean;
  /** Every address it was delivered to: To, Cc and the envelope recipients, lower-cased. */
  recipients: string[];
  /** The Message-IDs it answers (In-Reply-To and References), bare and lower-cased. */
  answers: string[];
  /** What the provider said about the sender (SPF, DKIM, DMARC). */
  auth: AuthEvidence;
  attachments: InboundAttachment[];
  /** What of the email was not kept (attachments over the limit, a cut body), for the thread to say. */
  notKept: string[];
  /** SHA-256 of the body parts and attachments as received: a redelivery without Message-ID has the same. */
  contentDigest: string;
};

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

type Headers = Map<string, string>;

function headerMap(entries: Iterable<[string, unknown]>): Headers {
  const map: Headers = new Map();
  for (const [name, value] of entries) {
    if (typeof name === "string" && value !== undefined && value !== null) {
      const key = name.trim().toLowerCase();
      if (!map.has(key)) map.set(key, String(value).trim());
    }
  }
  return map;
}

/** A raw header block ("Name: value" lines, continuation lines folded in). */
export function parseRawHeaders(raw: string): Headers {
  const unfolded = raw.replace(/\r\n/g, "\n").replace(/\n[ \t]+/g, " ");
  return headerMap(
    unfolded.split("\n").flatMap((line): Array<[string, string]> => {
      const colon = line.indexOf(":");
      return colon > 0 ? [[line.slice(0, colon), line.slice(colon + 1)]] : [];
    }),
  );
}

const text = (max: number) => z.string().max(max).optional();

const JsonShape = z.object({
  from: z.string({ error: "Give the sender in from." }).min(1, "Give the sender in from.").max(1000),
  subject: z.string({ error: "Give the subject." }).max(1000),
  text: z.string().optional(),
  html: z.string().optional(),
  messageId: text(1000),
  headers: z
    .union([z.record(z.string(), z.string()), z.array(z.object({ name: z.string(), value: z.string() }))])
    .optional(),
  to: z.union([z.string().max(10_000), z.array(z.string().max(1000)).max(100)]).optional(),
  cc: z.union([z.string().max(10_000), z.array(z.string().max(1000)).max(100)]).optional(),
  inReplyTo: text(2000),
  references: z.union([z.string().max(20_000), z.array(z.string().max(1000)).max(100)]).optional(),
  attachments: z
    .array(
      z.object({
        filename: z.string().max(1000).optional(),
        contentType: z.string().max(1000).optional(),
        content: z.string({ error: "Give each attachment's content in base64." }),
      }),
    )
    .max(1000)
    .optional(),
});

const listOf = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(", ") : value);

const PostmarkShape = z.object({
  From: z.string().max(1000).optional(),
  FromFull: z
    .object({ Email: z.string().max(1000) })
    .partial()
    .optional(),
  Subject: z.string({ error: "Give the subject." }).max(1000),
  TextBody: z.string().optional(),
  HtmlBody: z.string().optional(),
  StrippedTextReply: z.string().optional(),
  MessageID: text(1000),
  Headers: z.array(z.object({ Name: z.string(), Value: z.string() })).optional(),
  To: z.string().max(10_000).optional(),
  Cc: z.string().max(10_000).optional(),
  OriginalRecipient: z.string().max(1000).optional(),
  Attachments: z
    .array(
      z.object({
        Name: z.string().max(1000).optional(),
        ContentType: z.string().max(1000).optional(),
        Content: z.string(),
      }),
    )
    .max(1000)
    .optional(),
});

const SendGridShape = z.object({
  from: z.string({ error: "Give the sender in from." }).min(1, "Give the sender in from."),
  subject: z.string({ error: "Give the subject." }),
  text: z.string().optional(),
  html: z.string().optional(),
  headers: z.string().optional(),
  to: z.string().optional(),
  cc: z.string().optional(),
  envelope: z.string().optional(),
  SPF: z.string().optional(),
  dkim: z.string().optional(),
});

const MailgunShape = z.object({
  sender: z.string().optional(),
  from: z.string().optional(),
  subject: z.string({ error: "Give the subject." }),
  "body-plain": z.string().optional(),
  "body-html": z.string().optional(),
  "stripped-text": z.string().optional(),
  recipient: z.string().optional(),
  To: z.string().optional(),
  "message-headers": z.string().optional(),
  "Message-Id": z.string().optional(),
});

type Raw = {
  provider: InboundProvider;
  from: string | undefined;
  subject: string;
  text?: string;
  html?: string;
  /** A reply already stripped by the provider, when it offers one. */
  stripped?: string;
  headers: Headers;
  messageId?: string;
  /** To / Cc / envelope recipients as the provider gives them beside the headers. */
  recipients?: Array<string | undefined>;
  inReplyTo?: string;
  references?: string;
  /** Provider verdicts given outside the headers (SendGrid, Mailgun). */
  spf?: AuthEvidence["spf"];
  attachments?: Array<{ filename?: string; contentType?: string; data: Uint8Array }>;
  dkim?: AuthEvidence["dkim"];
};

// Mail from anyone may carry control characters; refusing it would lose the customer's
// message, so they are stripped here instead (docs/input-policy.md).
function fromJson(received: unknown): Raw {
  const body = stripForbiddenDeep(received);
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw invalidFields([{ path: "(body)", message: "Expected an object." }], "The body must be a JSON object.");
  }
  const looksPostmark = ["From", "FromFull", "TextBody", "HtmlBody", "MessageID"].some((key) => key in body);
  if (looksPostmark) {
    const mail = parseOrThrow(PostmarkShape, body);
    const headers = headerMap((mail.Headers ?? []).map((h) => [h.Name, h.Value]));
    return {
      provider: "postmark",
      from: mail.FromFull?.Email || mail.From,
      subject: mail.Subject,
      text: mail.TextBody,
      html: mail.HtmlBody,
      stripped: mail.StrippedTextReply,
      headers,
      recipients: [mail.To, mail.Cc, mail.OriginalRecipient],
      // Postmark's MessageID is its own id: stable across its retries, so good for dedupe too.
      messageId: headers.get("message-id") ?? (mail.MessageID ? `postmark:${mail.MessageID}` : undefined),
      attachments: (mail.Attachments ?? []).map((file) => ({
        filename: file.Name,
        contentType: file.ContentType,
        data: Buffer.from(file.Content, "base64"),
      })),
    };
  }
  const mail = parseOrThrow(JsonShape, body);
  const headers = Array.isArray(mail.headers)
    ? headerMap(mail.headers.map((h) => [h.name, h.value]))
    : headerMap(Object.entries(mail.headers ?? {}));
  return {
    provider: "json",
    from: mail.from,
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    headers,
    messageId: mail.messageId ?? headers.get("message-id"),
    recipients: [listOf(mail.to), listOf(mail.cc)],
    inReplyTo: mail.inReplyTo,
    references: listOf(mail.references),
    attachments: (mail.attachments ?? []).map((file) => ({
      filename: file.filename,
      contentType: file.contentType,
      data: Buffer.from(file.content, "base64"),
    })),
  };
}

/** SendGrid's envelope (JSON `{to: [...], from}`), `SPF` verdict and `dkim` field (`{@example.com : pass}`). */
function sendGridEvidence(mail: z.output<typeof SendGridShape>): Pick<Raw, "recipients" | "spf" | "dkim"> {
  let envelope: { to?: unknown; from?: unknown } = {};
  try {
    envelope = JSON.parse(mail.envelope ?? "{}") as typeof envelope;
  } catch {
    envelope = {};
  }
  const envelopeTo = Array.isArray(envelope.to) ? envelope.to.filter((to): to is string => typeof to === "string") : [];
  const dkim = [...(mail.dkim ?? "").matchAll(/@([^\s:,}]+)\s*:\s*(\w+)/g)].map((match) => ({
    domain: match[1],
    result: match[2],
  }));
  return {
    recipients: [mail.to, mail.cc, ...envelopeTo],
    spf: mail.SPF
      ? { result: mail.SPF, envelopeFrom: typeof envelope.from === "string" ? envelope.from : undefined }
      : undefined,
    dkim,
  };
}

/**
 * The files of a provider's multipart post: SendGrid's `attachment1`.. (names and types
 * also in `attachment-info`), Mailgun's `attachment-1`..
 */
async function formAttachments(form: FormData, info: string | undefined): Promise<NonNullable<Raw["attachments"]>> {
  let described: Record<string, { filename?: unknown; name?: unknown; type?: unknown }> = {};
  try {
    const parsed: unknown = JSON.parse(info ?? "{}");
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) described = parsed as typeof described;
  } catch {
    described = {};
  }
  const files: NonNullable<Raw["attachments"]> = [];
  for (const [field, value] of form.entries()) {
    if (typeof value === "string" || !/^attachment-?\d{1,4}$/.test(field)) continue;
    const about = Object.hasOwn(described, field) ? described[field] : undefined;
    const named = [about?.filename, about?.name].find((name): name is string => typeof name === "string");
    files.push({
      filename: named ?? value.name,
      contentType: typeof about?.type === "string" ? about.type : value.type,
      data: new Uint8Array(await value.arrayBuffer()),
    });
  }
  return files;
}

async function fromForm(form: FormData): Promise<Raw> {
  const fields = Object.fromEntries(
    [...form.entries()]
      .filter((entry): entry is [string, string] => typeof entry[1] === "string")
      .map(([name, value]) => [stripForbiddenText(name), stripForbiddenText(value)]),
  );
  const looksMailgun = ["body-plain", "body-html", "message-headers", "sender", "stripped-text"].some(
    (key) => key in fields,
  );
  if (looksMailgun) {
    const mail = parseOrThrow(MailgunShape, fields);
    let headers: Headers = new Map();
    try {
      const parsed: unknown = JSON.parse(mail["message-headers"] ?? "[]");
      if (Array.isArray(parsed)) {
        headers = headerMap(parsed.filter((h): h is [string, unknown] => Array.isArray(h) && h.length === 2));
      }
    } catch {
      throw invalidFields(
        [{ path: "message-headers", message: "Expected a JSON array of [name, value] pairs." }],
        "message-headers is not valid JSON.",
      );
    }
    return {
      provider: "mailgun",
      // `from` carries the display name; `sender` is the envelope address.
      from: mail.from || mail.sender,
      subject: mail.subject,
      text: mail["body-plain"],
      html: mail["body-html"],
      stripped: mail["stripped-text"],
      headers,
      messageId: headers.get("message-id") ?? mail["Message-Id"],
      recipients: [mail.recipient, mail.To],
      spf: headers.has("x-mailgun-spf")
        ? { result: headers.get("x-mailgun-spf")!, envelopeFrom: mail.sender }
        : undefined,
      dkim: headers.has("x-mailgun-dkim-check-result")
        ? [
            {
              result: headers.get("x-mailgun-dkim-check-result")!,
              domain: /\bd=([^;\s]+)/.exec(headers.get("dkim-signature") ?? "")?.[1],
            },
          ]
        : undefined,
      attachments: await formAttachments(form, undefined),
    };
  }
  const mail = parseOrThrow(SendGridShape, fields);
  const headers = parseRawHeaders(mail.headers ?? "");
  return {
    provider: "sendgrid",
    from: mail.from,
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    headers,
    messageId: headers.get("message-id"),
    ...sendGridEvidence(mail),
    attachments: await formAttachments(form, fields["attachment-info"]),
  };
}

/** RFC 3834 and the common vendor headers of out-of-office and other automatic mail. */
export function isAutoReply(headers: Headers): boolean {
  const submitted = headers.get("auto-submitted")?.toLowerCase();
  if (submitted && submitted !== "no") return true;
  if (headers.has("x-autoreply") || headers.has("x-autorespond")) return true;
  const precedence = headers.get("precedence")?.toLowerCase();
  return precedence === "bulk" || precedence === "auto_reply" || precedence === "junk";
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

function normalize(raw: Raw): DecodedEmail {
  const from = senderAddress(raw.from);
  if (!raw.text?.trim() && !raw.html?.trim() && !raw.attachments?.length) {
    throw invalidFields([{ path: "text", message: "Give the body in text or html." }], "The email has no body.");
  }
  const notKept: string[] = [];
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
    auth: {
      authenticationResults: raw.headers.has("authentication-results")
        ? [raw.headers.get("authentication-results")!]
        : [],
      spf:
        raw.spf ??
        (raw.headers.has("received-spf")
          ? {
              result: raw.headers.get("received-spf")!.split(/\s/)[0],
              envelopeFrom: /envelope-from=([^;\s]+)/i.exec(raw.headers.get("received-spf")!)?.[1],
            }
          : undefined),
      dkim: raw.dkim,
    },
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
export async function decodeInboundPayload(bytes: Uint8Array, contentType: string): Promise<DecodedEmail> {
  const type = contentType.split(";")[0].trim().toLowerCase();
  if (type === "application/json" || type.endsWith("+json")) {
    return normalize(
      fromJson(parseJson(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8"))),
    );
  }
  if (type === "multipart/form-data" || type === "application/x-www-form-urlencoded") {
    let form: FormData;
    try {
      // A copy: a Response takes no view of shared memory.
      form = await new Response(new Uint8Array(bytes), { headers: { "Content-Type": contentType } }).formData();
    } catch {
      throw new DomainError("malformed_body", "The form body could not be parsed.");
    }
    return normalize(await fromForm(form));
  }
  throw new DomainError(
    "unsupported_media_type",
    "Send JSON, multipart/form-data or application/x-www-form-urlencoded.",
  );
}
