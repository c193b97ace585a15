// GET /api/webhooks/:id/deliveries: the endpoint's newest deliveries with their attempts.
import { listDeliveries } from "~/models/webhooks.server";
import { apiRoute, json } from "~/utils/api.server";
import { authorize } from "~/utils/auth.server";
import type { LoaderFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(async ({ request, params }: LoaderFunctionArgs) => {
  await authorize(request, "webhooks.manage");
  return json({ items: await listDeliveries(params.id!) });
});
