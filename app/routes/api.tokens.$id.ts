// DELETE /api/tokens/:id: revokes one of your API tokens, or for owners and admins anyone's
// (204; 404 for an unknown id, or another user's for an agent).
import { auditor } from "~/audit/audit.server";
import { revokeApiToken } from "~/staff/api-tokens.server";
import { requireUserSession } from "~/staff/auth.server";
import { apiRoute, methodNotAllowed } from "~/utils/http/api.server";
import type { ActionFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(() => methodNotAllowed(["DELETE"]));

export const action = apiRoute(async ({ request, params, context }: ActionFunctionArgs) => {
  if (request.method !== "DELETE") methodNotAllowed(["DELETE"]);
  const { user } = await requireUserSession(request);
  await revokeApiToken(user, params.id!, auditor(context, user));
  return new Response(null, { status: 204 });
});
