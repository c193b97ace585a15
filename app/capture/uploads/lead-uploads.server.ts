// Reading a multipart/form-data submission as it streams in (decision 064): busboy parses
// the parts, a file's bytes go to the database in 256 KiB chunks as they arrive (unlinked
// rows no one sees until the lead's own write links them), and hard limits cut a post short
// the moment it passes one: no body is ever held whole in memory, and no limit waits for
// the end of an upload to be enforced. On any failure, what was written is deleted.
import { Readable } from "node:stream";
import busboy from "busboy";
import { every } from "~/jobs/periodic.server";
import { db } from "~/storage/db.server";
import { leadFileChunkStore } from "~/storage/index.server";
import { DomainError } from "~/utils/domain-error";
import { SNIFF_BYTES, sniffType, type Sniffed } from "./upload-types.server";

export const CHUNK_BYTES = 256 * 1024;
const HOUR_MS = 60 * 60 * 1000;

/** A file written unlinked, waiting for its lead. */
export type StagedFile = {
  id: string;
  field: string;
  filename: string;
  size: number;
  /** What its bytes are, against its name (upload-types.server.ts). */
  type: Sniffed;
};

export type UploadLimits = {
  /** The most one file may weigh (413 past it). */
  fileBytes: number;
  /** The most all files together may weigh (413 past it). */
  totalBytes: number;
  /** The most files one submission carries (422 past it). */
  files: number;
  /** The most all text fields together may weigh (413 past it). */
  textBytes: number;
};

export type MultipartSubmission = { fields: Array<[string, string]>; files: StagedFile[] };

const tooLarge = (message: string) => new DomainError("payload_too_large", message);

/** A name as a download may carry it: no path, no control characters, at most 255 characters. */
function cleanName(filename: string): string {
  const base = filename.split(/[\\/]/).pop() ?? "";
  // Control characters (C0, DEL, C1) dropped: they have no place in a file's name.
  const clean = [...base]
    .filter((c) => c >= " " && !(c >= "\x7f" && c <= "\x9f"))
    .join("")
    .trim();
  return (clean || "file").slice(0, 255);
}

/** One file part: its bytes chunked into the database, its type told by its first bytes. */
async function stageFile(
  stream: Readable,
  field: string,
  filename: string,
  position: number,
  budget: { total: number },
  limits: UploadLimits,
  staged: StagedFile[],
): Promise<void> {
  let file: StagedFile | null = null;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let seq = 0;
  let size = 0;
  const write = async (bytes: Buffer) => {
    if (!file) {
      const name = cleanName(filename);
      const type = await sniffType(name, bytes.subarray(0, SNIFF_BYTES));
      const contentType = type.ok ? type.contentType : "application/octet-stream";
      const { id } = await db.leadFile.create({
        data: { field, filename: name, contentType, size: 0, position },
        select: { id: true },
      });
      file = { id, field, filename: name, size: 0, type };
      staged.push(file);
    }
    if (bytes.byteLength === 0) return;
    await leadFileChunkStore.write(file.id, seq++, bytes);
    // A SQLite write is synchronous and its promise already settled: a turn of the event
    // loop between chunks, or a 25 MB file would be a hundred writes back to back.
    await new Promise((resolve) => setImmediate(resolve));
  };
  for await (const data of stream as AsyncIterable<Buffer>) {
    size += data.byteLength;
    budget.total += data.byteLength;
    if (size > limits.fileBytes) throw tooLarge(`A file may weigh at most ${limits.fileBytes / 1024 / 1024} MB.`);
    if (budget.total > limits.totalBytes) {
      throw tooLarge(`The files of one submission may weigh at most ${limits.totalBytes / 1024 / 1024} MB together.`);
    }
    pending.push(data);
    pendingBytes += data.byteLength;
    while (pendingBytes >= CHUNK_BYTES) {
      const all = Buffer.concat(pending);
      await write(all.subarray(0, CHUNK_BYTES));
      pending = [all.subarray(CHUNK_BYTES)];
      pendingBytes = all.byteLength - CHUNK_BYTES;
    }
  }
  // A browser sends an empty part for a file input left empty: nothing to keep.
  if (size === 0 && filename === "") return;
  await write(Buffer.concat(pending));
  const done = file as StagedFile | null;
  if (done) {
    done.size = size;
    await db.leadFile.update({ where: { id: done.id }, data: { size }, select: { id: true } });
  }
}

