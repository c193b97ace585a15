// GET /api/leads/:id/files/:fileId: a file uploaded with a lead (decision 064), for a session
// or a token with leads:read. Always a download (app/leads/lead-files.server.ts). 404 JSON for
// an unknown lead or file.
import { findLeadFile, leadFileResponse } from "~/leads/lead-files.server";
import { authorize } from "~/staff/auth.server";
import { apiRoute, fail, methodNotAllowed } from "~/utils/http/api.server";
import type { LoaderFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(async ({ request, params }: LoaderFunctionArgs) => {
  if (request.method !== "GET" && request.method !== "HEAD") methodNotAllowed(["GET"]);
  await authorize(request, "leads.read");
  const file = await findLeadFile(params.id ?? "", params.fileId ?? "");
  if (!file) fail(404, "not_found", "No such file on this lead.");
  return leadFileResponse(file);
});
