// A whole email as received (Content-Type: message/rfc822: what Amazon SES, Cloudflare
// Email Workers or a Postfix pipe deliver), read with mailparser into the raw shape of
// inbound-providers.ts. Runs in the inbound worker thread only (decision 063): MIME
// parsing, base64 decoding and every header scan of a 25 MB message happen there, never
// on the server's event loop. Pure, as inbound-payload.ts.
import { simpleParser, type AddressObject, type HeaderLines } from "mailparser";
import { DomainError } from "~/utils/domain-error";
import { stripForbiddenText } from "~/utils/text-policy";
import { headerMap, topAuthenticationResults, type Raw } from "./inbound-providers";

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
  const mail = await simpleParser(source, {
    // email-body.ts turns HTML into text itself, with its own bounds.
    skipHtmlToText: true,
    skipTextToHtml: true,
    skipImageLinks: true,
    skipTextLinks: true,
  }).catch((error: unknown) => {
    throw new DomainError("validation_failed", `The message could not be read as MIME: ${(error as Error).message}`, [
      { path: "(body)", message: "Expected a whole email (RFC 5322, MIME)." },
    ]);
  });
  const pairs = headerPairs(mail.headerLines);
  const headers = headerMap(pairs);
  const contentType = headers.get("content-type")?.split(";")[0].trim().toLowerCase();
  return {
    provider: "mime",
    // The From header's first address; senderAddress (inbound-payload.ts) refuses none.
    from: mail.from?.value.find((entry) => entry.address)?.address,
    subject: stripForbiddenText(mail.subject ?? ""),
    text: mail.text === undefined ? undefined : stripForbiddenText(mail.text),
    html: typeof mail.html === "string" ? stripForbiddenText(mail.html) : undefined,
    headers,
    messageId: mail.messageId,
    recipients: [addressText(mail.to), addressText(mail.cc)],
    inReplyTo: mail.inReplyTo,
    references: Array.isArray(mail.references) ? mail.references.join(" ") : mail.references,
    auth: { authenticationResults: topAuthenticationResults(pairs) },
    // A delivery status notification (RFC 3464) is a bounce, whatever its return path says.
    bounce: contentType === "multipart/report" ? true : undefined,
    attachments: mail.attachments.map((file) => ({
      filename: file.filename,
      contentType: file.contentType,
      // Its own buffer: a view into a larger one would cross back to the main thread whole.
      data: new Uint8Array(file.content),
    })),
  };
}
