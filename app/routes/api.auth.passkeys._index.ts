// GET /api/auth/passkeys: the session user's passkeys (docs/api/auth.md#passkeys).
import { requireUserSession } from "~/staff/auth.server";
import { listPasskeys } from "~/staff/sign-in/passkeys.server";
import { apiRoute, json, methodNotAllowed } from "~/utils/http/api.server";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(async ({ request }: LoaderFunctionArgs) => {
  const { user } = await requireUserSession(request);
  return json({ passkeys: await listPasskeys(user.id) });
});

export const action = apiRoute(async (_args: ActionFunctionArgs) => methodNotAllowed(["GET"]));
