// PATCH /api/staff/:id with {role?, disabled?}: change a staff user's role, disable or enable them.
// DELETE /api/staff/:id: revoke the invitation of a user who never joined (409 once they have).
import { auditor } from "~/audit/audit.server";
import { authorize } from "~/staff/auth.server";
import { revokeInvitation, updateStaff } from "~/staff/staff.server";
import { apiRoute, json, methodNotAllowed, readJsonBody } from "~/utils/http/api.server";
import type { ActionFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(() => methodNotAllowed(["PATCH", "DELETE"]));

export const action = apiRoute(async ({ request, params, context }: ActionFunctionArgs) => {
  if (request.method === "DELETE") {
    const actor = await authorize(request, "staff.manage");
    await revokeInvitation(actor, params.id!, auditor(context, actor));
    return new Response(null, { status: 204 });
  }
  if (request.method !== "PATCH") methodNotAllowed(["PATCH", "DELETE"]);
  const actor = await authorize(request, "staff.manage");
  const { member } = await updateStaff(actor, params.id!, await readJsonBody(request), auditor(context, actor));
  return json(member);
});
