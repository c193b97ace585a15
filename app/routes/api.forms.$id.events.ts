// POST /api/forms/:id/events: the drop-off funnel's beacon, sent by the hosted page and the
// embed script when a visitor first interacts with the form ("start") and reaches a step
// ("step", n). No login, no cookies read; 204 at once, counted or not, like the views
// beacon: app/capture/views/form-view-beacon.server.ts and docs/api/forms.md#drop-off-funnel.
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
  return countBeacon(request, params.id ?? "", { ip: clientIp(context) }, "event");
});

// Beside every view of a form: called straight from the server, skipping Remix's router
// (docs/decisions/004-direct-dispatch.md).
export const handle = { directDispatch: true };
