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

/** A file field's own limit (its `maxSizeMb`), and the refusal of a file past it. */
export type FieldLimit = { maxBytes: number; refusal: (filename: string) => DomainError };

/**
 * The limits of the form the post names, so a file is cut off at its own field's limit as
 * it streams in rather than once read whole. `formId` must come before any file (the hosted
 * page and the embed send it first; 422 otherwise), and only a file of one of the form's file
 * fields is written: a part under another name, or any file of a post to no open form, is
 * read and dropped, so a stranger's post writes nothing before the form is known to take it.
 */
export type FormLimits = {
  /** Each file field's limit by key, asked for when the `formId` field arrives; null for no open form. */
  lookup: (formId: string) => Promise<ReadonlyMap<string, FieldLimit> | null>;
  /**
   * Whether the text after a file over its field's limit is still wanted (a browser's page post,
   * whose form comes back filled in): the files' bytes are then dropped as they arrive, within
   * the hard limits, and the refusal comes with the text. Otherwise the read stops at once.
   */
  readOn: boolean;
};

export type MultipartSubmission = {
  fields: Array<[string, string]>;
  files: StagedFile[];
  /** A file over its field's limit when `readOn`: nothing kept, the text read to the end. */
  refusal?: DomainError;
};

/** A file over its own field's limit (not a hard limit): see FormLimits.readOn. */
class OverFieldLimit extends Error {
  constructor(readonly refusal: DomainError) {
    super(refusal.message);
  }
}

const tooLarge = (message: string) => new DomainError("payload_too_large", message);
const formIdFirst = () =>
  new DomainError("validation_failed", "Send the formId field before any file.", [
    { path: "formId", message: "Put the formId field before the file inputs in the form." },
  ]);
const overFile = (limits: UploadLimits) => tooLarge(`A file may weigh at most ${limits.fileBytes / 1024 / 1024} MB.`);
const overTotal = (limits: UploadLimits) =>
  tooLarge(`The files of one submission may weigh at most ${limits.totalBytes / 1024 / 1024} MB together.`);

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

type FilePart = { stream: Readable; field: string; filename: string; position: number; own: FieldLimit | undefined };

