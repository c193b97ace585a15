// GET /api/leads/export?format=csv|xlsx&<list filters>: the filtered leads as a file,
// streamed from the database page by page.
import { z } from "zod";
import { auditor } from "~/audit/audit.server";
import { exportFileName } from "~/leads/lead-export-name.server";
import { streamLeadsXlsx } from "~/leads/lead-export-xlsx.server";
import { CONTENT_TYPES, EXPORT_FORMATS, streamLeadsCsv } from "~/leads/lead-export.server";
import { forViewer, parseLeadFilters } from "~/leads/lead-filters.server";
import { authorize } from "~/staff/auth.server";
import { apiRoute, fail, methodNotAllowed, zodDetails, type ErrorDetail } from "~/utils/api.server";
import type { LoaderFunctionArgs } from "@remix-run/node";

const FormatSchema = z.enum(EXPORT_FORMATS, { error: "Use csv or xlsx." });

export const loader = apiRoute(async ({ request, context }: LoaderFunctionArgs) => {
  const user = await authorize(request, "leads.export");
  const params = new URL(request.url).searchParams;
  const format = FormatSchema.safeParse(params.get("format") ?? undefined);
  const filters = parseLeadFilters(params);
  const details: ErrorDetail[] = [
    ...(format.success ? [] : zodDetails(format.error, "format")),
    ...(filters.ok ? [] : filters.details),
  ];
  if (!format.success || !filters.ok) {
    fail(422, "validation_failed", "The query has invalid parameters.", { details });
  }
  const audit = auditor(context, user);
  const filters_ = Object.fromEntries([...params].filter(([name]) => name !== "format"));
  // Recorded before the first row leaves, so an export its reader stalls is on record at once;
  // its end (rows sent, and whether it was all of them) is a second entry naming this one.
  const started = await audit("lead.export_started", null, { format: format.data, filters: filters_ });
  const options = {
    signal: request.signal,
    onEnd: (rows: number, complete: boolean) =>
      void audit("lead.export", null, { format: format.data, filters: filters_, rows, complete, started }),
  };
  const chosen = forViewer(filters.value, user.id);
  const body = format.data === "csv" ? await streamLeadsCsv(chosen, options) : await streamLeadsXlsx(chosen, options);
  const filename = await exportFileName(filters.value, format.data);
  return new Response(body, {
    headers: {
      "Content-Type": CONTENT_TYPES[format.data],
      "Content-Disposition": `attachment; filename="${filename}"`,
      "Cache-Control": "no-store",
    },
  });
});

export const action = apiRoute(() => methodNotAllowed(["GET"]));
