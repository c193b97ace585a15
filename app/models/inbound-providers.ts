// The providers' inbound posts, each read into one raw shape (Raw) for inbound-payload.ts
// to normalize: the spec's JSON, Postmark's JSON, and the multipart posts of SendGrid
// Inbound Parse and Mailgun routes, attachments included. Pure, as inbound-payload.ts.
import { z } from "zod";
import { invalidFields, parseOrThrow } from "~/utils/domain-error";
import { stripForbiddenDeep, stripForbiddenText } from "~/utils/text-policy";
import type { AuthEvidence, HeaderMap, InboundProvider } from "./inbound-payload";

function headerMap(entries: Iterable<[string, unknown]>): HeaderMap {
  const map: HeaderMap = new Map();
  for (const [name, value] of entries) {
    if (typeof name === "string" && value !== undefined && value !== null) {
      const key = name.trim().toLowerCase();
      if (!map.has(key)) map.set(key, String(value).trim());
    }
  }
  return map;
}

/** A raw header block ("Name: value" lines, continuation lines folded in). */
export function parseRawHeaders(raw: string): HeaderMap {
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

export type Raw = {
  provider: InboundProvider;
  from: string | undefined;
  subject: string;
  text?: string;
  html?: string;
  /** A reply already stripped by the provider, when it offers one. */
  stripped?: string;
  headers: HeaderMap;
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
export function fromJson(received: unknown): Raw {
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

export async function fromForm(form: FormData): Promise<Raw> {
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
    let headers: HeaderMap = new Map();
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
