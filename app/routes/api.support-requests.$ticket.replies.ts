// POST: a staff reply. It joins the thread at once and is emailed by the outbox worker.
import { requireStaff } from "~/staff/auth.server";
import { ReplyBodySchema } from "~/support/support-schemas";
import { addStaffReply } from "~/support/support.server";
import { apiRoute, json, methodNotAllowed, parseOrFail, readJsonBody } from "~/utils/http/api.server";
import type { ActionFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(() => methodNotAllowed(["POST"]));

export const action = apiRoute(async ({ request, params, context }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["POST"]);
  const caller = await requireStaff(request, context, "support.write");
  const { message } = parseOrFail(ReplyBodySchema, await readJsonBody(request));
  const result = await addStaffReply(params.ticket!, message, caller);
  return json(result, 201);
});