/**
 * Reads a multipart submission: its text fields (in order) and its files, written unlinked.
 * 413 `payload_too_large` past a size limit, 422 past the number of files, 400 for a body
 * that is not multipart; on any of these (or the client going away) the files written so far
 * are deleted before the promise rejects.
 */
export async function readMultipartSubmission(request: Request, limits: UploadLimits): Promise<MultipartSubmission> {
  const fields: Array<[string, string]> = [];
  const staged: StagedFile[] = [];
  const work: Array<Promise<void>> = [];
  const budget = { total: 0 };
  let textBytes = 0;
  let failure: unknown = null;
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { "content-type": request.headers.get("Content-Type") ?? "" },
      defParamCharset: "utf8",
      limits: {
        files: limits.files,
        fileSize: limits.fileBytes + 1,
        fields: 1000,
        fieldSize: limits.textBytes,
        parts: 1000 + limits.files,
        headerPairs: 20,
      },
    });
  } catch {
    throw new DomainError("malformed_body", "The multipart body is malformed.");
  }
  const source = request.body ? Readable.fromWeb(request.body as never) : Readable.from([]);
  const finished = new Promise<void>((resolve, reject) => {
    const fail = (error: unknown) => {
      if (failure) return;
      failure = error;
      // Read no further: the parser ends the file part being read (its stream errors), and
      // the client's connection is let go.
      source.unpipe(parser);
      source.destroy();
      parser.destroy(new Error("upload refused"));
      reject(failure);
    };
    parser.on("field", (name, value, info) => {
      textBytes += name.length + value.length;
      if (info.valueTruncated || textBytes > limits.textBytes) {
        fail(tooLarge(`The text of a submission may weigh at most ${limits.textBytes / 1024} KB.`));
      } else fields.push([name, value]);
    });
    parser.on("file", (name, stream, info) => {
      const task = stageFile(stream, name, info.filename ?? "", work.length, budget, limits, staged).catch(
        (error: unknown) => {
          stream.resume(); // the rest of this part is read and dropped, so the parser goes on
          fail(error);
        },
      );
      work.push(task);
    });
    parser.on("filesLimit", () =>
      fail(new DomainError("validation_failed", `A submission carries at most ${limits.files} files.`)),
    );
    parser.on("fieldsLimit", () => fail(tooLarge("The submission has too many fields.")));
    parser.on("partsLimit", () => fail(tooLarge("The submission has too many parts.")));
    parser.on("error", () => fail(new DomainError("malformed_body", "The multipart body is malformed.")));
    source.on("error", () => fail(new DomainError("malformed_body", "The upload was cut off before its end.")));
    parser.on("close", () => void Promise.all(work).then(() => (failure ? reject(failure) : resolve())));
  });
  source.pipe(parser);
  try {
    await finished;
    return { fields, files: staged };
  } catch (error) {
    await Promise.allSettled(work);
    await discardFiles(staged.map((file) => file.id)).catch(() => {});
    throw error;
  }
}

/** Deletes files written but not linked to a lead (a refused or replayed submission). */
export async function discardFiles(ids: readonly string[]): Promise<void> {
  if (ids.length > 0) await db.leadFile.deleteMany({ where: { id: { in: [...ids] }, leadId: null } });
}

/** Deletes files left unlinked an hour ago or more (a crash between their write and their lead's). */
export async function deleteUnlinkedFiles(now = Date.now()): Promise<number> {
  const { count } = await db.leadFile.deleteMany({
    where: { leadId: null, createdAt: { lt: new Date(now - HOUR_MS) } },
  });
  return count;
}

/** Runs deleteUnlinkedFiles hourly while the server runs. */
export function startLeadFileCleanup(): { stop: () => Promise<void> } {
  return every(HOUR_MS, "lead file clean-up", () => deleteUnlinkedFiles());
}
