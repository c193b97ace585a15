// POST /api/auth/2fa/recovery-codes {password}: ten new recovery codes replacing the old
// ones, answered once {recoveryCodes}; needs the password entered again.
import { z } from "zod";
import { requireUserSession } from "~/staff/auth.server";
import { regenerateRecoveryCodes, requirePasswordAgain } from "~/staff/sign-in/two-factor.server";
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
  return json({ recoveryCodes: await regenerateRecoveryCodes(session.user, clientIp(context)) });
});
