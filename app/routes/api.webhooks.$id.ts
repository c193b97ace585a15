// GET, PATCH and DELETE /api/webhooks/:id.
import { deleteWebhook, getWebhook, updateWebhook } from "~/models/webhooks.server";
import { apiRoute, json, methodNotAllowed, readJsonBody } from "~/utils/api.server";
import { authorize } from "~/utils/auth.server";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(async ({ request, params }: LoaderFunctionArgs) => {
  await authorize(request, "webhooks.manage");
  return json(await getWebhook(params.id!));
});

export const action = apiRoute(async ({ request, params }: ActionFunctionArgs) => {
  await authorize(request, "webhooks.manage");
  switch (request.method) {
    case "PATCH":
      return json(await updateWebhook(params.id!, await readJsonBody(request)));
    case "DELETE":
      await deleteWebhook(params.id!);
      return new Response(null, { status: 204 });
    default:
      methodNotAllowed(["GET", "PATCH", "DELETE"]);
  }
});
