// Lead exports as Excel files. The columns, the pages and the cells are
// lead-export.server.ts's, as for CSV; exceljs's streaming writer runs in a worker thread
// (lead-export-xlsx.worker.ts, decision 074) while this thread reads the next page. Memory
// stays flat: at most two pages are on their way to the writer, the writer takes the next
// only while little sheet XML waits for compression, and the next page is read only when
// the download has taken what the writer sent.
import os from "node:os";
import path from "node:path";
import { MessageChannel, type MessagePort } from "node:worker_threads";
import { Piscina } from "piscina";
import type { LeadFilters } from "~/leads/lead-filters.server";
import { builtFile } from "~/utils/http/build-files.server";
import { log } from "~/utils/log.server";
import {
  EXPORT_PAGE_SIZE,
  excelCells,
  exportColumns,
  pageReader,
  rowCells,
  type ColumnKind,
  type ExportOptions,
} from "./lead-export.server";
import type { FromWriter, ToWriter, WriterTask } from "./lead-export-xlsx.worker";

/**
 * An Excel sheet holds 1,048,576 rows: past that, Excel refuses the file. A longer export
 * goes on in another sheet ("Leads 2", ...), each with the header and the same widths.
 */
export const ROWS_PER_SHEET = 1_048_576 - 1;

const WORKER = path.join("node", "workers", "lead-export-xlsx.worker.js");
/**
 * Exports written at once; a further one waits for a thread. A core is left to the event
 * loop, as for inbound email (decision 017), but two at least: a long export should not hold
 * up the next one. The event loop still reads the pages and makes the cells, about a third of
 * the work.
 */
export const EXPORT_WRITER_THREADS = Math.max(2, os.availableParallelism() - 1);
/** Pages sent to the writer and not yet written: one being written, one waiting. */
const PAGES_IN_FLIGHT = 2;
/** The writer's bytes allowed to wait for the download before the next page is read. */
const PENDING_BYTES = 1024 * 1024;

let pool: Piscina | undefined;

function getPool(): Piscina {
  pool ??= new Piscina({
    filename: builtFile(WORKER),
    minThreads: 0,
    maxThreads: EXPORT_WRITER_THREADS,
    idleTimeout: 30_000,
    // The writer holds no rows: its live heap is exceljs's code and a page (about 11 MB). The
    // old generation's limit keeps V8 from growing it far past that; the young generation is
    // the server's own (decision 073: 16 MiB semi-spaces), where a third of it cost the
    // export a fifth more CPU in collections.
    resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 48 },
  });
  return pool;
}

/** Stops the writer threads (at shutdown, after the requests in flight). */
export async function stopExportWorkers(): Promise<void> {
  await pool?.destroy();
  pool = undefined;
}

/** One export's writer thread, as this thread sees it: the bytes it sent and the pages it has yet to write. */
class WriterLink {
  readonly #port: MessagePort;
  readonly #chunks: Uint8Array[] = [];
  #pending = 0;
  #inFlight = 0;
  #wake: (() => void) | null = null;
  /** Aborts the task while it waits for a thread (piscina takes it out of its queue). */
  readonly #queued = new AbortController();
  #started = false;
  written = false;
  failed: unknown = null;

  constructor(headers: string[], kinds: ColumnKind[], rowsPerSheet: number) {
    const { port1, port2 } = new MessageChannel();
    this.#port = port1;
    port1.on("message", (message: FromWriter) => {
      if ("chunk" in message) {
        this.#chunks.push(message.chunk);
        this.#pending += message.chunk.byteLength;
      } else if ("ready" in message) this.#inFlight--;
      else if ("started" in message) this.#started = true;
      else this.written = true;
      this.#notify();
    });
    const task: WriterTask = { port: port2, headers, kinds, rowsPerSheet };
    getPool()
      .run(task, { transferList: [port2], signal: this.#queued.signal })
      .catch((error: unknown) => {
        if (this.#queued.signal.aborted) return;
        log.error("an Excel export's writer failed", error);
        this.failed = error;
        this.#notify();
      });
  }

  #notify() {
    const resume = this.#wake;
    this.#wake = null;
    resume?.();
  }

  /** Whether the next page may be read: the writer has room and its bytes are not piling up here. */
  wantsRows(): boolean {
    return !this.failed && this.#inFlight < PAGES_IN_FLIGHT && this.#pending < PENDING_BYTES;
  }

  send(message: ToWriter) {
    if ("rows" in message) this.#inFlight++;
    this.#port.postMessage(message);
  }

  nextChunk(): Uint8Array | undefined {
    const chunk = this.#chunks.shift();
    if (chunk) this.#pending -= chunk.byteLength;
    return chunk;
  }

  /** Resolves on the writer's next message (or its failure). */
  changed(): Promise<void> {
    return new Promise<void>((resolve) => (this.#wake = resolve));
  }

  /** Stops the writer: one still waiting for a thread never takes one; a running one stops at its next message. */
  close() {
    if (!this.#started && !this.written) this.#queued.abort();
    else if (!this.written) this.send({ cancel: true });
    this.#port.close();
  }
}

export async function streamLeadsXlsx(
  filters: LeadFilters,
  options: ExportOptions = {},
): Promise<ReadableStream<Uint8Array>> {
  const columns = await exportColumns(filters);
  const reader = pageReader(filters, options.pageSize ?? EXPORT_PAGE_SIZE, options.signal, options.onEnd, columns);
  const writer = new WriterLink(
    columns.headers.map(excelCells.text),
    columns.kinds,
    options.rowsPerSheet ?? ROWS_PER_SHEET,
  );
  let sentEnd = false;
  const stop = () => {
    reader.close();
    writer.close();
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        for (;;) {
          // The next page goes to the writer before its bytes are handed on, so that it is
          // read while the writer is busy with the one before.
          if (!sentEnd && writer.wantsRows()) {
            const rows = await reader.next();
            if (rows) {
              writer.send({ rows: rows.map((row) => rowCells(row, columns, excelCells)) });
              continue;
            }
            sentEnd = true;
            if (options.signal?.aborted) {
              stop();
              return controller.error(options.signal.reason);
            }
            writer.send({ end: true });
          }
          const chunk = writer.nextChunk();
          if (chunk) return controller.enqueue(chunk);
          if (writer.failed) {
            stop();
            return controller.error(writer.failed);
          }
          if (writer.written) {
            writer.close();
            return controller.close();
          }
          await writer.changed();
        }
      },
      cancel: stop,
    },
    { highWaterMark: 1 },
  );
}
