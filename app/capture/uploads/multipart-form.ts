// multipart/form-data (RFC 7578) read into its parts as bytes, for the inbound webhook.
// The platform's reader (Response.formData) cannot serve it: it decodes every field as
// UTF-8, so SendGrid's `charsets` (a windows-1252 `text` field) can no longer be honoured,
// and it refuses a body whose lines end in a bare LF, as SendGrid's own sample sender
// posts them. Here each part's bytes are kept as sent, either line ending is a line break,
// and the work is linear (Buffer.indexOf). Pure: runs in the inbound worker thread.
import { DomainError } from "~/utils/domain-error";

export type FormPart = {
  name: string;
  /** Present for a file part (even when empty). */
  filename?: string;
  /** The part's own Content-Type, as sent. */
  contentType?: string;
  data: Uint8Array;
};

const MAX_PARTS = 5_000;
/** A part's header block is a line or three; longer is not a form part (and no pattern runs over it). */
const MAX_PART_HEADERS = 16 * 1024;

function malformed(): never {
  throw new DomainError("malformed_body", "The form body could not be parsed.");
}

function boundaryOf(contentType: string): string {
  const match = /;\s*boundary\s*=\s*(?:"([^"]{1,200})"|([^\s;]{1,200}))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  if (!boundary) malformed();
  return boundary;
}

/** A parameter of a header value (`name="x"`, `filename=y`), quotes and escapes removed. */
function parameter(value: string, key: string): string | undefined {
  const match = new RegExp(`(?:^|;)\\s*${key}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^;]*))`, "i").exec(value);
  if (!match) return undefined;
  return match[1] !== undefined ? match[1].replace(/\\(.)/g, "$1") : match[2].trim();
}

function readPart(bytes: Buffer): FormPart | null {
  // The header block ends at the first empty line, whichever line ending it uses.
  const head = bytes.subarray(0, MAX_PART_HEADERS + 4);
  const crlf = head.indexOf("\r\n\r\n");
  const lf = head.indexOf("\n\n");
  const useLf = lf !== -1 && (crlf === -1 || lf < crlf);
  const end = useLf ? lf : crlf;
  if (end === -1 || end > MAX_PART_HEADERS) return null;
  const headers = new Map<string, string>();
  for (const line of bytes.subarray(0, end).toString("utf8").split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const disposition = headers.get("content-disposition") ?? "";
  const name = parameter(disposition, "name");
  if (name === undefined) return null;
  const filename = parameter(disposition, "filename");
  return {
    name,
    ...(filename !== undefined ? { filename } : {}),
    ...(headers.has("content-type") ? { contentType: headers.get("content-type") } : {}),
    data: new Uint8Array(bytes.subarray(end + (useLf ? 2 : 4))),
  };
}

/**
 * The parts of a multipart/form-data body, in order. 400 `malformed_body` when there is
 * no boundary or no part at all.
 */
export function readMultipartForm(body: Uint8Array, contentType: string): FormPart[] {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const delimiter = `--${boundaryOf(contentType)}`;
  const parts: FormPart[] = [];
  let at = bytes.indexOf(delimiter);
  while (at !== -1 && parts.length < MAX_PARTS) {
    let start = at + delimiter.length;
    if (bytes[start] === 0x2d && bytes[start + 1] === 0x2d) break; // the closing delimiter
    // Transport padding, then the line break that ends the delimiter line.
    while (bytes[start] === 0x20 || bytes[start] === 0x09) start++;
    if (bytes[start] === 0x0d) start++;
    if (bytes[start] !== 0x0a) break;
    start++;
    // A delimiter counts only at the start of a line.
    let next = bytes.indexOf(`\n${delimiter}`, start);
    if (next === -1) next = bytes.length;
    const contentEnd = next > start && bytes[next - 1] === 0x0d ? next - 1 : next;
    const part = readPart(bytes.subarray(start, Math.max(start, contentEnd)));
    if (part) parts.push(part);
    at = next === bytes.length ? -1 : next + 1;
  }
  if (parts.length === 0) malformed();
  return parts;
}
