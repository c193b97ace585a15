// POST /api/people/erase {"email", "confirm": true}: deletes everything held for one email
// address in one transaction and answers with what went, by kind (docs/api/privacy.md;
// decision 069). Owners and admins, with a login (no API token); audited with a hash only.
import { actorOf } from "~/audit/audit.server";
import { erasePerson } from "~/privacy/person-data.server";
import { authorize } from "~/staff/auth.server";
import { apiRoute, json, methodNotAllowed, readJsonBody } from "~/utils/http/api.server";
import type { ActionFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(() => methodNotAllowed(["POST"]));

export const action = apiRoute(async ({ request, context }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["POST"]);
  const user = await authorize(request, "people.manage");
  const erased = await erasePerson(await readJsonBody(request), actorOf(user, context));
  return json({ erased });
});
