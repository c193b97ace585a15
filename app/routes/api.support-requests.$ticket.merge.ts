// POST {into}: merges the support request into another (docs/api/support.md#merging): its thread
// and notes move there, it is closed with a pointer to it, and later replies to it are filed there.
import { requireStaff } from "~/staff/auth.server";
import { MergeSchema } from "~/support/support-schemas";
import { mergeTicket } from "~/support/ticket-merge.server";
import { apiRoute, json, methodNotAllowed, parseOrFail, readJsonBody } from "~/utils/http/api.server";
import { clientIp } from "~/utils/http/request.server";
import type { ActionFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(() => methodNotAllowed(["POST"]));

export const action = apiRoute(async ({ request, params, context }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["POST"]);
  const caller = await requireStaff(request, context, "support.write");
  const { into } = parseOrFail(MergeSchema, await readJsonBody(request));
  const merged = await mergeTicket(params.ticket!, into, { user: caller.user, ip: clientIp(context) });
  return json({ merged });
});
