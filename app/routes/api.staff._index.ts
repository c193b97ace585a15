// GET /api/staff: every staff user with their role and status. POST /api/staff with
// {email, role, name?}: invite one (201, status "invited"; docs/api/staff.md).
import { auditor } from "~/audit/audit.server";
import { authorize } from "~/staff/auth.server";
import { inviteStaff, listStaff } from "~/staff/staff.server";
import { apiRoute, json, methodNotAllowed, readJsonBody } from "~/utils/http/api.server";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(async ({ request }: LoaderFunctionArgs) => {
  await authorize(request, "staff.read");
  return json({ items: await listStaff() });
});

export const action = apiRoute(async ({ request, context }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["GET", "POST"]);
  const actor = await authorize(request, "staff.manage");
  const member = await inviteStaff(actor, await readJsonBody(request), auditor(context, actor));
  return json(member, { status: 201, headers: { Location: `/api/staff/${member.id}` } });
});
