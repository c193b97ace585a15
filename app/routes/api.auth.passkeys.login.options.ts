// POST /api/auth/passkeys/login/options: the options for navigator.credentials.get()
// (@simplewebauthn/browser's startAuthentication) with no credentials listed, so the browser
// offers the passkeys it holds for this site (no email typed). Public; 30 a minute per address.
import { assertSameOrigin } from "~/staff/auth.server";
import { passkeySignInOptions } from "~/staff/sign-in/passkeys.server";
import { apiRoute, json, methodNotAllowed } from "~/utils/http/api.server";
import { clientIp } from "~/utils/http/request.server";
import type { ActionFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(() => methodNotAllowed(["POST"]));

export const action = apiRoute(async ({ request, context }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["POST"]);
  assertSameOrigin(request);
  return json(await passkeySignInOptions(clientIp(context)));
});
