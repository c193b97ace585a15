// GET /api/leads/:id: one lead, labelled by its schema version. DELETE: 204, or 404.
import { auditor } from "~/models/audit.server";
import { deleteLead, getLead } from "~/models/lead.server";
import { apiRoute, fail, json, methodNotAllowed } from "~/utils/api.server";
import { authorize } from "~/utils/auth.server";
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
  if (request.method !== "DELETE") methodNotAllowed(["GET", "DELETE"]);
  const user = await authorize(request, "leads.write");
  const id = params.id ?? "";
  if (!(await deleteLead(id))) notFound(id);
  await auditor(context, user)("lead.delete", `lead:${id}`);
  return new Response(null, { status: 204 });
});
