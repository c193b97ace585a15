// POST /api/staff/:id/invitation: send the invitation of a user who has not joined again (a
// new link; the one sent before stops working); 409 once they have joined. See docs/api/staff.md.
import { auditor } from "~/audit/audit.server";
import { authorize } from "~/staff/auth.server";
import { resendInvitation } from "~/staff/staff.server";
import { apiRoute, json, methodNotAllowed } from "~/utils/http/api.server";
import type { ActionFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(() => methodNotAllowed(["POST"]));

export const action = apiRoute(async ({ request, params, context }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["POST"]);
  const actor = await authorize(request, "staff.manage");
  return json(await resendInvitation(actor, params.id!, auditor(context, actor)));
});
