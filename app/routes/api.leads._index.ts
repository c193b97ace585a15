// GET /api/leads: the filtered lead list, newest first, keyset-paginated; `count=true`
// adds `total`, the number of leads matching the filters. `partial=true` lists the partial
// leads instead (decision 060), which the lead list never includes; `partial=all` both.
import { forViewer, leadListQueryOrFail } from "~/leads/lead-filters.server";
import { listLeads } from "~/leads/lead.server";
import { listLeadsAndPartials, listPartialLeads, partialQueryOrFail } from "~/leads/partial-leads.server";
import { authorize } from "~/staff/auth.server";
import { apiRoute, fail, json, methodNotAllowed } from "~/utils/http/api.server";
import type { LoaderFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(async ({ request }: LoaderFunctionArgs) => {
  const user = await authorize(request, "leads.read");
  const params = new URL(request.url).searchParams;
  const partial = params.get("partial");
  if (partial === "true") return json(await listPartialLeads(partialQueryOrFail(params)));
  if (partial === "all") return json(await listLeadsAndPartials(partialQueryOrFail(params)));
  if (partial !== null && partial !== "false") {
    fail(422, "validation_failed", "The query has invalid parameters.", {
      details: [
        {
          path: "partial",
          message: "Use true (the partial leads), all (leads and partial leads) or false (the leads, as without it).",
        },
      ],
    });
  }
  params.delete("partial");
  const query = forViewer(leadListQueryOrFail(params), user.id);
  const count = params.get("count");
  if (count !== null && count !== "true" && count !== "false") {
    fail(422, "validation_failed", "The query has invalid parameters.", {
      details: [{ path: "count", message: "Use true or false." }],
    });
  }
  return json(await listLeads(query, { count: count === "true" }));
});

export const action = apiRoute(() => methodNotAllowed(["GET"]));

// The server calls this loader directly, skipping Remix's router: the dashboard's list
// is the most frequent staff request (docs/decisions/004-direct-dispatch.md).
export const handle = { directDispatch: true };
