// GET /api/webhooks/:id/deliveries: the endpoint's newest deliveries with their attempts.
import { listDeliveries } from "~/models/webhooks.server";
import { apiRoute, json } from "~/utils/api.server";
import { requireUser } from "~/utils/auth.server";
import type { LoaderFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(async ({ request, params }: LoaderFunctionArgs) => {
  await requireUser(request);
  return json({ items: await listDeliveries(params.id!) });
});
