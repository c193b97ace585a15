// DELETE /api/auth/passkeys/:id {password?}: removes one of your passkeys (204; 404 for an
// unknown id or anybody else's). Like adding one, it needs a session whose password was
// entered within 10 minutes, or `password` (decision 068).
import { requireRecentPassword, takePassword } from "~/staff/account-password.server";
import { requireUserSession } from "~/staff/auth.server";
import { removePasskey } from "~/staff/sign-in/passkeys.server";
import { apiRoute, methodNotAllowed, readJsonBody } from "~/utils/http/api.server";
import { clientIp } from "~/utils/http/request.server";
import type { ActionFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(() => methodNotAllowed(["DELETE"]));

export const action = apiRoute(async ({ request, params, context }: ActionFunctionArgs) => {
  if (request.method !== "DELETE") methodNotAllowed(["DELETE"]);
  const session = await requireUserSession(request);
  const { password } = takePassword(request.headers.has("Content-Type") ? await readJsonBody(request) : {});
  await requireRecentPassword(session, password);
  await removePasskey(session.user, params.id!, clientIp(context));
  return new Response(null, { status: 204 });
});
