// POST /api/webhooks/:id/deliveries/:deliveryId/retry: attempts the delivery again now (202).
import { authorize } from "~/staff/auth.server";
import { apiRoute, json, methodNotAllowed } from "~/utils/http/api.server";
import { retryDelivery } from "~/webhooks/webhooks.server";
import type { ActionFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(() => methodNotAllowed(["POST"]));

export const action = apiRoute(async ({ request, params }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["POST"]);
  await authorize(request, "webhooks.manage");
  await retryDelivery(params.id!, params.deliveryId!);
  return json({ queued: true }, { status: 202 });
});
