// POST /api/leads/bulk {ids: [...]} | {filter: {...}} | {all: true}, {action, value?}: one
// action over many leads, in keyset batches; answers {affected}. See docs/api/leads.md.
import { actorOf } from "~/audit/audit.server";
import { BULK_BODY_LIMIT, bulkUpdate, parseBulkRequest } from "~/leads/bulk/lead-bulk.server";
import { authorize } from "~/staff/auth.server";
import { apiRoute, json, methodNotAllowed, readJsonBody } from "~/utils/http/api.server";
import type { ActionFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(() => methodNotAllowed(["POST"]));

export const action = apiRoute(async ({ request, context }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["POST"]);
  const user = await authorize(request, "leads.write");
  const bulk = parseBulkRequest(await readJsonBody(request, BULK_BODY_LIMIT), user.id);
  const affected = await bulkUpdate(bulk, actorOf(user, context));
  return json({ affected });
});
