// GET /api/settings/security: the team's sign-in rules; PATCH {requireTwoFactor?,
// tokensWithoutTwoFactor?} changes them. Owners only, with a session (docs/api/auth.md#requiring-two-factor).
import { authorize } from "~/staff/auth.server";
import { getSecurityPolicy, updateSecurityPolicy } from "~/staff/sign-in/security-policy.server";
import { apiRoute, json, methodNotAllowed, readJsonBody } from "~/utils/http/api.server";
import { clientIp } from "~/utils/http/request.server";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(async ({ request }: LoaderFunctionArgs) => {
  await authorize(request, "security.manage");
  return json(await getSecurityPolicy());
});

export const action = apiRoute(async ({ request, context }: ActionFunctionArgs) => {
  if (request.method !== "PATCH") methodNotAllowed(["GET", "PATCH"]);
  const user = await authorize(request, "security.manage");
  return json(await updateSecurityPolicy(user, await readJsonBody(request), clientIp(context)));
});
