// GET /leads/:id/files/:fileId: a file uploaded with a lead (decision 064), linked from the
// lead's page and the exports. A browser without a session is sent to log in. Always a
// download (app/leads/lead-files.server.ts).
import { findLeadFile, leadFileResponse } from "~/leads/lead-files.server";
import { authorize } from "~/staff/auth.server";
import { page } from "~/utils/http/page.server";
import type { LoaderFunctionArgs } from "@remix-run/node";

export const loader = page(async ({ request, params }: LoaderFunctionArgs) => {
  await authorize(request, "leads.read");
  const file = await findLeadFile(params.id ?? "", params.fileId ?? "");
  if (!file) {
    throw new Response("No such file on this lead.", {
      status: 404,
      headers: { "Content-Type": "text/plain; charset=utf-8" },
    });
  }
  return leadFileResponse(file);
});
