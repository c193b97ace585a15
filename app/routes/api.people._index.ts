// GET /api/people?q=&cursor=: people, newest first, keyset-paginated (docs/api/people.md;
// decision 071); `q` finds a person by an address or their name.
import { listPeople } from "~/people/people.server";
import { authorize } from "~/staff/auth.server";
import { apiRoute, json, methodNotAllowed } from "~/utils/http/api.server";
import type { LoaderFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(async ({ request }: LoaderFunctionArgs) => {
  await authorize(request, "people.read");
  return json(await listPeople(Object.fromEntries(new URL(request.url).searchParams)));
});

export const action = apiRoute(() => methodNotAllowed(["GET"]));
