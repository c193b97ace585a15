// Inbound email as the webhook receives it: the shared-secret check, and one normal
// form for the spec's JSON shape and the native posts of SendGrid Inbound Parse,
// Postmark and Mailgun routes. What the thread shows is the new text only (quoted
// history and the "reply above this line" marker cut off); the whole text is kept.
import { createHash } from "node:crypto";
import addressparser from "nodemailer/lib/addressparser";
import { z } from "zod";
import { fail, mediaType, parseJsonText, parseOrFail, readBodyBytes } from "~/utils/api.server";
import { checkSecretGuess } from "~/utils/auth.server";
import { env } from "~/utils/env.server";
import { stripForbiddenDeep, stripForbiddenText } from "~/utils/text-policy";
import { cleanEmailBody } from "./email-body.server";
import { addressesIn, messageIdsIn, type AuthEvidence } from "./sender-trust.server";

/** Larger posts are refused with 413 (providers include attachments in their posts). */
export const INBOUND_BODY_LIMIT = 1024 * 1024;

export type InboundProvider = "json" | "sendgrid" | "postmark" | "mailgun";

export type InboundEmail = {
  provider: InboundProvider;
  /** The sender's address, lower-cased. */
  from: string;
  subject: string;
  /** The whole body as plain text (the html converted when there is no text part). */
  text: string;
  /** What the thread shows: the reply without quoted history. */
  visibleText: string;
  messageId: string | null;
  isAutoReply: boolean;
  /** Every address it was delivered to: To, Cc and the envelope recipients, lower-cased. */
  recipients: string[];
  /** The Message-IDs it answers (In-Reply-To and References), bare and lower-cased. */
  answers: string[];
  /** What the provider said about the sender (SPF, DKIM, DMARC). */
  auth: AuthEvidence;
};

/** The password of an HTTP Basic header (the user name is ignored), or undefined. */
function basicPassword(authorization: string): string | undefined {
  const encoded = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(authorization)?.[1];
  if (!encoded) return undefined;
  const decoded = Buffer.from(encoded, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon === -1 ? undefined : decoded.slice(colon + 1);
}

/**
 * 503 while INBOUND_SECRET is unset; 401 unless `x-inbound-secret`, a Bearer token or
 * an HTTP Basic password matches (providers that cannot add a header put the secret in
 * the URL: https://inbound:SECRET@host/...). Wrong secrets are limited per address (429).
 */
export async function requireInboundSecret(request: Request, clientIp: string): Promise<void> {
  if (!env.INBOUND_SECRET) {
    fail(503, "not_configured", "The inbound email webhook is not configured (INBOUND_SECRET is unset).");
  }
  const authorization = request.headers.get("Authorization") ?? "";
  const bearer = /^Bearer\s+(.+)$/i.exec(authorization)?.[1]?.trim();
  const given = request.headers.get("x-inbound-secret") ?? bearer ?? basicPassword(authorization);
  if (given === undefined || !(await checkSecretGuess(clientIp, given, env.INBOUND_SECRET))) {
    fail(401, "unauthorized", "Send the inbound secret in x-inbound-secret, Authorization: Bearer, or as the HTTP Basic password.", {
      headers: { "WWW-Authenticate": 'Basic realm="inbound"' },
    });
  }
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
  text: text(INBOUND_BODY_LIMIT),
  html: text(INBOUND_BODY_LIMIT),
  messageId: text(1000),
  headers: z
    .union([z.record(z.string(), z.string()), z.array(z.object({ name: z.string(), value: z.string() }))])
    .optional(),
  to: z.union([z.string().max(10_000), z.array(z.string().max(1000)).max(100)]).optional(),
  cc: z.union([z.string().max(10_000), z.array(z.string().max(1000)).max(100)]).optional(),
  inReplyTo: text(2000),
  references: z.union([z.string().max(20_000), z.array(z.string().max(1000)).max(100)]).optional(),
});

const listOf = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(", ") : value);

const PostmarkShape = z.object({
  From: z.string().max(1000).optional(),
  FromFull: z.object({ Email: z.string().max(1000) }).partial().optional(),
  Subject: z.string({ error: "Give the subject." }).max(1000),
  TextBody: text(INBOUND_BODY_LIMIT),
  HtmlBody: text(INBOUND_BODY_LIMIT),
  StrippedTextReply: text(INBOUND_BODY_LIMIT),
  MessageID: text(1000),
  Headers: z.array(z.object({ Name: z.string(), Value: z.string() })).optional(),
  To: z.string().max(10_000).optional(),
  Cc: z.string().max(10_000).optional(),
  OriginalRecipient: z.string().max(1000).optional(),
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
  dkim?: AuthEvidence["dkim"];
};

// Mail from anyone may carry control characters; refusing it would lose the customer's
// message, so they are stripped here instead (docs/input-policy.md).
function fromJson(received: unknown): Raw {
  const body = stripForbiddenDeep(received);
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    fail(422, "validation_failed", "The body must be a JSON object.", {
      details: [{ path: "(body)", message: "Expected an object." }],
    });
  }
  const looksPostmark = ["From", "FromFull", "TextBody", "HtmlBody", "MessageID"].some((key) => key in body);
  if (looksPostmark) {
    const mail = parseOrFail(PostmarkShape, body);
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
    };
  }
  const mail = parseOrFail(JsonShape, body);
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
  const dkim = [...(mail.dkim ?? "").matchAll(/@([^\s:,}]+)\s*:\s*(\w+)/g)].map((match) => ({ domain: match[1], result: match[2] }));
  return {
    recipients: [mail.to, mail.cc, ...envelopeTo],
    spf: mail.SPF ? { result: mail.SPF, envelopeFrom: typeof envelope.from === "string" ? envelope.from : undefined } : undefined,
    dkim,
  };
}

