// The providers' inbound posts, each read into one raw shape (Raw) for inbound-payload.ts
// to normalize: here the JSON posts (the spec's shape and Postmark's); the form posts of
// SendGrid Inbound Parse and Mailgun routes are in inbound-form-providers.ts. Each reader
// takes a verdict on the sender only from where its provider writes it and the sender
// cannot (docs/decisions/038-provider-verdicts-and-fullest-text.md). Pure, as
// inbound-payload.ts.
import { z } from "zod";
import { invalidFields, parseOrThrow } from "~/utils/domain-error";
import { stripForbiddenDeep } from "~/utils/text-policy";
import type { AuthEvidence, HeaderMap, InboundProvider } from "./inbound-types";

export function headerMap(entries: Iterable<[string, unknown]>): HeaderMap {
  const map: HeaderMap = new Map();
  for (const [name, value] of entries) {
    if (typeof name === "string" && value !== undefined && value !== null) {
      const key = name.trim().toLowerCase();
      if (!map.has(key)) map.set(key, String(value).trim());
    }
  }
  return map;
}

/** The "Name: value" lines of a raw header block, continuation lines folded in, in order. */
export function rawHeaderLines(raw: string): Array<[string, string]> {
  const unfolded = raw.replace(/\r\n?/g, "\n").replace(/\n[ \t]+/g, " ");
  return unfolded.split("\n").flatMap((line): Array<[string, string]> => {
    const colon = line.indexOf(":");
    return colon > 0 ? [[line.slice(0, colon), line.slice(colon + 1)]] : [];
  });
}

/**
 * The topmost Authentication-Results of a header list in the order received: the one the
 * receiving server added last (sender-trust.server.ts believes it only under the configured
 * authserv-id).
 */
export function topAuthenticationResults(headers: Array<[string, string]>): string | undefined {
  return headers.find(([name]) => name.trim().toLowerCase() === "authentication-results")?.[1].trim();
}

export type RawAttachment = { filename?: string; contentType?: string; data: Uint8Array };

export type Raw = {
  provider: InboundProvider;
  from: string | undefined;
  subject: string;
  text?: string;
  html?: string;
  /** A reply already stripped by the provider, when it offers one. */
  stripped?: string;
  /** The email's own headers (the first value of each name): written by the sender, so never a verdict. */
  headers: HeaderMap;
  messageId?: string;
  /** To / Cc / envelope recipients as the provider gives them beside the headers. */
  recipients?: Array<string | undefined>;
  inReplyTo?: string;
  references?: string;
  /** What the provider itself said about the sender, read from where only it writes. */
  auth: AuthEvidence;
  attachments?: RawAttachment[];
  /** Attachments that could not be read, one line each, for the thread to say. */
  unreadable?: string[];
  /** The provider's own spam verdict (a field only it writes), when it gives one. */
  spam?: boolean;
  /** The provider's envelope says the message is a bounce (a null sender). */
  bounce?: boolean;
};

// Any character base64 (or its URL-safe form, which Buffer also reads) cannot hold. A
// negated class, tested once per character: no backtracking on a 13 MB string.
const NOT_BASE64 = /[^A-Za-z0-9+/=_\s-]/;

/**
 * A provider's list of attachments, file by file: one that cannot be read (no content,
 * not base64) is named in `unreadable` and the others are kept; the email is never lost
 * to one odd file. `contentKeys` are where the base64 may be (Postmark's Check payload
 * carries it in `Data`, its documentation says `Content`).
 */
export function readAttachmentList(
  list: unknown,
  keys: { name: string; type: string; content: string[] },
): { attachments: RawAttachment[]; unreadable: string[] } {
  const attachments: RawAttachment[] = [];
  const unreadable: string[] = [];
  if (list === undefined || list === null) return { attachments, unreadable };
  if (!Array.isArray(list)) return { attachments, unreadable: ["The attachments could not be read (not a list)."] };
  for (const [index, item] of list.slice(0, 1000).entries()) {
    const file = (typeof item === "object" && item !== null ? item : {}) as Record<string, unknown>;
    const filename = typeof file[keys.name] === "string" ? (file[keys.name] as string) : undefined;
    const contentType = typeof file[keys.type] === "string" ? (file[keys.type] as string) : undefined;
    const content = keys.content.map((key) => file[key]).find((value) => typeof value === "string");
    if (typeof content !== "string" || NOT_BASE64.test(content)) {
      unreadable.push(
        `Attachment ${index + 1}${filename ? ` (${filename.slice(0, 200)})` : ""} could not be read (no base64 content) and was not kept.`,
      );
      continue;
    }
    attachments.push({ filename, contentType, data: Buffer.from(content, "base64") });
  }
  return { attachments, unreadable };
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
  // Read file by file (readAttachmentList): one odd file does not refuse the email.
  attachments: z.unknown().optional(),
});

