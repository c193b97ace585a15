// GET /api/tokens: your API tokens (never the tokens themselves); ?userId= another user's,
// for owners and admins. POST /api/tokens with
// {name, scopes, expiresAt?, password?}: a new one, answered once with `token`; `password`
// is needed when the session's last password entry is older than 10 minutes
// (docs/api/tokens.md). Both need a session: a token cannot make or list tokens.
import { auditor } from "~/audit/audit.server";
import { createOwnApiToken, takePassword } from "~/staff/account-password.server";
import { listApiTokensFor } from "~/staff/api-tokens.server";
import { requireUserSession } from "~/staff/auth.server";
import { apiRoute, json, methodNotAllowed, readJsonBody } from "~/utils/http/api.server";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(async ({ request }: LoaderFunctionArgs) => {
  const { user } = await requireUserSession(request);
  const userId = new URL(request.url).searchParams.get("userId");
  return json({ items: await listApiTokensFor(user, userId) });
});

export const action = apiRoute(async ({ request, context }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["GET", "POST"]);
  const session = await requireUserSession(request);
  const { password, rest } = takePassword(await readJsonBody(request));
  const created = await createOwnApiToken(session, password, rest, auditor(context, session.user));
  return json(created, { status: 201, headers: { Location: `/api/tokens/${created.id}` } });
});
