// GET /api/leads/:id: one lead, labelled by its schema version, with its status, owner,
// tags, notes, timeline and history. PATCH {status?, ownerId?, tags?}: work it (200 with
// the lead). DELETE: 204. Unknown id: 404.
import { actorOf } from "~/audit/audit.server";
import { deleteLead } from "~/leads/lead-delete.server";
import { updateLead } from "~/leads/lead-work.server";
import { getLead } from "~/leads/lead.server";
import { authorize } from "~/staff/auth.server";
import { apiRoute, fail, json, methodNotAllowed, readJsonBody } from "~/utils/http/api.server";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";

function notFound(id: string): never {
  fail(404, "not_found", `No lead with id ${JSON.stringify(id)}.`);
}

export const loader = apiRoute(async ({ request, params }: LoaderFunctionArgs) => {
  await authorize(request, "leads.read");
  const id = params.id ?? "";
  const lead = await getLead(id);
  if (!lead) notFound(id);
  return json({ lead });
});

export const action = apiRoute(async ({ request, params, context }: ActionFunctionArgs) => {
  const id = params.id ?? "";
  if (request.method === "PATCH") {
    const user = await authorize(request, "leads.write");
    await updateLead(id, await readJsonBody(request), user);
    const lead = await getLead(id);
    if (!lead) notFound(id);
    return json({ lead });
  }
  if (request.method !== "DELETE") methodNotAllowed(["GET", "PATCH", "DELETE"]);
  const user = await authorize(request, "leads.write");
  if (!(await deleteLead(id, actorOf(user, context)))) notFound(id);
  return new Response(null, { status: 204 });
});
