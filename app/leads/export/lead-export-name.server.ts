// The name of an export's file: what it holds, in words a reader of a Downloads folder
// understands, safe in a header and on any disk.
import type { ExportFormat } from "~/leads/export/lead-export.server";
import { filtersToSearchParams, type LeadFilters } from "~/leads/lead-filters.server";
import { db } from "~/storage/db.server";

/** Longest file name: short enough for every file system and download dialog. */
export const FILE_NAME_MAX = 120;
const PART_MAX = 40;

/** ASCII letters, digits and `-` (and `_` when kept): safe in a header and on any disk. */
function slug(value: string, keep = /[^a-z0-9]+/g): string {
  return value
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(keep, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, PART_MAX)
    .replace(/-+$/, "");
}

/**
 * `leads-contact-utm_source-google-2026-11-22.csv`: what the file holds (the form's name,
 * then each filter set, as name and value) and the day it was made (UTC); ticked rows are
 * `leads-selection-3-2026-11-22.csv`. Parts that would
 * take the name past FILE_NAME_MAX are left out; the day always stays.
 */
export async function exportFileName(filters: LeadFilters, format: ExportFormat, now = new Date()): Promise<string> {
  const parts: string[] = [];
  if (filters.formId) {
    const form = await db.form.findUnique({ where: { id: filters.formId }, select: { name: true } });
    parts.push(slug(form?.name ?? filters.formId) || "form");
  }
  for (const [name, value] of filtersToSearchParams(filters)) {
    if (name === "formId") continue;
    // Ticked rows are exported whatever their spam flag, so their link always carries
    // `spam=all`: a flag nobody chose, left out of the name.
    if (name === "spam" && filters.ids) continue;
    // A selection's ids say nothing to a reader (and would be long): its size does.
    if (name === "ids") parts.push(`selection-${filters.ids?.length ?? 0}`);
    else parts.push([slug(name, /[^a-z0-9_]+/g), slug(value)].filter(Boolean).join("-"));
  }
  const tail = `-${now.toISOString().slice(0, 10)}.${format}`;
  let fileName = "leads";
  for (const part of parts) {
    if (fileName.length + 1 + part.length + tail.length > FILE_NAME_MAX) break;
    fileName += `-${part}`;
  }
  return fileName + tail;
}
