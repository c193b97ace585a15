// GET /api/leads/export?format=csv|xlsx&<list filters>: the filtered leads as a file,
// streamed from the database page by page.
import { z } from "zod";
import { actorOf } from "~/audit/audit.server";
import { exportLeads } from "~/leads/export/lead-export-file.server";
import { EXPORT_FORMATS } from "~/leads/export/lead-export.server";
import { parseLeadFilters } from "~/leads/lead-filters.server";
import { authorize } from "~/staff/auth.server";
import { apiRoute, fail, methodNotAllowed, zodDetails, type ErrorDetail } from "~/utils/http/api.server";
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
  const query = Object.fromEntries([...params].filter(([name]) => name !== "format"));
  const file = await exportLeads(filters.value, format.data, actorOf(user, context), { query, signal: request.signal });
  return new Response(file.body, {
    headers: {
      "Content-Type": file.contentType,
      "Content-Disposition": `attachment; filename="${file.filename}"`,
      "Cache-Control": "no-store",
    },
  });
});

export const action = apiRoute(() => methodNotAllowed(["GET"]));
