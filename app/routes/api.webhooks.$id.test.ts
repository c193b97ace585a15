// POST /api/webhooks/:id/test: queues a `ping` event to this endpoint (202); its delivery
// shows in /api/webhooks/:id/deliveries like any other.
import { authorize } from "~/staff/auth.server";
import { apiRoute, json, methodNotAllowed } from "~/utils/http/api.server";
import { sendTestPing } from "~/webhooks/webhooks.server";
import type { ActionFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(() => methodNotAllowed(["POST"]));

export const action = apiRoute(async ({ request, params }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["POST"]);
  await authorize(request, "webhooks.manage");
  return json(await sendTestPing(params.id!), { status: 202 });
});
