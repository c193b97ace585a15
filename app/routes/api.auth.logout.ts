import { assertSameOrigin } from "~/staff/auth.server";
import { destroySessionCookie } from "~/staff/session-cookie.server";
import { apiRoute, methodNotAllowed } from "~/utils/http/api.server";
import type { ActionFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(() => methodNotAllowed(["POST"]));

export const action = apiRoute(async ({ request }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["POST"]);
  assertSameOrigin(request);
  return new Response(null, {
    status: 204,
    headers: { "Set-Cookie": await destroySessionCookie(request) },
  });
});
