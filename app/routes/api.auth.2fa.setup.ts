// POST /api/auth/2fa/setup {password?}: a new TOTP secret for the session's user, answered
// once as {secret, otpauthUri, qrSvg}; confirmed by POST /api/auth/2fa/enable. Needs a
// session whose password was entered within 10 minutes, or `password` (docs/api/auth.md).
import { requireRecentPassword, takePassword } from "~/staff/account-password.server";
import { requireUserSession } from "~/staff/auth.server";
import { startTwoFactorSetup } from "~/staff/sign-in/two-factor.server";
import { apiRoute, json, methodNotAllowed, readJsonBody } from "~/utils/http/api.server";
import type { ActionFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(() => methodNotAllowed(["POST"]));

export const action = apiRoute(async ({ request }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["POST"]);
  const session = await requireUserSession(request);
  // No body at all is fine (a fresh session's password is recent); a body must be JSON.
  const { password } = takePassword(request.headers.has("Content-Type") ? await readJsonBody(request) : {});
  await requireRecentPassword(session, password);
  return json(await startTwoFactorSetup(session.user));
});
