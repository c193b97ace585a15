// POST /api/auth/2fa/enable {code}: turns two-factor on with a first code of the secret from
// setup; answers {recoveryCodes}, the only time they are shown (docs/api/auth.md).
import { z } from "zod";
import { requireUserSession } from "~/staff/auth.server";
import { enableTwoFactor } from "~/staff/sign-in/two-factor.server";
import { apiRoute, json, methodNotAllowed, parseOrFail, readJsonBody } from "~/utils/http/api.server";
import { clientIp } from "~/utils/http/request.server";
import type { ActionFunctionArgs } from "@remix-run/node";

const EnableSchema = z.strictObject({ code: z.string().max(64) });

export const loader = apiRoute(() => methodNotAllowed(["POST"]));

export const action = apiRoute(async ({ request, context }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["POST"]);
  const { user } = await requireUserSession(request);
  const { code } = parseOrFail(EnableSchema, await readJsonBody(request));
  return json({ recoveryCodes: await enableTwoFactor(user, code, clientIp(context)) });
});
