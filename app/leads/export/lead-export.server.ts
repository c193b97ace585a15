// Lead exports as CSV (papaparse) and Excel (lead-export-xlsx.server.ts). Both read the
// filtered leads in keyset pages straight into a pull-based ReadableStream: a page is
// read only when the client has taken the previous one, so memory stays flat whatever
// the row count, the first bytes leave before the last row is read, and a client that
// disconnects (stream cancelled, request aborted) stops the reading.
import Papa from "papaparse";
import type { FieldType, LeadValue } from "~/forms/schema/form-schema";
import { statusOf } from "~/leads/lead-detail.server";
import type { Cursor, LeadFilters } from "~/leads/lead-filters.server";
import { tagsAndOwners, type LeadOwner } from "~/leads/lead.server";
import { consentsOf } from "~/storage/consent-store.server";
import { db } from "~/storage/db.server";
import { leadStore, type LeadRow } from "~/storage/index.server";
import { xmlSafeText } from "~/utils/text-policy";
import { fileCellText, filesOfLeads, type ExportFile } from "./lead-export-files.server";

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
  /** Excel only: data rows per sheet before the next sheet begins (default: as many as Excel opens). */
  rowsPerSheet?: number;
  /** Once, when the last row was read (complete) or the download stopped early: the rows sent. */
  onEnd?: (rows: number, complete: boolean) => void;
};

// ---------------------------------------------------------------------------
// Columns

/**
 * What a column holds, for the formats that type their cells: `time` an instant (UTC),
 * `day` a calendar day, `number` a number; `text` is everything else.
 */
export type ColumnKind = "text" | "time" | "day" | "number" | "file";

type FieldColumn = { formId: string; key: string; header: string; kind: ColumnKind; consent?: boolean };

export type ExportColumns = {
  headers: string[];
  /** One per header. */
  kinds: ColumnKind[];
  /** For each form, its field keys and the column each goes to. */
  fieldsByForm: Map<string, Array<{ key: string; index: number }>>;
  /** For each form with consent fields, their keys and the column of each one's version and time (decision 065). */
  consentsByForm: Map<string, Array<{ key: string; index: number }>>;
  formNames: Map<string, string>;
};

// The times are UTC in both formats (ISO 8601 in CSV, a date-time cell in Excel, which has
// no time zone of its own): the header says so.
const LEADING_COLUMNS = ["Lead ID", "Submitted at (UTC)", "Form", "Status", "Owner", "Tags"];
const LEADING_KINDS: ColumnKind[] = ["text", "time", "text", "text", "text", "text"];
const TRAILING_COLUMNS = [
  "utm_source",
  "utm_medium",
  "utm_campaign",
  "utm_term",
  "utm_content",
  "Referrer URL",
  "Landing page URL",
];

type StoredField = { key: string; label: string; type?: FieldType };

function storedFields(fields: unknown): StoredField[] {
  if (!Array.isArray(fields)) return [];
  return fields
    .filter((field) => typeof field?.key === "string")
    .map((field) => ({ key: field.key as string, label: String(field.label ?? field.key), type: field.type }));
}

