// One export as GET /api/leads/export answers it: the file's stream, type and name, on
// record in the audit log from its start (before the first row leaves, so an export its
// reader stalls is on record at once) to its end (rows sent, and whether it was all of
// them), the second entry naming the first.
import { auditBy, type AuditActor } from "~/audit/audit.server";
import { forViewer, type LeadFilters } from "../lead-filters.server";
import { exportFileName } from "./lead-export-name.server";
import { streamLeadsXlsx } from "./lead-export-xlsx.server";
import { CONTENT_TYPES, streamLeadsCsv, type ExportFormat } from "./lead-export.server";

export type ExportFile = { body: ReadableStream<Uint8Array>; contentType: string; filename: string };

/**
 * The leads a filter chooses (`ownerId=mine` read as the actor) as a file. `query` is the
 * request's filter parameters as sent, which the audit entries record.
 */
export async function exportLeads(
  filters: LeadFilters,
  format: ExportFormat,
  actor: AuditActor,
  request: { query: Record<string, string>; signal?: AbortSignal },
): Promise<ExportFile> {
  const started = await auditBy(actor, "lead.export_started", null, { format, filters: request.query });
  const options = {
    signal: request.signal,
    onEnd: (rows: number, complete: boolean) =>
      void auditBy(actor, "lead.export", null, { format, filters: request.query, rows, complete, started }),
  };
  const chosen = forViewer(filters, actor.id);
  const body = format === "csv" ? await streamLeadsCsv(chosen, options) : await streamLeadsXlsx(chosen, options);
  return { body, contentType: CONTENT_TYPES[format], filename: await exportFileName(filters, format) };
}
