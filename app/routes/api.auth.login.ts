import { z } from "zod";
import { InvalidCredentialsError, LoginSchema, assertSameOrigin, withLoginLimits } from "~/staff/auth.server";
import { commitUserSession } from "~/staff/session-cookie.server";
import { refuseSignInUnderSso, SsoRequiredError } from "~/staff/sign-in/security-policy.server";
import {
  PasskeyRequiredError,
  requireSecondFactor,
  SecondFactorRequiredError,
  WrongSecondFactorError,
} from "~/staff/sign-in/two-factor.server";
import { verifyLogin } from "~/staff/user.server";
import { apiRoute, fail, json, methodNotAllowed, parseOrFail, readJsonBody } from "~/utils/http/api.server";
import { clientIp } from "~/utils/http/request.server";
import type { ActionFunctionArgs } from "@remix-run/node";

/** `code`: a current TOTP code or a recovery code, for an account with two-factor (docs/api/auth.md). */
const ApiLoginSchema = LoginSchema.extend({ code: z.string().max(64).optional() });

export const loader = apiRoute(() => methodNotAllowed(["POST"]));

export const action = apiRoute(async ({ request, context }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["POST"]);
  assertSameOrigin(request);
  const { email, password, code } = parseOrFail(ApiLoginSchema, await readJsonBody(request));
  const ip = clientIp(context);
  try {
    const user = await withLoginLimits(ip, email, async () => {
      const found = await verifyLogin(email, password);
      if (!found) throw new InvalidCredentialsError();
      await refuseSignInUnderSso(found, ip);
      await requireSecondFactor(found, code, ip);
      return found;
    });
    return json({ user }, { headers: { "Set-Cookie": await commitUserSession(user.id, request, ip) } });
  } catch (error) {
    if (error instanceof SsoRequiredError) fail(403, "sso_required", error.message);
    if (error instanceof SecondFactorRequiredError) {
      fail(401, "second_factor_required", error.message, { details: [{ path: "code", message: error.message }] });
    }
    if (error instanceof PasskeyRequiredError) fail(401, "passkey_required", error.message);
    if (error instanceof WrongSecondFactorError) {
      fail(401, "invalid_second_factor", "That code is wrong or was already used.", {
        details: [{ path: "code", message: "That code is wrong or was already used." }],
      });
    }
    if (error instanceof InvalidCredentialsError) {
      fail(401, "invalid_credentials", "Invalid email or password.");
    }
    throw error;
  }
});
