// A whole email as received (Content-Type: message/rfc822: what Amazon SES, Cloudflare
// Email Workers or a Postfix pipe deliver), read with mailparser into the raw shape of
// inbound-providers.ts. Runs in the inbound worker thread only (decision 063): MIME
// parsing, base64 decoding and every header scan of a 25 MB message happen there, never
// on the server's event loop. Pure, as inbound-payload.ts.
import {
  MailParser,
  type AddressObject,
  type AttachmentStream,
  type HeaderLines,
  type Headers,
  type MessageText,
} from "mailparser";
import { DomainError } from "~/utils/domain-error";
import { stripForbiddenText } from "~/utils/text-policy";
import { headerMap, topAuthenticationResults, type Raw, type RawAttachment } from "./inbound-providers";

type MimeNode = { type: string; flowed?: boolean; delSp?: boolean };

/**
 * mailparser, with text read as written: its format=flowed decoding joins lines of two
 * quote depths (RFC 3676 section 4.5 forbids it), which would glue Thunderbird's quoted
 * "> Hi " to the reply under it, and the reply would be cut as quoted history. Soft line
 * breaks stay line breaks, as talon reads them (tests/unit/talon-replies.test.ts).
 */
class ReadAsWritten extends MailParser {
  processChunk(data: MimeNode, done: () => void): void {
    if (data.type === "node") data.flowed = data.delSp = false;
    (MailParser.prototype as unknown as { processChunk: ReadAsWritten["processChunk"] }).processChunk.call(
      this,
      data,
      done,
    );
  }
}

type Parsed = { headers: Headers; headerLines: HeaderLines; text?: string; html?: string; files: RawAttachment[] };

/** The message's headers, text, HTML and files, as simpleParser reads them but for the above. */
function parseMime(source: Buffer): Promise<Parsed> {
  return new Promise((resolve, reject) => {
    const parser = new ReadAsWritten({
      // email-body.ts turns HTML into text itself, with its own bounds; inline images stay files.
      skipHtmlToText: true,
      skipTextToHtml: true,
      skipImageLinks: true,
      skipTextLinks: true,
      keepCidLinks: true,
    });
    const parsed: Parsed = { headers: new Map(), headerLines: [], files: [] };
    parser.on("headers", (headers: Headers) => {
      parsed.headers = headers;
      parsed.headerLines = (parser as unknown as { headerLines: HeaderLines }).headerLines ?? [];
    });
    parser.on("data", (data: AttachmentStream | MessageText) => {
      if (data.type === "text") {
        parsed.text = data.text;
        parsed.html = typeof data.html === "string" ? data.html : undefined;
        return;
      }
      const chunks: Buffer[] = [];
      data.content.on("data", (chunk: Buffer) => chunks.push(chunk));
      data.content.on("end", () => {
        // Its own buffer: a view into a larger one would cross back to the main thread whole.
        parsed.files.push({ filename: data.filename, contentType: data.contentType, data: Buffer.concat(chunks) });
        data.release();
      });
    });
    parser.on("error", reject);
    parser.on("end", () => resolve(parsed));
    parser.end(source);
  });
}

/** The header lines as [name, value] pairs, in the order the message has them (topmost first). */
function headerPairs(lines: HeaderLines): Array<[string, string]> {
  return lines.map(({ key, line }): [string, string] => {
    const colon = line.indexOf(":");
    const value = colon === -1 ? "" : line.slice(colon + 1);
    return [key, stripForbiddenText(value.replace(/\r?\n[ \t]+/g, " ").trim())];
  });
}

const addressText = (value: AddressObject | AddressObject[] | undefined) =>
  (Array.isArray(value) ? value : value ? [value] : [])
    .flatMap((object) => object.value.map((entry) => entry.address ?? ""))
    .filter(Boolean)
    .join(", ");

/**
 * The message read into the raw shape. Its headers were written by the sender or by the
 * servers on its way: the only verdict taken from them is the topmost
 * Authentication-Results, believed only under INBOUND_AUTHSERV_ID (sender-trust.server.ts).
 */
export async function fromMime(bytes: Uint8Array): Promise<Raw> {
  // A view of the shared bytes, not a copy.
  const source = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const mail = await parseMime(source).catch((error: unknown) => {
    throw new DomainError("validation_failed", `The message could not be read as MIME: ${(error as Error).message}`, [
      { path: "(body)", message: "Expected a whole email (RFC 5322, MIME)." },
    ]);
  });
  const pairs = headerPairs(mail.headerLines);
  const headers = headerMap(pairs);
  const contentType = headers.get("content-type")?.split(";")[0].trim().toLowerCase();
  const header = <T>(name: string) => mail.headers.get(name) as T | undefined;
  const references = header<string | string[]>("references");
  return {
    provider: "mime",
    // The From header's first address; senderAddress (inbound-payload.ts) refuses none.
    from: header<AddressObject>("from")?.value.find((entry) => entry.address)?.address,
    subject: stripForbiddenText(header<string>("subject") ?? ""),
    text: mail.text === undefined ? undefined : stripForbiddenText(mail.text),
    html: mail.html === undefined ? undefined : stripForbiddenText(mail.html),
    headers,
    messageId: header<string>("message-id"),
    recipients: [addressText(header("to")), addressText(header("cc"))],
    inReplyTo: header<string>("in-reply-to"),
    references: Array.isArray(references) ? references.join(" ") : references,
    auth: { authenticationResults: topAuthenticationResults(pairs) },
    // A delivery status notification (RFC 3464) is a bounce, whatever its return path says.
    bounce: contentType === "multipart/report" ? true : undefined,
    attachments: mail.files,
  };
}
