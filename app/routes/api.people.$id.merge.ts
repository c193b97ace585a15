// POST /api/people/:id/merge {"into": "<id>"}: joins this person into another, who keeps
// every address as an alias with its leads and tickets; answers the joined person as GET
// /api/people/:id does (docs/api/people.md; decision 071).
import { actorOf } from "~/audit/audit.server";
import { mergePerson } from "~/people/person-merge.server";
import { authorize } from "~/staff/auth.server";
import { apiRoute, json, methodNotAllowed, readJsonBody } from "~/utils/http/api.server";
import type { ActionFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(() => methodNotAllowed(["POST"]));

export const action = apiRoute(async ({ request, params, context }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["POST"]);
  const user = await authorize(request, "people.merge");
  return json(await mergePerson(params.id ?? "", await readJsonBody(request), actorOf(user, context)));
});
