// GET: a support request, its thread and its notes. PATCH: change its status or assignee.
// `:ticket` is the id or the reference in any letter case (SR-1042, sr-1042).
import { requireStaff } from "~/staff/auth.server";
import { TicketPatchSchema } from "~/support/support-schemas";
import { getTicketThread, updateTicket } from "~/support/support.server";
import { apiRoute, fail, json, methodNotAllowed, parseOrFail, readJsonBody } from "~/utils/http/api.server";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(async ({ request, params, context }: LoaderFunctionArgs) => {
  await requireStaff(request, context, "support.read");
  const thread = await getTicketThread(params.ticket!);
  if (!thread) fail(404, "not_found", `No support request ${params.ticket}.`);
  return json({ ticket: thread });
});

export const action = apiRoute(async ({ request, params, context }: ActionFunctionArgs) => {
  if (request.method !== "PATCH") methodNotAllowed(["GET", "PATCH"]);
  await requireStaff(request, context, "support.write");
  const patch = parseOrFail(TicketPatchSchema, await readJsonBody(request));
  return json({ ticket: await updateTicket(params.ticket!, patch) });
});