function fromForm(form: FormData): Raw {
  const fields = Object.fromEntries(
    [...form.entries()]
      .filter((entry): entry is [string, string] => typeof entry[1] === "string")
      .map(([name, value]) => [stripForbiddenText(name), stripForbiddenText(value)]),
  );
  const looksMailgun = ["body-plain", "body-html", "message-headers", "sender", "stripped-text"].some(
    (key) => key in fields,
  );
  if (looksMailgun) {
    const mail = parseOrFail(MailgunShape, fields);
    let headers: Headers = new Map();
    try {
      const parsed: unknown = JSON.parse(mail["message-headers"] ?? "[]");
      if (Array.isArray(parsed)) {
        headers = headerMap(
          parsed.filter((h): h is [string, unknown] => Array.isArray(h) && h.length === 2),
        );
      }
    } catch {
      fail(422, "validation_failed", "message-headers is not valid JSON.", {
        details: [{ path: "message-headers", message: "Expected a JSON array of [name, value] pairs." }],
      });
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
      spf: headers.has("x-mailgun-spf") ? { result: headers.get("x-mailgun-spf")!, envelopeFrom: mail.sender } : undefined,
      dkim: headers.has("x-mailgun-dkim-check-result")
        ? [{ result: headers.get("x-mailgun-dkim-check-result")!, domain: /\bd=([^;\s]+)/.exec(headers.get("dkim-signature") ?? "")?.[1] }]
        : undefined,
    };
  }
  const mail = parseOrFail(SendGridShape, fields);
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
    fail(422, "validation_failed", "The sender has no email address.", {
      details: [{ path: "from", message: "Expected an address such as \"Name <name@example.com>\"." }],
    });
  }
  return address.toLowerCase();
}

async function normalize(raw: Raw): Promise<InboundEmail> {
  const from = senderAddress(raw.from);
  if (!raw.text?.trim() && !raw.html?.trim()) {
    fail(422, "validation_failed", "The email has no body.", {
      details: [{ path: "text", message: "Give the body in text or html." }],
    });
  }
  // In a worker thread, within a time budget: see email-body.server.ts.
  const body = await cleanEmailBody({ text: raw.text, html: raw.html, stripped: raw.stripped });
  const messageId = raw.messageId?.trim() || null;
  return {
    provider: raw.provider,
    from,
    subject: raw.subject.replace(/[\r\n]+/g, " ").trim(),
    text: body.text || "(no text)",
    visibleText: body.visibleText || "(no text)",
    messageId: messageId && messageId.length <= 1000 ? messageId : null,
    isAutoReply: isAutoReply(raw.headers),
    recipients: addressesIn([raw.headers.get("to"), raw.headers.get("cc"), raw.headers.get("delivered-to"), ...(raw.recipients ?? [])]),
    answers: messageIdsIn([raw.inReplyTo, raw.references, raw.headers.get("in-reply-to"), raw.headers.get("references")]),
    auth: {
      authenticationResults: raw.headers.has("authentication-results") ? [raw.headers.get("authentication-results")!] : [],
      spf:
        raw.spf ??
        (raw.headers.has("received-spf")
          ? { result: raw.headers.get("received-spf")!.split(/\s/)[0], envelopeFrom: /envelope-from=([^;\s]+)/i.exec(raw.headers.get("received-spf")!)?.[1] }
          : undefined),
      dkim: raw.dkim,
    },
  };
}

/**
 * Reads and normalizes an inbound email post: JSON (the spec's shape or Postmark's),
 * multipart or urlencoded form (SendGrid's or Mailgun's). 413 over the limit, 415 for
 * another content type, 422 when the sender, subject or body is missing.
 */
export async function readInboundEmail(request: Request): Promise<InboundEmail> {
  const type = mediaType(request);
  const bytes = await readBodyBytes(request, INBOUND_BODY_LIMIT);
  if (type === "application/json" || type.endsWith("+json")) {
    return await normalize(fromJson(parseJsonText(Buffer.from(bytes).toString("utf8"))));
  }
  if (type === "multipart/form-data" || type === "application/x-www-form-urlencoded") {
    let form: FormData;
    try {
      form = await new Response(new Uint8Array(bytes), {
        headers: { "Content-Type": request.headers.get("Content-Type")! },
      }).formData();
    } catch {
      fail(400, "bad_request", "The form body could not be parsed.");
    }
    return await normalize(fromForm(form));
  }
  fail(415, "unsupported_media_type", "Send JSON, multipart/form-data or application/x-www-form-urlencoded.");
}

/**
 * What makes a redelivery recognisable: the Message-ID, or else the sender, subject
 * and body on the same UTC day.
 */
export function dedupeKeyOf(email: InboundEmail, receivedAt = new Date()): string {
  if (email.messageId) return `mid:${email.messageId.replace(/^<|>$/g, "").toLowerCase()}`;
  const day = receivedAt.toISOString().slice(0, 10);
  const digest = createHash("sha256")
    .update([email.from, email.subject, email.text, day].join("\n"))
    .digest("hex");
  return `sha256:${digest}`;
}
