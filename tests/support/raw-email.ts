// Whole emails (message/rfc822) for the raw MIME tests: the replies real mail clients wrote
// (../shared/fixtures/talon, read in place and never edited; a variant is derived in code)
// and emails built here, with CRLF line endings as an MTA hands them on.
import fs from "node:fs";
import path from "node:path";
import { sharedFixtures } from "./provider-samples";
import { inboundSecret } from "./support-desk";

export const talonDir = path.join(sharedFixtures, "talon", "standard_replies");

/** A talon reply as its client wrote it. */
export const talonReply = (name: string): Buffer => fs.readFileSync(path.join(talonDir, name));

/**
 * The email with one header's value replaced (or the header added on top when it has none),
 * as latin1 text: every other byte stays as it was.
 */
export function withHeader(email: Buffer, name: string, value: string): Buffer {
  const text = email.toString("latin1");
  const headerEnd = text.search(/\r?\n\r?\n/);
  const head = text.slice(0, headerEnd);
  const line = new RegExp(`^${name}:[^\\r\\n]*(?:\\r?\\n[ \\t][^\\r\\n]*)*`, "im");
  const changed = line.test(head) ? head.replace(line, `${name}: ${value}`) : `${name}: ${value}\r\n${head}`;
  return Buffer.from(changed + text.slice(headerEnd), "latin1");
}

/** The email with a header added above all others, as a receiving server adds its trace. */
export function prependHeader(email: Buffer, name: string, value: string): Buffer {
  return Buffer.concat([Buffer.from(`${name}: ${value}\r\n`, "latin1"), email]);
}

export type Attachment = { filename: string; contentType: string; data: Buffer };

/** A plain email, with attachments (base64, lines of 76) when given. */
export function buildEmail({
  from,
  to = "support@localhost",
  subject,
  text,
  headers = {},
  attachments = [],
}: {
  from: string;
  to?: string;
  subject: string;
  text: string;
  headers?: Record<string, string>;
  attachments?: Attachment[];
}): Buffer {
  const head = [
    `From: ${from}`,
    `To: ${to}`,
    `Subject: ${subject}`,
    "Date: Sun, 29 Nov 2026 03:00:00 +0000",
    "MIME-Version: 1.0",
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  if (attachments.length === 0) {
    return Buffer.from(
      [...head, 'Content-Type: text/plain; charset="utf-8"', "Content-Transfer-Encoding: 8bit", "", text, ""].join(
        "\r\n",
      ),
    );
  }
  const boundary = "=_raw_email_boundary";
  const parts: Buffer[] = [
    Buffer.from(
      [
        ...head,
        `Content-Type: multipart/mixed; boundary="${boundary}"`,
        "",
        `--${boundary}`,
        'Content-Type: text/plain; charset="utf-8"',
        "",
        text,
        "",
      ].join("\r\n"),
    ),
  ];
  for (const file of attachments) {
    parts.push(
      Buffer.from(
        [
          `--${boundary}`,
          `Content-Type: ${file.contentType}; name="${file.filename}"`,
          `Content-Disposition: attachment; filename="${file.filename}"`,
          "Content-Transfer-Encoding: base64",
          "",
          "",
        ].join("\r\n"),
      ),
      Buffer.from(file.data.toString("base64").replace(/.{76}/g, "$&\r\n")),
      Buffer.from("\r\n"),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(parts);
}

/** Posts a whole email to the inbound endpoint as message/rfc822. */
export async function postRaw(
  baseUrl: string,
  email: Buffer,
  headers: Record<string, string> = inboundSecret(),
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${baseUrl}/api/support-requests/inbound`, {
    method: "POST",
    headers: { "Content-Type": "message/rfc822", ...headers },
    body: new Uint8Array(email),
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: response.status, body };
}