function kindOf(type: FieldType | undefined): ColumnKind {
  if (type === "file") return "file";
  return type === "date" ? "day" : type === "number" ? "number" : "text";
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
  const columns: Array<FieldColumn & { removed: boolean }> = [];
  for (const form of forms) {
    const older = versions
      .filter((version) => version.formId === form.id && version.version !== form.schemaVersion)
      .map((version) => storedFields(version.fields));
    const current = storedFields(form.fields);
    const currentKeys = new Set(current.map((field) => field.key));
    for (const field of unionOfFields([current, ...older])) {
      // A field only older versions have: its leads keep their values, the header says why
      // no new lead fills it.
      const removed = !currentKeys.has(field.key);
      const label = removed ? `${field.label} (removed)` : field.label;
      columns.push({
        formId: form.id,
        key: field.key,
        header: filters.formId ? label : `${form.name}: ${label}`,
        kind: kindOf(field.type),
        removed,
      });
      // A consent's ticked box, then what was agreed to: the text's version and when.
      if (field.type === "consent") {
        const header = `${filters.formId ? label : `${form.name}: ${label}`} (consent version and time, UTC)`;
        columns.push({ formId: form.id, key: field.key, header, kind: "text", removed, consent: true });
      }
    }
  }
  const shown = await withoutEmptyRemovedFields(filters, columns);
  const fieldsByForm = new Map<string, Array<{ key: string; index: number }>>();
  const consentsByForm = new Map<string, Array<{ key: string; index: number }>>();
  shown.forEach((column, i) => {
    const byForm = column.consent ? consentsByForm : fieldsByForm;
    const list = byForm.get(column.formId) ?? [];
    list.push({ key: column.key, index: LEADING_COLUMNS.length + i });
    byForm.set(column.formId, list);
  });
  return {
    headers: [...LEADING_COLUMNS, ...shown.map((column) => column.header), ...TRAILING_COLUMNS],
    kinds: [...LEADING_KINDS, ...shown.map((column) => column.kind), ...TRAILING_COLUMNS.map((): ColumnKind => "text")],
    fieldsByForm,
    consentsByForm,
    formNames: new Map(forms.map((form) => [form.id, form.name])),
  };
}

/**
 * The columns without the removed fields no exported lead holds a value for (a blank column
 * per field ever removed says nothing). One EXISTS query per removed field before the
 * stream starts: rows are still read a page at a time, and a form that never lost a field
 * costs nothing.
 */
async function withoutEmptyRemovedFields<Column extends FieldColumn & { removed: boolean }>(
  filters: LeadFilters,
  columns: Column[],
): Promise<Column[]> {
  const removed = columns.filter((column) => column.removed);
  if (removed.length === 0) return columns;
  const filled = await leadStore.fieldsWithValues(filters, removed);
  const keep = new Set(filled.map((field) => `${field.formId}\n${field.key}`));
  return columns.filter((column) => !column.removed || keep.has(`${column.formId}\n${column.key}`));
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
  | "isSpam"
  | "status"
  | "ownerId"
  | "data"
  | "utmSource"
  | "utmMedium"
  | "utmCampaign"
  | "utmTerm"
  | "utmContent"
  | "referrerUrl"
  | "landingPageUrl"
>;

/**
 * A lead as an export writes it: its row, its owner and its tags (and its consents, for a form
 * with consent fields; its files, for one with file fields).
 */
export type ExportLead = ExportRow & {
  owner: LeadOwner | null;
  tags: string[];
  consents?: Map<string, { version: string; acceptedAt: Date }>;
  files?: ExportFile[];
};

export type PageReader = { next: () => Promise<ExportLead[] | null>; close: () => void };

/** Keyset pages of the filtered leads with their owners and tags, read one at a time as the stream asks. */
export function pageReader(
  filters: LeadFilters,
  pageSize: number,
  signal?: AbortSignal,
  onEnd?: ExportOptions["onEnd"],
  columns?: Pick<ExportColumns, "consentsByForm" | "kinds">,
): PageReader {
  const withFiles = columns?.kinds.includes("file") ?? false;
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
      const { tags, owners } = await tagsAndOwners(rows);
      const files = withFiles ? await filesOfLeads(rows.map((row) => row.id)) : null;
      // The rows are this page's own: completed in place rather than copied, a row at a time.
      const leads = rows as Array<(typeof rows)[number] & Partial<ExportLead>>;
      for (const lead of leads) {
        lead.owner = (lead.ownerId && owners.get(lead.ownerId)) || null;
        lead.tags = tags.get(lead.id) ?? [];
        if (files) lead.files = files.get(lead.id);
      }
      await addConsents(leads, columns?.consentsByForm);
      return leads as ExportLead[];
    },
    close() {
      done = true;
      end(false);
    },
  };
}

