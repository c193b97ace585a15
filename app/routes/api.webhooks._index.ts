// GET /api/webhooks: the endpoints. POST /api/webhooks: create one (201, with its signing secret, shown once).
import { auditor } from "~/audit/audit.server";
import { authorize } from "~/staff/auth.server";
import { apiRoute, json, methodNotAllowed, readJsonBody } from "~/utils/http/api.server";
import { createWebhook, listWebhooks } from "~/webhooks/webhooks.server";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(async ({ request }: LoaderFunctionArgs) => {
  await authorize(request, "webhooks.manage");
  return json({ items: await listWebhooks() });
});

export const action = apiRoute(async ({ request, context }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["GET", "POST"]);
  const user = await authorize(request, "webhooks.manage");
  const created = await createWebhook(await readJsonBody(request), auditor(context, user));
  return json(created, { status: 201, headers: { Location: `/api/webhooks/${created.id}` } });
});
