// Lead exports as CSV (papaparse) and Excel (lead-export-xlsx.server.ts). Both read the
// filtered leads in keyset pages straight into a pull-based ReadableStream: a page is
// read only when the client has taken the previous one, so memory stays flat whatever
// the row count, the first bytes leave before the last row is read, and a client that
// disconnects (stream cancelled, request aborted) stops the reading.
import Papa from "papaparse";
import type { LeadValue } from "~/models/form-schema";
import type { Cursor, LeadFilters } from "~/models/lead-filters.server";
import { leadStore, type LeadRow } from "~/storage/index.server";
import { db } from "~/utils/db.server";
import { xmlSafeText } from "~/utils/text-policy";

export const EXPORT_FORMATS = ["csv", "xlsx"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: "text/csv; charset=utf-8",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
};

/** Rows read per database round trip: large enough to amortise the query, small enough to stay flat. */
export const EXPORT_PAGE_SIZE = 500;

export type ExportOptions = {
  signal?: AbortSignal;
  pageSize?: number;
  /** Once, when the last row was read (complete) or the download stopped early: the rows sent. */
  onEnd?: (rows: number, complete: boolean) => void;
};

// ---------------------------------------------------------------------------
// Columns

type FieldColumn = { formId: string; key: string; header: string };

export type ExportColumns = {
  headers: string[];
  /** For each form, its field keys and the column each goes to. */
  fieldsByForm: Map<string, Array<{ key: string; index: number }>>;
  formNames: Map<string, string>;
};

const LEADING_COLUMNS = ["Lead ID", "Submitted at", "Form"];
const TRAILING_COLUMNS = [
  "utm_source",
  "utm_medium",
  "utm_campaign",
  "utm_term",
  "utm_content",
  "Referrer URL",
  "Landing page URL",
];

type StoredField = { key: string; label: string };

function storedFields(fields: unknown): StoredField[] {
  if (!Array.isArray(fields)) return [];
  return fields
    .filter((field) => typeof field?.key === "string")
    .map((field) => ({ key: field.key as string, label: String(field.label ?? field.key) }));
}

/**
 * Every field a form has had, in schema order, with its newest label. Walks the versions
 * newest first; a field that only older versions have goes right after the field it
 * followed there, so removed fields stay beside their neighbours.
 */
export function unionOfFields(versionsNewestFirst: StoredField[][]): StoredField[] {
  const union: StoredField[] = [];
  const seen = new Set<string>();
  for (const fields of versionsNewestFirst) {
    let previous: string | null = null;
    for (const field of fields) {
      if (!seen.has(field.key)) {
        const at = previous === null ? -1 : union.findIndex((known) => known.key === previous);
        union.splice(at + 1, 0, field);
        seen.add(field.key);
      }
      previous = field.key;
    }
  }
  return union;
}

/**
 * The columns of an export. With a form, that form's fields; without, the fields of
 * every form with a lead in the view, grouped by form (headers prefixed with the form's name).
 */
export async function exportColumns(filters: LeadFilters): Promise<ExportColumns> {
  const formIds = filters.formId ? [filters.formId] : await formsInView(filters);
  const [forms, versions] = await Promise.all([
    db.form.findMany({
      where: { id: { in: formIds } },
      select: { id: true, name: true, fields: true, schemaVersion: true, createdAt: true },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    }),
    db.formVersion.findMany({
      where: { formId: { in: formIds } },
      select: { formId: true, version: true, fields: true },
      orderBy: [{ formId: "asc" }, { version: "desc" }],
    }),
  ]);
  const columns: FieldColumn[] = [];
  for (const form of forms) {
    const older = versions
      .filter((version) => version.formId === form.id && version.version !== form.schemaVersion)
      .map((version) => storedFields(version.fields));
    const fields = unionOfFields([storedFields(form.fields), ...older]);
    for (const field of fields) {
      columns.push({
        formId: form.id,
        key: field.key,
        header: filters.formId ? field.label : `${form.name}: ${field.label}`,
      });
    }
  }
  const fieldsByForm = new Map<string, Array<{ key: string; index: number }>>();
  columns.forEach((column, i) => {
    const list = fieldsByForm.get(column.formId) ?? [];
    list.push({ key: column.key, index: LEADING_COLUMNS.length + i });
    fieldsByForm.set(column.formId, list);
  });
  return {
    headers: [...LEADING_COLUMNS, ...columns.map((column) => column.header), ...TRAILING_COLUMNS],
    fieldsByForm,
    formNames: new Map(forms.map((form) => [form.id, form.name])),
  };
}

/** The forms that have at least one lead in the filtered view. */
function formsInView(filters: LeadFilters): Promise<string[]> {
  return leadStore.formIdsMatching(filters);
}

// ---------------------------------------------------------------------------
// Reading pages

export type ExportRow = Pick<
  LeadRow,
  | "id"
  | "createdAt"
  | "formId"
  | "data"
  | "utmSource"
  | "utmMedium"
  | "utmCampaign"
  | "utmTerm"
  | "utmContent"
  | "referrerUrl"
  | "landingPageUrl"
>;

export type PageReader = { next: () => Promise<ExportRow[] | null>; close: () => void };

