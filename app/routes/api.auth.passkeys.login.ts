// POST /api/auth/passkeys/login {response, redirectTo?, timeZone?}: signs in with a passkey's
// answer to the login options, as the password login does (the same session and cookie), and
// without the TOTP step: a passkey with user verification is both factors (decision 068).
// Answers {user, redirectTo}; a refusal is 401 passkey_refused naming what was wrong, and a
// non-owner while the owners require single sign-on is 403 sso_required (decision 062).
import { assertSameOrigin, safeRedirect } from "~/staff/auth.server";
import { commitUserSession } from "~/staff/session-cookie.server";
import { PasskeyRefusedError, signInWithPasskey } from "~/staff/sign-in/passkeys.server";
import { endPendingSignIn } from "~/staff/sign-in/pending-sign-in.server";
import { SsoRequiredError } from "~/staff/sign-in/security-policy.server";
import { defaultTimeZone } from "~/staff/user.server";
import { apiRoute, fail, json, methodNotAllowed, readJsonBody } from "~/utils/http/api.server";
import { clientIp } from "~/utils/http/request.server";
import type { ActionFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(() => methodNotAllowed(["POST"]));

export const action = apiRoute(async ({ request, context }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["POST"]);
  assertSameOrigin(request);
  const ip = clientIp(context);
  const body = await readJsonBody(request);
  try {
    const user = await signInWithPasskey(body, ip);
    const { redirectTo, timeZone } = (body ?? {}) as { redirectTo?: string; timeZone?: string };
    await defaultTimeZone(user.id, timeZone);
    const headers = new Headers({ "Set-Cookie": await commitUserSession(user.id, request, ip) });
    headers.append("Set-Cookie", await endPendingSignIn());
    return json({ user, redirectTo: safeRedirect(redirectTo, "/") }, { headers });
  } catch (error) {
    if (error instanceof SsoRequiredError) fail(403, "sso_required", error.message);
    if (!(error instanceof PasskeyRefusedError)) throw error;
    fail(401, "passkey_refused", "That passkey was not accepted. Try again, or sign in with your password.", {
      details: [{ path: error.path, message: error.message }],
    });
  }
});
