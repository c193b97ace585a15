// GET /api/people/export?email=…: everything held for one email address as one JSON document
// (docs/api/privacy.md; decision 069). Owners and admins, with a login (no API token); audited.
import { actorOf } from "~/audit/audit.server";
import { exportPerson } from "~/privacy/person-data.server";
import { authorize } from "~/staff/auth.server";
import { apiRoute, json, methodNotAllowed } from "~/utils/http/api.server";
import type { LoaderFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(async ({ request, context }: LoaderFunctionArgs) => {
  const user = await authorize(request, "people.manage");
  const query = Object.fromEntries(new URL(request.url).searchParams);
  return json(await exportPerson(query, actorOf(user, context)));
});

export const action = apiRoute(() => methodNotAllowed(["GET"]));
