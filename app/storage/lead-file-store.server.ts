// The bytes of files uploaded with leads (decision 064), in 256 KiB chunks through the driver,
// as inbound attachments' are (./attachment-chunk-store.server.ts): each chunk a short write,
// so a 25 MB upload never holds the event loop, and Prisma never encodes Bytes as text. The
// files' rows are written unlinked (leadId null) before their lead; the lead's own write links
// them (./leads/lead-store.*.server.ts).
import { idleSqlite, postgresPool, prepared, withSqliteWrite } from "~/storage/db.server";

export interface LeadFileChunkStore {
  write(fileId: string, seq: number, data: Buffer): Promise<void>;
  /** The chunk's bytes, or null past the last chunk. */
  read(fileId: string, seq: number): Promise<Uint8Array | null>;
}

const INSERT = 'INSERT INTO "LeadFileChunk" ("fileId", "seq", "data") VALUES';
const SELECT = 'SELECT "data" FROM "LeadFileChunk" WHERE "fileId" =';

export const sqliteLeadFileChunkStore: LeadFileChunkStore = {
  async write(fileId, seq, data) {
    await withSqliteWrite((connection) => prepared(connection, `${INSERT} (?, ?, ?)`).run(fileId, seq, data));
  },
  async read(fileId, seq) {
    const row = prepared(await idleSqlite(), `${SELECT} ? AND "seq" = ?`).get(fileId, seq) as
      { data: Buffer } | undefined;
    return row?.data ?? null;
  },
};

export const postgresLeadFileChunkStore: LeadFileChunkStore = {
  async write(fileId, seq, data) {
    await postgresPool().query(`${INSERT} ($1, $2, $3)`, [fileId, seq, data]);
  },
  async read(fileId, seq) {
    const { rows } = await postgresPool().query<{ data: Buffer }>(`${SELECT} $1 AND "seq" = $2`, [fileId, seq]);
    return rows[0]?.data ?? null;
  },
};

/** Links a lead's staged files (SQL for both databases; `?`/`$n` placeholders given). */
export function linkFilesSql(placeholders: { lead: string; ids: string }): string {
  return `UPDATE "LeadFile" SET "leadId" = ${placeholders.lead} WHERE "leadId" IS NULL AND "id" IN (${placeholders.ids})`;
}

/** A lead's files were not all there to link (the clean-up took one): the lead is not stored. */
export function filesGone(): Error {
  return new Error("A file uploaded with the lead was no longer there to link.");
}
