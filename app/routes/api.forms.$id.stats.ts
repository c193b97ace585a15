// GET /api/forms/:id/stats?from&to&groupBy: a form's views, leads and conversion rate per
// utm_source, utm_campaign, referrer host or day. Rules: docs/api/forms.md#form-stats.
import { ConversionQuerySchema, getConversionStats } from "~/forms/form-stats.server";
import { authorize } from "~/staff/auth.server";
import { apiRoute, json, methodNotAllowed, parseOrFail } from "~/utils/http/api.server";
import type { LoaderFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(async ({ request, params }: LoaderFunctionArgs) => {
  if (request.method !== "GET" && request.method !== "HEAD") methodNotAllowed(["GET"]);
  await authorize(request, "leads.read");
  const search = Object.fromEntries(new URL(request.url).searchParams);
  const query = parseOrFail(ConversionQuerySchema, { ...search, formId: params.id });
  return json({
    formId: query.formId,
    from: query.from,
    to: query.to,
    groupBy: query.groupBy,
    ...(await getConversionStats(query)),
  });
});
