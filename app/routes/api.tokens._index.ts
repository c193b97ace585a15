// GET /api/tokens: your API tokens (never the tokens themselves); ?userId= another user's,
// for owners and admins. POST /api/tokens with
// {name, scopes, expiresAt?, password?}: a new one, answered once with `token`; `password`
// is needed when the session's last password entry is older than 10 minutes
// (docs/api/tokens.md). Both need a session: a token cannot make or list tokens.
import { auditor } from "~/audit/audit.server";
import { requireRecentPassword, takePassword } from "~/staff/account-password.server";
import { createApiToken, listApiTokens } from "~/staff/api-tokens.server";
import { requireUserSession } from "~/staff/auth.server";
import { canChangeStaff } from "~/staff/policy";
import { db } from "~/storage/db.server";
import { apiRoute, fail, json, methodNotAllowed, readJsonBody } from "~/utils/api.server";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(async ({ request }: LoaderFunctionArgs) => {
  const { user } = await requireUserSession(request);
  const userId = new URL(request.url).searchParams.get("userId");
  if (userId && userId !== user.id) {
    const other = await db.user.findUnique({ where: { id: userId }, select: { role: true } });
    // Whoever may change that user (staff.manage; an owner's, only an owner).
    if (!other || !canChangeStaff(user, other)) {
      fail(403, "forbidden", "Only owners and admins see other people's tokens (an owner's, only an owner).", {
        details: [{ path: "permission", message: "staff.manage" }],
      });
    }
  }
  return json({ items: await listApiTokens(userId ?? user.id) });
});

export const action = apiRoute(async ({ request, context }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["GET", "POST"]);
  const session = await requireUserSession(request);
  const { user } = session;
  const { password, rest } = takePassword(await readJsonBody(request));
  await requireRecentPassword(session, password);
  const created = await createApiToken(user, rest);
  await auditor(context, user)("token.create", `token:${created.id}`, { name: created.name, scopes: created.scopes });
  return json(created, { status: 201, headers: { Location: `/api/tokens/${created.id}` } });
});
