// POST /api/auth/2fa/disable {password}: turns two-factor off once the password is entered
// again (a stolen session alone cannot); the secret and recovery codes are deleted.
import { z } from "zod";
import { requireUserSession } from "~/staff/auth.server";
import { disableTwoFactor, requirePasswordAgain } from "~/staff/sign-in/two-factor.server";
import { apiRoute, json, methodNotAllowed, parseOrFail, readJsonBody } from "~/utils/http/api.server";
import { clientIp } from "~/utils/http/request.server";
import type { ActionFunctionArgs } from "@remix-run/node";

const PasswordBody = z.strictObject({ password: z.string().min(1, "Enter your password.").max(200) });

export const loader = apiRoute(() => methodNotAllowed(["POST"]));

export const action = apiRoute(async ({ request, context }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["POST"]);
  const session = await requireUserSession(request);
  const { password } = parseOrFail(PasswordBody, await readJsonBody(request));
  await requirePasswordAgain(session, password);
  await disableTwoFactor(session.user, clientIp(context));
  return json({ twoFactor: false });
});
