// Runs in a worker thread (lead-export-xlsx.server.ts, decision 074): exceljs's streaming
// writer, which is most of an Excel export's CPU (about 20 KB of garbage a row). The main
// thread reads the pages and makes the cells while this thread writes the previous page, so
// the two overlap on two cores and the server's own heap never sees exceljs's allocations.
// Built to build/node/workers/ by vite.node.config.ts; imports nothing of the app's but types.
import { PassThrough } from "node:stream";
import WorkbookWriter from "exceljs/lib/stream/xlsx/workbook-writer.js";
import type { Cell, ColumnKind } from "./lead-export.server";
import type ExcelJS from "exceljs";
import type { MessagePort } from "node:worker_threads";

/** What the main thread sends on the task's port: a page of cells, then `end` (or `cancel`). */
export type ToWriter = { rows: Cell[][] } | { end: true } | { cancel: true };
/**
 * What this thread sends back: `started` when it takes the task, the file's bytes, `ready` once
 * a page is written and there is room for more, and `done` after the last byte (on this port,
 * so after every chunk: the task's own result comes on piscina's port, in no set order with
 * this one's messages).
 */
export type FromWriter = { started: true } | { chunk: Uint8Array } | { ready: true } | { done: true };

export type WriterTask = {
  port: MessagePort;
  /** The header row, already cleaned for XML. */
  headers: string[];
  kinds: ColumnKind[];
  rowsPerSheet: number;
};

const MIN_WIDTH = 8;
const MAX_WIDTH = 60;

/**
 * The number formats of date cells: without one, a date cell shows as a bare serial number.
 * One shared style object per format: exceljs's style registry remembers an object it has
 * seen, so a date cell costs a lookup, not a style serialised per cell.
 */
const DATE_STYLES: Partial<Record<ColumnKind, Partial<ExcelJS.Style>>> = {
  time: { numFmt: "yyyy-mm-dd hh:mm:ss" },
  day: { numFmt: "yyyy-mm-dd" },
};

function widthOf(cell: Cell, kind: ColumnKind): number {
  if (cell instanceof Date) return DATE_STYLES[kind]?.numFmt?.length ?? 19;
  return typeof cell === "string" ? Math.max(...cell.split("\n").map((line) => line.length)) : String(cell).length;
}

/**
 * A line break in an Excel cell is LF. A CR would be written raw into the sheet's XML,
 * where every XML reader turns it into LF anyway; convert it openly.
 */
function excelLineBreaks(cells: Cell[]): Array<Cell | undefined> {
  const out: Array<Cell | undefined> = cells;
  for (let i = 0; i < out.length; i++) {
    const cell = out[i];
    // An empty value is no cell at all: exceljs skips it instead of writing an empty string.
    if (cell === "") out[i] = undefined;
    else if (typeof cell === "string" && cell.includes("\r")) out[i] = cell.replace(/\r\n?/g, "\n");
  }
  return out;
}

/** Widths from the header and the first page: the `<cols>` element comes before any row. */
function columnWidths(headers: string[], kinds: ColumnKind[], sample: Cell[][]): number[] {
  return headers.map((header, i) => {
    let width = header.length;
    for (const row of sample) width = Math.max(width, widthOf(row[i], kinds[i]));
    return Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, width + 2));
  });
}

/**
 * With styles on, exceljs runs every cell through its style registry (serialising and
 * looking up a style per cell), which took a quarter of the export's time. A cell with
 * no style of its own is style 0 (the default, "General"), as exceljs's no-styles mode
 * answers; only the header's bold goes through the registry.
 */
function skipStylesOfPlainCells(workbook: ExcelJS.stream.xlsx.WorkbookWriter) {
  const styles = (workbook as unknown as { styles: { addStyleModel: (model: unknown, type?: unknown) => number } })
    .styles;
  const addStyleModel = styles.addStyleModel.bind(styles);
  styles.addStyleModel = (model, cellType) => {
    if (!model || (typeof model === "object" && Object.keys(model).length === 0)) return 0;
    return addStyleModel(model, cellType);
  };
}

/** Unzipped sheet XML allowed to wait for compression before the next page is asked for. */
const XLSX_PENDING_BYTES = 2 * 1024 * 1024;
const XLSX_YIELD_EVERY = 50;

/** One workbook being written into `out`, a sheet of leads with a bold header. */
class LeadSheet {
  readonly out = new PassThrough({ highWaterMark: 256 * 1024 });
  readonly #workbook: ExcelJS.stream.xlsx.WorkbookWriter;
  #sheet: ExcelJS.Worksheet | null = null;
  #sheets = 0;
  #rowsInSheet = 0;
  #widths: number[] = [];

