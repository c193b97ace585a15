// GET /api/people/:id?cursor=: one person with their addresses and a page of their timeline
// (docs/api/people.md; decision 071). /api/people/export and /erase are routes of their own.
import { getPerson } from "~/people/people.server";
import { authorize } from "~/staff/auth.server";
import { apiRoute, json, methodNotAllowed } from "~/utils/http/api.server";
import type { LoaderFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(async ({ request, params }: LoaderFunctionArgs) => {
  await authorize(request, "people.read");
  return json(await getPerson(params.id ?? "", Object.fromEntries(new URL(request.url).searchParams)));
});

export const action = apiRoute(() => methodNotAllowed(["GET"]));
