// POST /api/webhooks/:id/rotate-secret: a new signing secret (shown once); the previous
// one keeps signing beside it for 24 hours.
import { auditor } from "~/audit/audit.server";
import { authorize } from "~/staff/auth.server";
import { apiRoute, json, methodNotAllowed } from "~/utils/http/api.server";
import { rotateWebhookSecret } from "~/webhooks/webhooks.server";
import type { ActionFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(() => methodNotAllowed(["POST"]));

export const action = apiRoute(async ({ request, params, context }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["POST"]);
  const user = await authorize(request, "webhooks.manage");
  return json(await rotateWebhookSecret(params.id!, auditor(context, user)));
});
