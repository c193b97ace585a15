// The lead list's bulk form (/leads, works without JavaScript): which leads (ticked rows,
// or every lead matching the list's filter), what to do with them (one select), and the
// tag to add or remove. It is read into the BulkRequest the API takes (lead-bulk.server.ts),
// so the page and POST /api/leads/bulk change leads the one same way.
import { DomainError, invalidFields, type ErrorDetail } from "~/utils/domain-error";
import { MAX_PAGE_SIZE, filtersToSearchParams, parseLeadFilters } from "../lead-filters.server";
import { NO_LEADS, NO_OPERATION } from "../lead-schemas";
import { parseBulkRequest, type BulkRequest } from "./lead-bulk.server";

/** Ticked rows, or every lead the filter matches. */
export type BulkScope = "selected" | "all";

/** The form's fields, as the confirmation step sends them again. */
export type BulkSelection = { scope: BulkScope; ids: string[]; filter: string };

const text = (value: FormDataEntryValue | null): string => (typeof value === "string" ? value : "");

export function selectionOf(form: FormData): BulkSelection {
  return {
    scope: form.get("scope") === "all" ? "all" : "selected",
    ids: form.getAll("ids").filter((id): id is string => typeof id === "string" && id !== ""),
    filter: text(form.get("filter")),
  };
}

/** The `operation` select's value (`status:won`, `owner:<id>`, `owner:none`, `tag`, `untag`, `delete`). */
function actionOf(operation: string, tag: string): { action: string; value?: unknown } {
  const [kind, argument = ""] = operation.split(/:(.*)/s);
  if (kind === "status" && argument) return { action: "set_status", value: argument };
  if (kind === "owner" && argument) return { action: "assign", value: argument === "none" ? null : argument };
  if (kind === "tag" || kind === "untag") return { action: kind, value: tag };
  if (kind === "delete") return { action: "delete" };
  throw invalidFields([{ path: "operation", message: NO_OPERATION }]);
}

/** The form's field that a detail of parseBulkRequest or bulkUpdate is about. */
function fieldOf(path: string, action: string): string {
  if (path === "value") return action === "tag" || action === "untag" ? "tag" : "operation";
  if (path === "action") return "operation";
  if (path.startsWith("ids")) return "ids";
  return path;
}

/** Renames the paths of a validation error to the form's fields; other errors pass unchanged. */
export function asFormError(error: unknown, operation: string): unknown {
  if (!(error instanceof DomainError) || error.code !== "validation_failed") return error;
  const action = operation.split(":")[0];
  const details: ErrorDetail[] = error.details.map((detail) => ({
    path: fieldOf(detail.path, action),
    message: detail.message,
  }));
  return invalidFields(details, error.message);
}

/**
 * The bulk request the form makes: validation_failed naming `ids`, `operation` or `tag`
 * when it cannot be done; malformed_body when the hidden filter was tampered with.
 */
export function readBulkForm(form: FormData, viewerId: string): { request: BulkRequest; selection: BulkSelection } {
  const selection = selectionOf(form);
  const operation = text(form.get("operation"));
  try {
    const { action, value } = actionOf(operation, text(form.get("tag")));
    if (selection.scope === "selected" && selection.ids.length === 0) {
      throw invalidFields([{ path: "ids", message: NO_LEADS }]);
    }
    // "All N leads matching this filter" is the person's explicit choice, even of a view with
    // no filter: it is sent as `all`. The view's page size travels with its filters, and is
    // not one of them.
    const filter = new URLSearchParams(selection.filter);
    filter.delete("limit");
    const leads =
      selection.scope === "all" ? { all: true, filter: Object.fromEntries(filter) } : { ids: selection.ids };
    return { request: parseBulkRequest({ action, value, ...leads }, viewerId), selection };
  } catch (error) {
    throw asFormError(error, operation);
  }
}

/**
 * Where "Export the selection" downloads from: the ticked rows by id, or the filter's own
 * export. validation_failed naming `ids` when nothing is chosen.
 */
export function exportHref(selection: BulkSelection, format: "csv" | "xlsx" = "csv"): string {
  const params = new URLSearchParams({ format });
  if (selection.scope === "all") {
    const filters = parseLeadFilters(new URLSearchParams(selection.filter));
    if (!filters.ok) throw new DomainError("malformed_body", "The filter has invalid parameters.", filters.details);
    for (const [key, value] of filtersToSearchParams(filters.value)) params.set(key, value);
  } else {
    if (selection.ids.length === 0) throw invalidFields([{ path: "ids", message: NO_LEADS }]);
    if (selection.ids.length > MAX_PAGE_SIZE) {
      throw invalidFields([{ path: "ids", message: `Tick at most ${MAX_PAGE_SIZE} leads, or export the filter.` }]);
    }
    // Ticked rows whatever their spam flag (the view may be showing spam). Commas left as
    // they are: the link reads as the API documents it (ids=a,b,c).
    params.set("spam", "all");
    return `/api/leads/export?${params}&ids=${[...new Set(selection.ids)].map(encodeURIComponent).join(",")}`;
  }
  return `/api/leads/export?${params}`;
}

const leadsText = (count: number) => (count === 1 ? "1 lead" : `${count} leads`);

/** What the list says after the action: "12 leads marked won". */
export function bulkNotice(request: BulkRequest, affected: number, ownerName?: string): string {
  const leads = leadsText(affected);
  switch (request.action) {
    case "set_status":
      return `${leads} marked ${request.value}.`;
    case "assign":
      return request.value ? `${leads} assigned to ${ownerName ?? "the chosen owner"}.` : `${leads} unassigned.`;
    case "tag":
      return `${leads} tagged “${request.value}”.`;
    case "untag":
      return `Tag “${request.value}” removed from ${leads}.`;
    case "delete":
      return `${leads} deleted.`;
  }
}
