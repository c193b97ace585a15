// The bytes of inbound email attachments, in 256 KiB chunks (app/support/attachment-store.server.ts
// says why). Through the driver on both databases: Prisma encodes Bytes as text.
import { idleSqlite, postgresPool, prepared, withSqliteWrite } from "~/storage/db.server";

export interface AttachmentChunkStore {
  write(attachmentId: string, seq: number, data: Buffer): Promise<void>;
  /** The chunk's bytes, or null past the last chunk. */
  read(attachmentId: string, seq: number): Promise<Uint8Array | null>;
}

export const sqliteAttachmentChunkStore: AttachmentChunkStore = {
  async write(attachmentId, seq, data) {
    const sql = 'INSERT INTO "AttachmentChunk" ("attachmentId", "seq", "data") VALUES (?, ?, ?)';
    await withSqliteWrite((connection) => prepared(connection, sql).run(attachmentId, seq, data));
  },
  async read(attachmentId, seq) {
    const sql = 'SELECT "data" FROM "AttachmentChunk" WHERE "attachmentId" = ? AND "seq" = ?';
    const row = prepared(await idleSqlite(), sql).get(attachmentId, seq) as { data: Buffer } | undefined;
    return row?.data ?? null;
  },
};

export const postgresAttachmentChunkStore: AttachmentChunkStore = {
  async write(attachmentId, seq, data) {
    const sql = 'INSERT INTO "AttachmentChunk" ("attachmentId", "seq", "data") VALUES ($1, $2, $3)';
    await postgresPool().query(sql, [attachmentId, seq, data]);
  },
  async read(attachmentId, seq) {
    const sql = 'SELECT "data" FROM "AttachmentChunk" WHERE "attachmentId" = $1 AND "seq" = $2';
    const { rows } = await postgresPool().query<{ data: Buffer }>(sql, [attachmentId, seq]);
    return rows[0]?.data ?? null;
  },
};
