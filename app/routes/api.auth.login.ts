import { InvalidCredentialsError, LoginSchema, assertSameOrigin, withLoginLimits } from "~/staff/auth.server";
import { commitUserSession } from "~/staff/session-cookie.server";
import { verifyLogin } from "~/staff/user.server";
import { apiRoute, fail, json, methodNotAllowed, parseOrFail, readJsonBody } from "~/utils/http/api.server";
import { clientIp } from "~/utils/http/request.server";
import type { ActionFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(() => methodNotAllowed(["POST"]));

export const action = apiRoute(async ({ request, context }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["POST"]);
  assertSameOrigin(request);
  const { email, password } = parseOrFail(LoginSchema, await readJsonBody(request));
  try {
    const user = await withLoginLimits(clientIp(context), email, async () => {
      const found = await verifyLogin(email, password);
      if (!found) throw new InvalidCredentialsError();
      return found;
    });
    return json({ user }, { headers: { "Set-Cookie": await commitUserSession(user.id, request, clientIp(context)) } });
  } catch (error) {
    if (error instanceof InvalidCredentialsError) {
      fail(401, "invalid_credentials", "Invalid email or password.");
    }
    throw error;
  }
});