  constructor(
    readonly headers: string[],
    readonly kinds: ColumnKind[],
    readonly rowsPerSheet: number,
  ) {
    // Shared strings would keep every distinct string of the file in memory until the end;
    // styles are on only for the bold header.
    this.#workbook = new WorkbookWriter({
      stream: this.out,
      useSharedStrings: false,
      useStyles: true,
    });
    skipStylesOfPlainCells(this.#workbook);
  }

  /** A new sheet (the previous one, if any, complete), with the widths and the header. */
  #startSheet(): ExcelJS.Worksheet {
    this.#sheet?.commit();
    this.#sheets++;
    const name = this.#sheets === 1 ? "Leads" : `Leads ${this.#sheets}`;
    const sheet = this.#workbook.addWorksheet(name, { views: [{ state: "frozen", ySplit: 1 }] });
    sheet.columns = this.#widths.map((width) => ({ width }));
    const header = sheet.addRow(this.headers);
    header.font = { bold: true };
    header.commit();
    this.#rowsInSheet = 0;
    this.#sheet = sheet;
    return sheet;
  }

  /**
   * The first page sets the column widths. Compression runs on libuv's thread pool in small
   * jobs, each started from this thread: yielding every few rows lets it work meanwhile.
   */
  async writeRows(rows: Cell[][]): Promise<void> {
    if (!this.#sheet) {
      this.#widths = columnWidths(this.headers, this.kinds, rows);
      this.#startSheet();
    }
    for (let i = 0; i < rows.length; i++) {
      const cells = rows[i];
      const sheet = this.#rowsInSheet === this.rowsPerSheet ? this.#startSheet() : this.#sheet!;
      this.#rowsInSheet++;
      const added = sheet.addRow(excelLineBreaks(cells));
      for (let c = 0; c < cells.length; c++) {
        const style = cells[c] instanceof Date && DATE_STYLES[this.kinds[c]];
        if (style) added.getCell(c + 1).style = style;
      }
      added.commit();
      if (i % XLSX_YIELD_EVERY === XLSX_YIELD_EVERY - 1) await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /**
   * exceljs hands the sheet XML to the zip without back-pressure (its buffer takes
   * everything). The zip's input is a readable-stream v2 PassThrough, which has no
   * `writableLength`.
   */
  hasRoom(): boolean {
    type Sink = PassThrough & { _writableState?: { length: number } };
    const sink = (this.#sheet as unknown as { stream?: { pipes?: Sink[] } } | null)?.stream?.pipes?.[0];
    return (sink?._writableState?.length ?? sink?.writableLength ?? 0) <= XLSX_PENDING_BYTES;
  }

  async finish(): Promise<void> {
    if (!this.#sheet) this.#startSheet();
    this.#sheet!.commit();
    await this.#workbook.commit();
  }
}

/** Resolves when `out` has sent something on, ended or failed. */
function progress(out: PassThrough): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      out.off("data", done);
      out.off("end", done);
      out.off("error", done);
      resolve();
    };
    out.on("data", done);
    out.once("end", done);
    out.once("error", done);
  });
}

/** The task: writes the pages that arrive on `port` until `end`, and sends the file's bytes back on it. */
export default async function writeLeadsXlsx({ port, headers, kinds, rowsPerSheet }: WriterTask): Promise<void> {
  port.postMessage({ started: true } satisfies FromWriter);
  const sheet = new LeadSheet(headers, kinds, rowsPerSheet);
  const ended = new Promise<void>((resolve, reject) => {
    sheet.out.once("end", resolve);
    sheet.out.once("error", reject);
  });
  // Awaited below; after a cancel nobody waits for it, and a rejection then is no failure.
  ended.catch(() => undefined);
  // Copied out of zlib's pooled buffers: a view would send its whole underlying buffer.
  sheet.out.on("data", (chunk: Buffer) => port.postMessage({ chunk: new Uint8Array(chunk) } satisfies FromWriter));
  const inbox: ToWriter[] = [];
  let wake: (() => void) | null = null;
  const receive = (message: ToWriter) => {
    inbox.push(message);
    wake?.();
  };
  port.on("message", receive);
  // The main thread gone (the download stopped, the server closing): nothing more will come.
  port.once("close", () => receive({ cancel: true }));
  try {
    for (;;) {
      const message = inbox.shift() ?? (await new Promise<void>((resolve) => (wake = resolve)), inbox.shift());
      wake = null;
      if (!message) continue;
      if ("cancel" in message) {
        sheet.out.destroy();
        return;
      }
      if ("end" in message) break;
      await sheet.writeRows(message.rows);
      while (!sheet.hasRoom()) await progress(sheet.out);
      port.postMessage({ ready: true } satisfies FromWriter);
    }
    await sheet.finish();
    await ended;
    port.postMessage({ done: true } satisfies FromWriter);
  } finally {
    port.close();
  }
}
