// GET /api/audit?action&actorId&from&to&cursor&limit: the audit log, newest first, in keyset
// pages (docs/api/audit.md). Owners and admins; no API token may read it.
import { listAudit } from "~/audit/audit.server";
import { authorize } from "~/staff/auth.server";
import { apiRoute, json, methodNotAllowed } from "~/utils/http/api.server";
import type { LoaderFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(async ({ request }: LoaderFunctionArgs) => {
  await authorize(request, "audit.read");
  return json(await listAudit(Object.fromEntries(new URL(request.url).searchParams)));
});

export const action = apiRoute(() => methodNotAllowed(["GET"]));
