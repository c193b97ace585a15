// GET, PATCH and DELETE /api/webhooks/:id.
import { auditor } from "~/audit/audit.server";
import { authorize } from "~/staff/auth.server";
import { apiRoute, json, methodNotAllowed, readJsonBody } from "~/utils/api.server";
import { deleteWebhook, getWebhook, updateWebhook } from "~/webhooks/webhooks.server";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(async ({ request, params }: LoaderFunctionArgs) => {
  await authorize(request, "webhooks.manage");
  return json(await getWebhook(params.id!));
});

export const action = apiRoute(async ({ request, params, context }: ActionFunctionArgs) => {
  const audit = auditor(context, await authorize(request, "webhooks.manage"));
  switch (request.method) {
    case "PATCH": {
      const body = await readJsonBody(request);
      const updated = await updateWebhook(params.id!, body);
      await audit("webhook.update", `webhook:${params.id}`, { fields: Object.keys(body as object) });
      return json(updated);
    }
    case "DELETE":
      await deleteWebhook(params.id!);
      await audit("webhook.delete", `webhook:${params.id}`);
      return new Response(null, { status: 204 });
    default:
      methodNotAllowed(["GET", "PATCH", "DELETE"]);
  }
});
