// POST /api/forms/:id/views: the embed script's beacon, one per page view of a site that
// carries the form (no login, no cookies read); 204 at once, counted or not. What is
// counted and what is ignored: app/capture/views/form-view-beacon.server.ts and
// docs/api/forms.md#form-views.
import { beaconPreflight, countBeacon } from "~/capture/views/form-view-beacon.server";
import { apiRoute, methodNotAllowed } from "~/utils/http/api.server";
import { clientIp } from "~/utils/http/request.server";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";

/** Preflight, for a client that sends JSON by fetch instead of a text/plain beacon. */
export const loader = apiRoute(({ request }: LoaderFunctionArgs) => {
  if (request.method !== "OPTIONS") methodNotAllowed(["POST", "OPTIONS"]);
  return beaconPreflight(request);
});

export const action = apiRoute(({ request, params, context }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["POST", "OPTIONS"]);
  return countBeacon(request, params.id ?? "", { ip: clientIp(context) });
});

// Every page view of every site with the embed script: called straight from the server,
// skipping Remix's router (docs/decisions/004-direct-dispatch.md).
export const handle = { directDispatch: true };
