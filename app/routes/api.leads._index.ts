// GET /api/leads: the filtered lead list, newest first, keyset-paginated.
import { leadListQueryOrFail } from "~/models/lead-filters.server";
import { listLeads } from "~/models/lead.server";
import { apiRoute, json, methodNotAllowed } from "~/utils/api.server";
import { authorize } from "~/utils/auth.server";
import type { LoaderFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(async ({ request }: LoaderFunctionArgs) => {
  await authorize(request, "leads.read");
  const query = leadListQueryOrFail(new URL(request.url).searchParams);
  return json(await listLeads(query));
});

export const action = apiRoute(() => methodNotAllowed(["GET"]));

// The server calls this loader directly, skipping Remix's router: the dashboard's list
// is the most frequent staff request (docs/decisions/004-direct-dispatch.md).
export const handle = { directDispatch: true };
