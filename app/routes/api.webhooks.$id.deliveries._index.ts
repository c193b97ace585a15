// GET /api/webhooks/:id/deliveries: the endpoint's newest deliveries with their attempts.
import { authorize } from "~/staff/auth.server";
import { apiRoute, json } from "~/utils/http/api.server";
import { listDeliveries } from "~/webhooks/webhooks.server";
import type { LoaderFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(async ({ request, params }: LoaderFunctionArgs) => {
  await authorize(request, "webhooks.manage");
  return json({ items: await listDeliveries(params.id!) });
});
