// GET /api/leads: the filtered lead list, newest first, keyset-paginated.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { leadListQueryOrFail, listLeads } from "~/models/lead.server";
import { apiRoute, json, methodNotAllowed } from "~/utils/api.server";
import { requireUser } from "~/utils/auth.server";

export const loader = apiRoute(async ({ request }: LoaderFunctionArgs) => {
  await requireUser(request);
  const query = leadListQueryOrFail(new URL(request.url).searchParams);
  return json(await listLeads(query));
});

export const action = apiRoute(() => methodNotAllowed(["GET"]));

// server.js calls this loader directly, skipping Remix's router: the dashboard's list
// is the most frequent staff request (docs/decisions/004-direct-dispatch.md).
export const handle = { directDispatch: true };
