// PATCH /api/staff/:id with {role?, disabled?}: change a staff user's role, disable or enable them.
import { auditor } from "~/models/audit.server";
import { updateStaff } from "~/models/staff.server";
import { apiRoute, json, methodNotAllowed, readJsonBody } from "~/utils/api.server";
import { authorize } from "~/utils/auth.server";
import type { ActionFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(() => methodNotAllowed(["PATCH"]));

export const action = apiRoute(async ({ request, params, context }: ActionFunctionArgs) => {
  if (request.method !== "PATCH") methodNotAllowed(["PATCH"]);
  const actor = await authorize(request, "staff.manage");
  const change = await readJsonBody(request);
  const member = await updateStaff(actor, params.id!, change);
  await auditor(context, actor)("staff.update", `user:${member.id}`, { email: member.email, change });
  return json(member);
});
