// A lead's uploaded files for staff (decision 064): found by lead and id, and streamed chunk
// by chunk as the client reads (a 25 MB file is never held whole). Always a download: the
// bytes are a stranger's, so only a type on a short safe list is named, anything else is
// application/octet-stream, and the browser is told not to sniff or run them.
import contentDisposition from "content-disposition";
import { db } from "~/storage/db.server";
import { leadFileChunkStore } from "~/storage/index.server";

/** Types named as they are in a download; every other is sent as application/octet-stream. */
const SAFE_TYPES = new Set([
  "application/pdf",
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "text/plain",
  "text/csv",
]);

export type LeadFileRow = { id: string; filename: string; contentType: string; size: number };

/** The file of this lead with this id, or null. */
export async function findLeadFile(leadId: string, fileId: string): Promise<LeadFileRow | null> {
  return db.leadFile.findFirst({
    where: { id: fileId, leadId },
    select: { id: true, filename: true, contentType: true, size: true },
  });
}

/** The file's bytes, chunk by chunk, each read only when the client wants more. */
function fileStream(fileId: string): ReadableStream<Uint8Array> {
  let seq = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const chunk = await leadFileChunkStore.read(fileId, seq++);
      if (chunk) controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      else controller.close();
    },
  });
}

/** The download of a lead's file. */
export function leadFileResponse(file: LeadFileRow): Response {
  const text = file.contentType.startsWith("text/") ? "; charset=utf-8" : "";
  return new Response(fileStream(file.id), {
    headers: {
      "Content-Type": SAFE_TYPES.has(file.contentType) ? `${file.contentType}${text}` : "application/octet-stream",
      "Content-Length": String(file.size),
      "Content-Disposition": contentDisposition(file.filename, { type: "attachment" }),
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "sandbox; default-src 'none'",
      "Cache-Control": "private, no-store",
    },
  });
}
