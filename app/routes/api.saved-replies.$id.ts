// PATCH /api/saved-replies/:id with {name?, body?}; DELETE: 204.
import { authorize } from "~/staff/auth.server";
import { deleteSavedReply, updateSavedReply } from "~/support/saved-replies.server";
import { apiRoute, json, methodNotAllowed, readJsonBody } from "~/utils/http/api.server";
import type { ActionFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(() => methodNotAllowed(["PATCH", "DELETE"]));

export const action = apiRoute(async ({ request, params }: ActionFunctionArgs) => {
  await authorize(request, "support.write");
  switch (request.method) {
    case "PATCH":
      return json(await updateSavedReply(params.id!, await readJsonBody(request)));
    case "DELETE":
      await deleteSavedReply(params.id!);
      return new Response(null, { status: 204 });
    default:
      methodNotAllowed(["PATCH", "DELETE"]);
  }
});
