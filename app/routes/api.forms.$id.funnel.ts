// GET /api/forms/:id/funnel?from&to&groupBy: per utm_source, utm_campaign or referrer, a
// form's views, the visitors who started it and reached each step, and its leads. Rules:
// docs/api/forms.md#drop-off-funnel.
import { FunnelQuerySchema, getFunnel } from "~/forms/form-funnel.server";
import { authorize } from "~/staff/auth.server";
import { apiRoute, json, methodNotAllowed, parseOrFail } from "~/utils/http/api.server";
import type { LoaderFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(async ({ request, params }: LoaderFunctionArgs) => {
  if (request.method !== "GET" && request.method !== "HEAD") methodNotAllowed(["GET"]);
  await authorize(request, "leads.read");
  const search = Object.fromEntries(new URL(request.url).searchParams);
  const query = parseOrFail(FunnelQuerySchema, { ...search, formId: params.id });
  return json({
    formId: query.formId,
    from: query.from,
    to: query.to,
    groupBy: query.groupBy,
    ...(await getFunnel(query)),
  });
});