/** One file part: its bytes chunked into the database, its type told by its first bytes. */
async function stageFile(
  part: FilePart,
  budget: { total: number },
  limits: UploadLimits,
  staged: StagedFile[],
): Promise<void> {
  const { stream, field, filename, position, own } = part;
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
  // Not destroyed when the loop throws: a destroyed part would stall the parser, and after a
  // field's refusal the rest of the part is still read (and dropped) for the text after it.
  for await (const data of stream.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    size += data.byteLength;
    budget.total += data.byteLength;
    // The field's own limit first (its message names the field), at the byte that passes it.
    if (own && size > own.maxBytes) throw new OverFieldLimit(own.refusal(cleanName(filename)));
    if (size > limits.fileBytes) throw overFile(limits);
    if (budget.total > limits.totalBytes) throw overTotal(limits);
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

/** The form's file limits, asked for once: a failed lookup fails the file parts that wait for it, not the process. */
function askForm(forms: FormLimits, formId: string): Promise<ReadonlyMap<string, FieldLimit> | null> {
  const asked = forms.lookup(formId);
  asked.catch(() => {});
  return asked;
}

/**
 * Reads a multipart submission: its text fields (in order) and its files, written unlinked.
 * 413 `payload_too_large` past a size limit (a file's own field's too, once `forms` knows
 * it), 422 past the number of files, 400 for a body that is not multipart; on any of these
 * (or the client going away) the files written so far are deleted before the promise rejects.
 */
export async function readMultipartSubmission(
  request: Request,
  limits: UploadLimits,
  forms?: FormLimits,
): Promise<MultipartSubmission> {
  const read: MultipartSubmission = { fields: [], files: [] };
  const staged = read.files;
  const work: Array<Promise<void>> = [];
  const budget = { total: 0 };
  let textBytes = 0;
  let failure: unknown = null;
  let formLimits: Promise<ReadonlyMap<string, FieldLimit> | null> | undefined;
  const parser = newParser(request, limits);
  const source = request.body ? Readable.fromWeb(request.body as never) : Readable.from([]);
  const finished = new Promise<void>((resolve, reject) => {
    const fail = (error: unknown) => {
      if (failure) return;
      // Past a hard limit after a field's refusal: the text read so far comes back with the refusal.
      failure = read.refusal ?? error;
      // Read no further: the parser ends the file part being read (its stream errors), and
      // the client's connection is let go.
      source.unpipe(parser);
      source.destroy();
      parser.destroy(new Error("upload refused"));
      if (read.refusal) resolve();
      else reject(failure);
    };
    /** Reads a file part to its end and keeps nothing, within the limits of a file and of the total. */
    const drop = (stream: Readable) =>
      stream
        .on("data", (data: Buffer) => {
          budget.total += data.byteLength;
          if (budget.total > limits.totalBytes) fail(overTotal(limits));
        })
        // busboy skips the rest of a part past fileSize without a word: a dropped part is refused there too.
        .on("limit", () => fail(overFile(limits)));
    parser.on("field", (name, value, info) => {
      textBytes += name.length + value.length;
      if (info.valueTruncated || textBytes > limits.textBytes) {
        fail(tooLarge(`The text of a submission may weigh at most ${limits.textBytes / 1024} KB.`));
        return;
      }
      read.fields.push([name, value]);
      // The form is known: each of its file fields' limits, before (in the browser's order) its files.
      if (name === "formId" && forms && !formLimits) formLimits = askForm(forms, value);
    });
    parser.on("file", (name, stream, info) => {
      // A part cut short errors when the parser is destroyed: the refusal is already in hand.
      stream.on("error", () => {});
      if (read.refusal) return void drop(stream);
      if (forms && !formLimits) {
        // An empty file input a browser sends (no name, no bytes) says nothing: only a file refuses.
        if (!info.filename) return void drop(stream);
        stream.resume();
        return fail(formIdFirst());
      }
      const limitsNow = formLimits;
      const position = work.length;
      const task = (async () => {
        const own = (await limitsNow)?.get(name);
        // Not a file field of an open form: nothing of it is written.
        if (forms && !own) return void drop(stream);
        await stageFile({ stream, field: name, filename: info.filename ?? "", position, own }, budget, limits, staged);
      })().catch((error: unknown) => {
        if (error instanceof OverFieldLimit && forms?.readOn) {
          read.refusal ??= error.refusal;
          drop(stream); // the rest of this part is read and dropped, so the parser goes on
        } else {
          stream.resume();
          fail(error instanceof OverFieldLimit ? error.refusal : error);
        }
      });
      work.push(task);
    });
    parser.on("filesLimit", () =>
      fail(new DomainError("validation_failed", `A submission carries at most ${limits.files} files.`)),
    );
    parser.on("fieldsLimit", () => fail(tooLarge("The submission has too many fields.")));
    parser.on("partsLimit", () => fail(tooLarge("The submission has too many parts.")));
    parser.on("error", () => fail(new DomainError("malformed_body", "The multipart body is malformed.")));
    source.on("error", () => fail(new DomainError("malformed_body", "The upload was cut off before its end.")));
    parser.on(
      "close",
      () => void Promise.all(work).then(() => (failure && !read.refusal ? reject(failure) : resolve())),
    );
  });
  source.pipe(parser);
  return settle(finished, work, read);
}

/** The read's outcome, once every file's writes are done: on a failure or a field's refusal, no file is kept. */
async function settle(
  finished: Promise<void>,
  work: Array<Promise<void>>,
  read: MultipartSubmission,
): Promise<MultipartSubmission> {
  const ids = () => read.files.map((file) => file.id);
  try {
    await finished;
  } catch (error) {
    await Promise.allSettled(work);
    await discardFiles(ids()).catch(() => {});
    throw error;
  }
  if (!read.refusal) return read;
  // Refused by a field's limit: the text comes back with the refusal, and no file is kept.
  await Promise.allSettled(work);
  await discardFiles(ids());
  return { fields: read.fields, files: [], refusal: read.refusal };
}

function newParser(request: Request, limits: UploadLimits): busboy.Busboy {
  try {
    return busboy({
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
