// POST /api/auth/passkeys/registration/options {password?}: the options for
// navigator.credentials.create() (@simplewebauthn/browser's startRegistration), with a
// challenge good for one registration within 5 minutes. Needs a session whose password was
// entered within 10 minutes, or `password`: a stolen session alone cannot add a way in.
import { requireRecentPassword, takePassword } from "~/staff/account-password.server";
import { requireUserSession } from "~/staff/auth.server";
import { passkeyRegistrationOptions } from "~/staff/sign-in/passkeys.server";
import { apiRoute, json, methodNotAllowed, readJsonBody } from "~/utils/http/api.server";
import { clientIp } from "~/utils/http/request.server";
import type { ActionFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(() => methodNotAllowed(["POST"]));

export const action = apiRoute(async ({ request, context }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["POST"]);
  const session = await requireUserSession(request);
  const { password } = takePassword(request.headers.has("Content-Type") ? await readJsonBody(request) : {});
  await requireRecentPassword(session, password);
  return json(await passkeyRegistrationOptions(session.user, clientIp(context)));
});
