// POST /api/auth/2fa/disable {password}: turns two-factor off once the password is entered
// again (a stolen session alone cannot); the secret and recovery codes are deleted.
import { z } from "zod";
import { checkOwnPassword } from "~/staff/account-password.server";
import { requireUserSession } from "~/staff/auth.server";
import { disableTwoFactor } from "~/staff/two-factor.server";
import { apiRoute, fail, json, methodNotAllowed, parseOrFail, readJsonBody } from "~/utils/http/api.server";
import { clientIp } from "~/utils/http/request.server";
import type { ActionFunctionArgs } from "@remix-run/node";

const PasswordBody = z.strictObject({ password: z.string().min(1, "Enter your password.").max(200) });

export const loader = apiRoute(() => methodNotAllowed(["POST"]));

export const action = apiRoute(async ({ request, context }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["POST"]);
  const session = await requireUserSession(request);
  const { password } = parseOrFail(PasswordBody, await readJsonBody(request));
  if (!(await checkOwnPassword(session, password))) {
    fail(422, "validation_failed", "The request has invalid fields.", {
      details: [{ path: "password", message: "That is not your password." }],
    });
  }
  await disableTwoFactor(session.user, clientIp(context));
  return json({ twoFactor: false });
});