/** The consents of a page's leads whose form has consent columns: one query, only then. */
async function addConsents(
  leads: Array<{ id: string; formId: string } & Partial<ExportLead>>,
  consentsByForm: ExportColumns["consentsByForm"] | undefined,
): Promise<void> {
  if (!consentsByForm || consentsByForm.size === 0) return;
  const consenting = leads.filter((lead) => consentsByForm.has(lead.formId));
  const byId = new Map(consenting.map((lead) => [lead.id, lead]));
  for (const consent of await consentsOf([...byId.keys()])) {
    const lead = byId.get(consent.leadId)!;
    (lead.consents ??= new Map()).set(consent.fieldKey, consent);
  }
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

export type Cell = string | number | boolean | Date;

/**
 * How a file format writes a cell: CSV neutralises formulas and writes times and days as
 * text; Excel drops the characters XML forbids (a string cell is never a formula) and
 * writes times and days as date cells.
 */
export type CellWriter = {
  text: (value: string) => string;
  /** An instant, as ISO 8601 in UTC. */
  time: (iso: string) => Cell;
  /** A calendar day, `YYYY-MM-DD`. */
  day: (day: string) => Cell;
};

export const csvCells: CellWriter = { text: neutraliseFormula, time: (iso) => iso, day: neutraliseFormula };
export const excelCells: CellWriter = {
  text: xmlSafeText,
  time: (iso) => new Date(iso),
  // Midnight UTC: Excel's date cells have no zone, and exceljs writes a Date's UTC clock.
  day: (day) => new Date(`${day}T00:00:00.000Z`),
};

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const isDay = (value: string) => DAY.test(value) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value);

function cellOf(value: LeadValue | null | undefined, kind: ColumnKind, write: CellWriter): Cell {
  if (value === null || value === undefined) return "";
  if (typeof value === "number" || typeof value === "boolean") return value;
  if (Array.isArray(value)) return write.text(value.join(", "));
  // A value stored before its field became a number or a date (a schema change) is typed
  // only when it reads back exactly as it was: "0612" stays text, and so does "next week".
  // ("Infinity" and "NaN" read back too, but no spreadsheet cell holds them.)
  if (kind === "number" && Number.isFinite(Number(value)) && String(Number(value)) === value) return Number(value);
  if (kind === "day" && isDay(value)) return write.day(value);
  return write.text(value);
}

/** One lead as the cells of a row under `columns`. */
export function rowCells(lead: ExportLead, columns: ExportColumns, write: CellWriter): Cell[] {
  const text = (value: string | null) => (value ? write.text(value) : "");
  const cells: Cell[] = new Array(columns.headers.length).fill("");
  cells[0] = lead.id;
  cells[1] = write.time(lead.createdAt);
  cells[2] = text(columns.formNames.get(lead.formId) ?? "");
  cells[3] = statusOf(lead);
  cells[4] = text(lead.owner ? lead.owner.name || lead.owner.email : null);
  cells[5] = text(lead.tags.join(", "));
  const fields = columns.fieldsByForm.get(lead.formId);
  if (fields) {
    for (const { key, index } of fields) {
      const kind = columns.kinds[index];
      const value = kind === "file" && lead.files ? fileCellText(lead.id, key, lead.files) : lead.data[key];
      cells[index] = cellOf(value, kind, write);
    }
  }
  for (const consent of columns.consentsByForm.get(lead.formId) ?? []) {
    const given = lead.consents?.get(consent.key);
    if (given) cells[consent.index] = `${given.version} ${given.acceptedAt.toISOString()}`;
  }
  const tail = columns.headers.length - TRAILING_COLUMNS.length;
  cells[tail] = text(lead.utmSource);
  cells[tail + 1] = text(lead.utmMedium);
  cells[tail + 2] = text(lead.utmCampaign);
  cells[tail + 3] = text(lead.utmTerm);
  cells[tail + 4] = text(lead.utmContent);
  cells[tail + 5] = text(lead.referrerUrl);
  cells[tail + 6] = text(lead.landingPageUrl);
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
  const reader = pageReader(filters, options.pageSize ?? EXPORT_PAGE_SIZE, options.signal, options.onEnd, columns);
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
        controller.enqueue(encoder.encode(csvLines(rows.map((row) => rowCells(row, columns, csvCells)))));
      },
      cancel() {
        reader.close();
      },
    },
    { highWaterMark: 1 },
  );
}
