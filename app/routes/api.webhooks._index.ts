// GET /api/webhooks: the endpoints. POST /api/webhooks: create one (201, with its signing secret, shown once).
import { createWebhook, listWebhooks } from "~/models/webhooks.server";
import { apiRoute, json, methodNotAllowed, readJsonBody } from "~/utils/api.server";
import { authorize } from "~/utils/auth.server";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(async ({ request }: LoaderFunctionArgs) => {
  await authorize(request, "webhooks.manage");
  return json({ items: await listWebhooks() });
});

export const action = apiRoute(async ({ request }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["GET", "POST"]);
  await authorize(request, "webhooks.manage");
  const created = await createWebhook(await readJsonBody(request));
  return json(created, { status: 201, headers: { Location: `/api/webhooks/${created.id}` } });
});
