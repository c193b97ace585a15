// What an uploaded file is, told by its bytes (decision 064): file-type reads the magic
// numbers of a file's first bytes, so a program renamed photo.png is seen for what it is.
// A name's extension must agree with what the bytes are; plain text, which has no magic
// number, is taken by its extension only when its first bytes hold no NUL (no binary).
import { fileTypeFromBuffer } from "file-type";

/** How many first bytes of a file the check reads (what file-type needs for nearly every type). */
export const SNIFF_BYTES = 4100;

/** Types told by name alone: text has no magic number. */
const TEXT_TYPES: Record<string, string> = {
  txt: "text/plain",
  csv: "text/csv",
  md: "text/markdown",
  json: "application/json",
  vcf: "text/vcard",
  ics: "text/calendar",
};

/** Extensions one detected type answers to (file-type names one of each). */
const SAME_KIND: Record<string, readonly string[]> = {
  jpg: ["jpg", "jpeg", "jpe"],
  tif: ["tif", "tiff"],
  // Office documents are zip (or the older compound file) containers: the first bytes of a
  // large one may only show the container.
  zip: ["zip", "docx", "xlsx", "pptx", "odt", "ods", "odp", "epub"],
  docx: ["docx"],
  xlsx: ["xlsx"],
  pptx: ["pptx"],
  cfb: ["doc", "xls", "ppt", "msg"],
  heic: ["heic", "heif"],
  mp4: ["mp4", "m4v"],
  m4a: ["m4a", "mp4"],
  mov: ["mov", "qt"],
  mp3: ["mp3"],
};

export function extensionOf(filename: string): string {
  const dot = filename.lastIndexOf(".");
  return dot > 0 ? filename.slice(dot + 1).toLowerCase() : "";
}

export type Sniffed =
  | { ok: true; contentType: string }
  /** The bytes are not what the name says (or say nothing and the name is not text). */
  | { ok: false; detected: string | null };

/** The file's type by its first bytes, checked against its name's extension. */
export async function sniffType(filename: string, head: Uint8Array): Promise<Sniffed> {
  const extension = extensionOf(filename);
  const detected = head.byteLength > 0 ? await fileTypeFromBuffer(head) : undefined;
  if (!detected) {
    const text = TEXT_TYPES[extension];
    if (text && !head.includes(0)) return { ok: true, contentType: text };
    return { ok: false, detected: null };
  }
  const names = SAME_KIND[detected.ext] ?? [detected.ext];
  if (names.includes(extension)) return { ok: true, contentType: detected.mime };
  return { ok: false, detected: detected.mime };
}
