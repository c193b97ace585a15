// The bytes of inbound email attachments, in the database so that every instance serves
// them. A 10 MB blob written in one statement holds the event loop for 35-45 ms on SQLite
// (synchronous) and far longer through Prisma (which encodes Bytes as text), so the bytes
// go through the driver in 256 KiB chunks, each a short write. They are written before the
// message that owns them and stay unlinked (messageId null), unseen, until the message's
// own write links them in one statement; what a crash leaves unlinked is deleted hourly.
import { every } from "~/jobs/periodic.server";
import { db } from "~/storage/db.server";
import { attachmentChunkStore } from "~/storage/index.server";
import type { InboundAttachment } from "./inbound/inbound-types";

export const CHUNK_BYTES = 256 * 1024;
const HOUR_MS = 60 * 60 * 1000;

/**
 * Writes attachments unlinked, chunk by chunk, and returns their ids for the message's
 * write to link (linkAttachments). On failure, what was written is deleted.
 */
export async function storeUnlinkedAttachments(files: InboundAttachment[], createdAt: Date): Promise<string[]> {
  const ids: string[] = [];
  try {
    for (const file of files) {
      const { id } = await db.ticketAttachment.create({
        data: { filename: file.filename, contentType: file.contentType, size: file.data.byteLength, createdAt },
        select: { id: true },
      });
      ids.push(id);
      const bytes = Buffer.from(file.data.buffer, file.data.byteOffset, file.data.byteLength);
      for (let seq = 0, offset = 0; offset < bytes.byteLength; seq++, offset += CHUNK_BYTES) {
        await attachmentChunkStore.write(id, seq, bytes.subarray(offset, offset + CHUNK_BYTES));
        // A SQLite write is synchronous and its promise already settled: without this, forty
        // chunks would run back to back in one turn of the event loop.
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    return ids;
  } catch (error) {
    await discardAttachments(ids).catch(() => {});
    throw error;
  }
}

/** Deletes attachments that were written but never linked (a duplicate email lost the race). */
export async function discardAttachments(ids: string[]): Promise<void> {
  if (ids.length > 0) await db.ticketAttachment.deleteMany({ where: { id: { in: ids }, messageId: null } });
}

/** The bytes of an attachment, chunk by chunk, each read only when the client wants more. */
export function attachmentStream(attachmentId: string): ReadableStream<Uint8Array> {
  let seq = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const chunk = await attachmentChunkStore.read(attachmentId, seq++);
      if (chunk) controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      else controller.close();
    },
  });
}

/** Deletes attachments left unlinked an hour ago or more (a crash between their write and the message's). */
export async function deleteUnlinkedAttachments(now = Date.now()): Promise<number> {
  const { count } = await db.ticketAttachment.deleteMany({
    where: { messageId: null, createdAt: { lt: new Date(now - HOUR_MS) } },
  });
  return count;
}

/** Runs deleteUnlinkedAttachments hourly while the server runs. */
export function startAttachmentCleanup(): { stop: () => Promise<void> } {
  return every(HOUR_MS, "attachment clean-up", () => deleteUnlinkedAttachments());
}