const listOf = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(", ") : value);

// Everything but the sender and the subject is optional, and an odd value of an optional
// field is dropped rather than refusing the customer's email.
const optionalText = (max?: number) => (max ? z.string().max(max) : z.string()).optional().catch(undefined);

const PostmarkShape = z.object({
  From: optionalText(1000),
  FromFull: z
    .object({ Email: z.string().max(1000) })
    .partial()
    .optional()
    .catch(undefined),
  Subject: z.string({ error: "Give the subject." }).max(1000),
  TextBody: optionalText(),
  HtmlBody: optionalText(),
  StrippedTextReply: optionalText(),
  MessageID: optionalText(1000),
  Headers: z.array(z.unknown()).max(10_000).optional().catch(undefined),
  To: optionalText(10_000),
  Cc: optionalText(10_000),
  OriginalRecipient: optionalText(1000),
  Attachments: z.unknown().optional(),
});

// Postmark's SpamAssassin check and its SPF check write these above every header of the
// message (the Headers list keeps the message's order).
const POSTMARK_TRACE = /^(?:return-path|received|x-spam-[a-z-]+)$/;

/**
 * Postmark's SPF verdict: the Received-SPF it writes in the block it puts above the
 * message's own headers, after its spam check (X-Spam-Checker-Version). A Received-SPF
 * anywhere else was written by the sender or a relay on the way.
 */
function postmarkSpf(headers: Array<[string, string]>): AuthEvidence["spf"] {
  let checked = false;
  for (const [name, value] of headers) {
    const key = name.trim().toLowerCase();
    if (key === "x-spam-checker-version") checked = true;
    if (key === "received-spf") {
      if (!checked) return undefined;
      return {
        result: value.trim().split(/[\s(;]/)[0],
        envelopeFrom: /envelope-from=<?([^;\s>]+)/i.exec(value)?.[1],
      };
    }
    if (!POSTMARK_TRACE.test(key)) return undefined;
  }
  return undefined;
}

function fromPostmark(body: object): Raw {
  const mail = parseOrThrow(PostmarkShape, body);
  const headerList = (mail.Headers ?? []).flatMap((entry): Array<[string, string]> => {
    const { Name, Value } = (typeof entry === "object" && entry !== null ? entry : {}) as Record<string, unknown>;
    return typeof Name === "string" && (typeof Value === "string" || typeof Value === "number")
      ? [[Name, String(Value)]]
      : [];
  });
  const headers = headerMap(headerList);
  const { attachments, unreadable } = readAttachmentList(mail.Attachments, {
    name: "Name",
    type: "ContentType",
    content: ["Content", "Data"],
  });
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
    auth: { authenticationResults: topAuthenticationResults(headerList), spf: postmarkSpf(headerList) },
    attachments,
    unreadable,
  };
}

// Mail from anyone may carry control characters; refusing it would lose the customer's
// message, so they are stripped here instead (docs/input-policy.md).
export function fromJson(received: unknown): Raw {
  const body = stripForbiddenDeep(received);
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw invalidFields([{ path: "(body)", message: "Expected an object." }], "The body must be a JSON object.");
  }
  const looksPostmark = ["From", "FromFull", "TextBody", "HtmlBody", "MessageID"].some((key) => key in body);
  if (looksPostmark) return fromPostmark(body);
  const mail = parseOrThrow(JsonShape, body);
  const headers = Array.isArray(mail.headers)
    ? headerMap(mail.headers.map((h) => [h.name, h.value]))
    : headerMap(Object.entries(mail.headers ?? {}));
  const { attachments, unreadable } = readAttachmentList(mail.attachments, {
    name: "filename",
    type: "contentType",
    content: ["content"],
  });
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
    // Whoever posts this shape also wrote its headers: nothing in it vouches for the sender.
    auth: {},
    attachments,
    unreadable,
  };
}
