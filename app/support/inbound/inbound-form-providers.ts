// The form posts of SendGrid Inbound Parse and Mailgun routes (multipart or urlencoded),
// read into the raw shape of inbound-providers.ts. Fields are decoded in the character set
// the provider names (SendGrid's `charsets`), Apple Mail's HTML split around attachments is
// put back together, and each provider's verdict on the sender is read only from the
// fields that provider writes (docs/decisions/038-provider-verdicts-and-fullest-text.md).
// Pure: runs in the inbound worker thread. iconv-lite: decision 038.
import iconv from "iconv-lite";
import { z } from "zod";
import { invalidFields, parseOrThrow } from "~/utils/domain-error";
import { stripForbiddenText } from "~/utils/text-policy";
import { headerMap, rawHeaderLines, topAuthenticationResults, type Raw, type RawAttachment } from "./inbound-providers";
import type { FormPart } from "../../capture/uploads/multipart-form";
import type { AuthEvidence } from "./inbound-types";

/** A form post: its text fields in order (a name may repeat) and its file parts. */
export type FormInput = {
  fields: Array<[string, string]>;
  files: Array<FormPart & { filename: string }>;
};

/**
 * Bytes in a named charset. iconv-lite, not TextDecoder: Node's TextDecoder decodes
 * windows-1252 as Latin-1 (0x80 becomes U+0080, not "€"). An unknown name is read as
 * UTF-8, which keeps what it can rather than losing the field.
 */
function decodeBytes(data: Uint8Array, charset: string | undefined): string {
  const name = charset?.trim() ?? "";
  const buffer = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return name && iconv.encodingExists(name) ? iconv.decode(buffer, name) : buffer.toString("utf8");
}

const charsetOf = (contentType: string | undefined) => /charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? "")?.[1];

function jsonObject(value: string | undefined): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(value ?? "{}");
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * The parts of a multipart post as text fields and files. A text field is decoded in the
 * charset SendGrid's `charsets` field names for it, else its part's own charset, else UTF-8.
 */
export function formFromParts(parts: FormPart[]): FormInput {
  const charsetsPart = parts.find((part) => part.name === "charsets" && part.filename === undefined);
  const charsets = jsonObject(charsetsPart ? decodeBytes(charsetsPart.data, "utf-8") : undefined);
  const fields: FormInput["fields"] = [];
  const files: FormInput["files"] = [];
  for (const part of parts) {
    if (part.filename !== undefined) {
      files.push({ ...part, filename: part.filename });
      continue;
    }
    const named = Object.hasOwn(charsets, part.name) ? charsets[part.name] : undefined;
    const charset = typeof named === "string" ? named : charsetOf(part.contentType);
    fields.push([stripForbiddenText(part.name), stripForbiddenText(decodeBytes(part.data, charset))]);
  }
  return { fields, files };
}

export function formFromUrlEncoded(params: URLSearchParams): FormInput {
  return {
    fields: [...params.entries()].map(([name, value]) => [stripForbiddenText(name), stripForbiddenText(value)]),
    files: [],
  };
}

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
  "attachment-info": z.string().optional(),
  spam_score: z.string().optional(),
});

/** SpamAssassin's default threshold ("required_score 5.0"), which SendGrid's spam_score is scored against. */
const SENDGRID_SPAM_SCORE = 5;

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

/** SendGrid's envelope (JSON `{to: [...], from}`), its `SPF` verdict and its `dkim` field (`{@example.com : pass}`). */
function sendGridEvidence(
  mail: z.output<typeof SendGridShape>,
  headerLines: Array<[string, string]>,
): Pick<Raw, "recipients" | "auth"> {
  const envelope = jsonObject(mail.envelope);
  const envelopeTo = Array.isArray(envelope.to) ? envelope.to.filter((to): to is string => typeof to === "string") : [];
  const dkim = [...(mail.dkim ?? "").matchAll(/@([^\s:,}]+)\s*:\s*(\w+)/g)].map((match) => ({
    domain: match[1],
    result: match[2],
  }));
  return {
    recipients: [mail.to, mail.cc, ...envelopeTo],
    auth: {
      authenticationResults: topAuthenticationResults(headerLines),
      spf: mail.SPF
        ? { result: mail.SPF.trim(), envelopeFrom: typeof envelope.from === "string" ? envelope.from : undefined }
        : undefined,
      dkim,
    },
  };
}

/**
 * SendGrid's files, and the HTML it took for files: Apple Mail splits its HTML around
 * attachments, SendGrid posts the first piece as `html` and the others as files that
 * `attachment-info` describes with a type but no file name. Those are body, not files.
 */
