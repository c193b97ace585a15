// Lead exports as Excel files, with exceljs's streaming writer: the columns, the pages
// and the cells are lead-export.server.ts's, as for CSV. Memory stays flat: the next page
// is read only while little sheet XML waits for compression.
import { PassThrough } from "node:stream";
import ExcelJS from "exceljs";
import type { LeadFilters } from "~/leads/lead-filters.server";
import {
  EXPORT_PAGE_SIZE,
  excelCells,
  exportColumns,
  pageReader,
  rowCells,
  type Cell,
  type ColumnKind,
  type ExportColumns,
  type ExportLead,
  type ExportOptions,
} from "./lead-export.server";

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
function columnWidths(columns: ExportColumns, sample: Cell[][]): number[] {
  return columns.headers.map((header, i) => {
    let width = header.length;
    for (const row of sample) width = Math.max(width, widthOf(row[i], columns.kinds[i]));
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

/**
 * An Excel sheet holds 1,048,576 rows: past that, Excel refuses the file. A longer export
 * goes on in another sheet ("Leads 2", ...), each with the header and the same widths.
 */
export const ROWS_PER_SHEET = 1_048_576 - 1;

/** Unzipped sheet XML allowed to wait for compression before the next page is read. */
const XLSX_PENDING_BYTES = 2 * 1024 * 1024;
const XLSX_YIELD_EVERY = 50;

/** One workbook being written into `out`, a sheet of leads with a bold header. */
class LeadSheet {
  readonly out = new PassThrough({ highWaterMark: 256 * 1024 });
  readonly #workbook: ExcelJS.stream.xlsx.WorkbookWriter;
  #sheet!: ExcelJS.Worksheet;
  #sheets = 0;
  #rowsInSheet = 0;
  #widths: number[] = [];
  ended = false;
  failed: unknown = null;

  constructor(
    readonly columns: ExportColumns,
    readonly rowsPerSheet = ROWS_PER_SHEET,
  ) {
    // Shared strings would keep every distinct string of the file in memory until the end;
    // styles are on only for the bold header.
    this.#workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
      stream: this.out,
      useSharedStrings: false,
      useStyles: true,
    });
    skipStylesOfPlainCells(this.#workbook);
    this.out.once("end", () => (this.ended = true));
    this.out.once("error", (error) => (this.failed = error));
  }

  /** The column widths (from the first page) and the header row, then that page. */
  async writeFirst(rows: ExportLead[] | null): Promise<void> {
    const cells = (rows ?? []).map((row) => rowCells(row, this.columns, excelCells));
    this.#widths = columnWidths(this.columns, cells);
    this.#startSheet();
    await this.writeRows(cells);
  }

  /** A new sheet (the previous one, if any, complete), with the widths and the header. */
  #startSheet() {
    if (this.#sheets > 0) this.#sheet.commit();
    this.#sheets++;
    const name = this.#sheets === 1 ? "Leads" : `Leads ${this.#sheets}`;
    this.#sheet = this.#workbook.addWorksheet(name, { views: [{ state: "frozen", ySplit: 1 }] });
    this.#sheet.columns = this.#widths.map((width) => ({ width }));
    const header = this.#sheet.addRow(this.columns.headers.map(excelCells.text));
    header.font = { bold: true };
    header.commit();
    this.#rowsInSheet = 0;
  }

  /**
   * Compression runs on libuv's thread pool in small jobs, each started from the main
   * thread: yielding every few hundred rows lets it work while the next rows are built.
   */
  async writeRows(rows: ExportLead[] | Cell[][]): Promise<void> {
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      const cells = Array.isArray(row) ? row : rowCells(row, this.columns, excelCells);
      if (this.#rowsInSheet === this.rowsPerSheet) this.#startSheet();
      this.#rowsInSheet++;
      const added = this.#sheet.addRow(excelLineBreaks(cells));
      for (let c = 0; c < cells.length; c++) {
        const style = cells[c] instanceof Date && DATE_STYLES[this.columns.kinds[c]];
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
    const sink = (this.#sheet as unknown as { stream?: { pipes?: Sink[] } }).stream?.pipes?.[0];
    return (sink?._writableState?.length ?? sink?.writableLength ?? 0) <= XLSX_PENDING_BYTES;
  }

  /** Waits until the zip has written something out (or ended, or failed). */
  progress(): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        this.out.off("readable", done);
        this.out.off("end", done);
        this.out.off("error", done);
        resolve();
      };
      this.out.once("readable", done);
      this.out.once("end", done);
      this.out.once("error", done);
    });
  }

  async finish(): Promise<void> {
    try {
      this.#sheet.commit();
      await this.#workbook.commit();
    } catch (error) {
      this.failed = error;
      this.out.destroy();
    }
  }
}

export async function streamLeadsXlsx(
  filters: LeadFilters,
  options: ExportOptions = {},
): Promise<ReadableStream<Uint8Array>> {
  const columns = await exportColumns(filters);
  const sheet = new LeadSheet(columns, options.rowsPerSheet);
  const withFiles = columns.kinds.includes("file");
  const reader = pageReader(filters, options.pageSize ?? EXPORT_PAGE_SIZE, options.signal, options.onEnd, withFiles);
  let phase: "header" | "rows" | "finishing" = "header";
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        for (;;) {
          if (sheet.failed) return controller.error(sheet.failed);
          const chunk = sheet.out.read() as Buffer | null;
          if (chunk) return controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if (sheet.ended) return controller.close();
          if (phase === "header") {
            const rows = await reader.next();
            await sheet.writeFirst(rows);
            phase = rows ? "rows" : "finishing";
            if (phase === "finishing") void sheet.finish();
            continue;
          }
          if (phase === "rows" && sheet.hasRoom()) {
            const rows = await reader.next();
            if (rows) {
              await sheet.writeRows(rows);
            } else {
              phase = "finishing";
              if (options.signal?.aborted) return controller.error(options.signal.reason);
              void sheet.finish();
            }
            continue;
          }
          await sheet.progress();
        }
      },
      cancel() {
        reader.close();
        sheet.out.destroy();
      },
    },
    { highWaterMark: 1 },
  );
}