/** Keyset pages of the filtered leads, read one at a time as the stream asks. */
export function pageReader(
  filters: LeadFilters,
  pageSize: number,
  signal?: AbortSignal,
  onEnd?: ExportOptions["onEnd"],
): PageReader {
  let cursor: Cursor | undefined;
  let done = false;
  let read = 0;
  let ended = false;
  const end = (complete: boolean) => {
    if (ended) return;
    ended = true;
    onEnd?.(read, complete);
  };
  return {
    async next() {
      if (signal?.aborted) {
        end(false);
        return null;
      }
      if (done) {
        end(true);
        return null;
      }
      const rows = await leadStore.page(filters, cursor, pageSize);
      if (rows.length < pageSize) done = true;
      read += rows.length;
      if (rows.length === 0) {
        end(true);
        return null;
      }
      const tail = rows[rows.length - 1];
      cursor = { createdAt: new Date(tail.createdAt), id: tail.id };
      return rows;
    },
    close() {
      done = true;
      end(false);
    },
  };
}

// ---------------------------------------------------------------------------
// Cells

/**
 * Text a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, carriage return
 * first) gets a leading `'`, which spreadsheets show as text (OWASP "CSV injection").
 * CSV only: an Excel cell written as a string is never a formula, so it needs none.
 */
export function neutraliseFormula(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

export type Cell = string | number | boolean;

/** How a file format makes text safe: CSV neutralises formulas; XML drops what it forbids. */
export type TextCell = (value: string) => string;
export const csvText: TextCell = neutraliseFormula;
export const excelText: TextCell = xmlSafeText;

function cellOf(value: LeadValue | null | undefined, safe: TextCell): Cell {
  if (value === null || value === undefined) return "";
  if (typeof value === "number" || typeof value === "boolean") return value;
  if (Array.isArray(value)) return safe(value.join(", "));
  return safe(String(value));
}

/** One lead as the cells of a row under `columns`. */
export function rowCells(row: ExportRow, columns: ExportColumns, safe: TextCell): Cell[] {
  const text = (value: string | null) => (value ? safe(value) : "");
  const cells: Cell[] = new Array(columns.headers.length).fill("");
  cells[0] = row.id;
  cells[1] = row.createdAt;
  cells[2] = text(columns.formNames.get(row.formId) ?? "");
  const fields = columns.fieldsByForm.get(row.formId);
  if (fields) for (const field of fields) cells[field.index] = cellOf(row.data[field.key], safe);
  const tail = columns.headers.length - TRAILING_COLUMNS.length;
  cells[tail] = text(row.utmSource);
  cells[tail + 1] = text(row.utmMedium);
  cells[tail + 2] = text(row.utmCampaign);
  cells[tail + 3] = text(row.utmTerm);
  cells[tail + 4] = text(row.utmContent);
  cells[tail + 5] = text(row.referrerUrl);
  cells[tail + 6] = text(row.landingPageUrl);
  return cells;
}

// ---------------------------------------------------------------------------
// CSV

const BOM = "\uFEFF";

function csvLines(rows: Cell[][]): string {
  // RFC 4180: CRLF between records, and after the last one too.
  return `${Papa.unparse(rows, { header: false, newline: "\r\n" })}\r\n`;
}

export async function streamLeadsCsv(
  filters: LeadFilters,
  options: ExportOptions = {},
): Promise<ReadableStream<Uint8Array>> {
  const columns = await exportColumns(filters);
  const reader = pageReader(filters, options.pageSize ?? EXPORT_PAGE_SIZE, options.signal, options.onEnd);
  const encoder = new TextEncoder();
  let started = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!started) {
          started = true;
          controller.enqueue(encoder.encode(BOM + csvLines([columns.headers.map(neutraliseFormula)])));
          return;
        }
        const rows = await reader.next();
        if (!rows) {
          reader.close();
          if (options.signal?.aborted) controller.error(options.signal.reason);
          else controller.close();
          return;
        }
        controller.enqueue(encoder.encode(csvLines(rows.map((row) => rowCells(row, columns, csvText)))));
      },
      cancel() {
        reader.close();
      },
    },
    { highWaterMark: 1 },
  );
}

// ---------------------------------------------------------------------------
// File name

function slug(value: string): string {
  const slugged = value
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60)
    .replace(/-+$/, "");
  return slugged || "form";
}

/** `leads-contact-form-2026-11-21.csv`: what the file holds, and the day it was made. */
export async function exportFileName(filters: LeadFilters, format: ExportFormat, now = new Date()): Promise<string> {
  const parts = ["leads"];
  if (filters.formId) {
    const form = await db.form.findUnique({ where: { id: filters.formId }, select: { name: true } });
    parts.push(slug(form?.name ?? filters.formId));
  }
  if (filters.utm_campaign) parts.push(slug(filters.utm_campaign));
  if (filters.from || filters.to) parts.push(`${filters.from ?? "start"}-to-${filters.to ?? "now"}`);
  if (filters.spam === "true") parts.push("spam");
  parts.push(now.toISOString().slice(0, 10));
  return `${parts.join("-")}.${format}`;
}
