// GET, PATCH and DELETE /api/webhooks/:id.
import { auditor } from "~/audit/audit.server";
import { authorize } from "~/staff/auth.server";
import { apiRoute, json, methodNotAllowed, readJsonBody } from "~/utils/http/api.server";
import { deleteWebhook, getWebhook, updateWebhook } from "~/webhooks/webhooks.server";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(async ({ request, params }: LoaderFunctionArgs) => {
  await authorize(request, "webhooks.manage");
  return json(await getWebhook(params.id!));
});

export const action = apiRoute(async ({ request, params, context }: ActionFunctionArgs) => {
  const audit = auditor(context, await authorize(request, "webhooks.manage"));
  switch (request.method) {
    case "PATCH":
      return json(await updateWebhook(params.id!, await readJsonBody(request), audit));
    case "DELETE":
      await deleteWebhook(params.id!, audit);
      return new Response(null, { status: 204 });
    default:
      methodNotAllowed(["GET", "PATCH", "DELETE"]);
  }
});
