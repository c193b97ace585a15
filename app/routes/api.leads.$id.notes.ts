// POST /api/leads/:id/notes {body}: a staff note on the lead's timeline (201).
import { addLeadNote } from "~/leads/lead-work.server";
import { authorize } from "~/staff/auth.server";
import { apiRoute, json, methodNotAllowed, readJsonBody } from "~/utils/http/api.server";
import type { ActionFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(() => methodNotAllowed(["POST"]));

export const action = apiRoute(async ({ request, params }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["POST"]);
  const user = await authorize(request, "leads.write");
  return json({ note: await addLeadNote(params.id ?? "", await readJsonBody(request), user) }, 201);
});