function sendGridFiles(form: FormInput, info: string | undefined): { files: RawAttachment[]; htmlPieces: string[] } {
  const described = jsonObject(info) as Record<
    string,
    { filename?: unknown; name?: unknown; type?: unknown; charset?: unknown }
  >;
  const files: RawAttachment[] = [];
  const htmlPieces: string[] = [];
  for (const file of form.files) {
    if (!/^attachment\d{1,4}$/.test(file.name)) continue;
    const about = Object.hasOwn(described, file.name) ? described[file.name] : undefined;
    const named = [about?.filename, about?.name].find((name): name is string => typeof name === "string");
    const type = typeof about?.type === "string" ? about.type : file.contentType;
    if (about && named === undefined && type?.toLowerCase().startsWith("text/html")) {
      htmlPieces.push(decodeBytes(file.data, typeof about.charset === "string" ? about.charset : charsetOf(type)));
      continue;
    }
    files.push({ filename: named ?? file.filename, contentType: type, data: file.data });
  }
  return { files, htmlPieces };
}

function fromSendGrid(form: FormInput, fields: Record<string, string>): Raw {
  const mail = parseOrThrow(SendGridShape, fields);
  const headerLines = rawHeaderLines(mail.headers ?? "");
  const { files, htmlPieces } = sendGridFiles(form, mail["attachment-info"]);
  return {
    provider: "sendgrid",
    from: mail.from,
    subject: mail.subject,
    text: mail.text,
    html: htmlPieces.length > 0 ? [mail.html ?? "", ...htmlPieces].join("\n") : mail.html,
    headers: headerMap(headerLines),
    messageId: headerMap(headerLines).get("message-id"),
    ...sendGridEvidence(mail, headerLines),
    attachments: files,
    spam: Number(mail.spam_score) >= SENDGRID_SPAM_SCORE,
    bounce: nullSender(jsonObject(mail.envelope).from),
  };
}

/**
 * Mailgun's verdicts are the `X-Mailgun-*` fields it posts at the top level of the form.
 * A name sent twice (the sender's own header beside Mailgun's) counts only if every copy passes.
 */
function mailgunEvidence(
  form: FormInput,
  sender: string | undefined,
  headerLines: Array<[string, string]>,
): AuthEvidence {
  const all = (name: string) => form.fields.filter(([field]) => field.toLowerCase() === name).map(([, v]) => v.trim());
  const verdict = (values: string[]) =>
    values.length === 0 ? undefined : values.every((v) => v.toLowerCase() === "pass") ? "pass" : values[0];
  const spf = verdict(all("x-mailgun-spf"));
  const dkim = verdict(all("x-mailgun-dkim-check-result"));
  // Which domain DKIM passed for is only known when the email carries one signature.
  const signatures = headerLines.filter(([name]) => name.trim().toLowerCase() === "dkim-signature");
  const domain = signatures.length === 1 ? /\bd=([^;\s]+)/.exec(signatures[0][1])?.[1] : undefined;
  return {
    authenticationResults: topAuthenticationResults(headerLines),
    spf: spf ? { result: spf, envelopeFrom: sender } : undefined,
    dkim: dkim ? [{ result: dkim, domain }] : undefined,
  };
}

/** An envelope sender that is there and empty (`<>`): a bounce. */
const nullSender = (value: unknown) => typeof value === "string" && value.replace(/[<>\s]/g, "") === "";

function mailgunHeaderLines(value: string | undefined): Array<[string, string]> {
  try {
    const parsed: unknown = JSON.parse(value ?? "[]");
    return Array.isArray(parsed)
      ? parsed.flatMap((h): Array<[string, string]> =>
          Array.isArray(h) && h.length === 2 && typeof h[0] === "string" && h[1] != null ? [[h[0], String(h[1])]] : [],
        )
      : [];
  } catch {
    throw invalidFields(
      [{ path: "message-headers", message: "Expected a JSON array of [name, value] pairs." }],
      "message-headers is not valid JSON.",
    );
  }
}

function fromMailgun(form: FormInput, fields: Record<string, string>): Raw {
  const mail = parseOrThrow(MailgunShape, fields);
  const headerLines = mailgunHeaderLines(mail["message-headers"]);
  const headers = headerMap(headerLines);
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
    auth: mailgunEvidence(form, mail.sender, headerLines),
    // Mailgun's spam filter posts its verdict at the top level of the form.
    spam: form.fields.some(([name, value]) => name.toLowerCase() === "x-mailgun-sflag" && /^yes$/i.test(value.trim())),
    bounce: nullSender(mail.sender),
    attachments: form.files
      .filter((file) => /^attachment-\d{1,4}$/.test(file.name))
      .map((file) => ({ filename: file.filename, contentType: file.contentType, data: file.data })),
  };
}

export function fromForm(form: FormInput): Raw {
  // The first value of each field (a header posted twice by Mailgun is read by mailgunEvidence).
  const first = new Map<string, string>();
  for (const [name, value] of form.fields) if (!first.has(name)) first.set(name, value);
  const fields = Object.fromEntries(first);
  const looksMailgun = ["body-plain", "body-html", "message-headers", "sender", "stripped-text"].some(
    (key) => key in fields,
  );
  return looksMailgun ? fromMailgun(form, fields) : fromSendGrid(form, fields);
}
