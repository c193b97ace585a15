// POST /api/leads/partial: a partial lead from a form with settings.capturePartial (no
// login): the answers of the steps a visitor completed, once they hold a valid email.
// The policy is app/capture/partial-lead.server.ts; rules: docs/api/lead-capture.md.
import { submitPreflight } from "~/capture/lead-submit.server";
import { partialLead } from "~/capture/partial-lead.server";
import { apiRoute, methodNotAllowed } from "~/utils/http/api.server";
import { clientIp } from "~/utils/http/request.server";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";

/** Preflight: any origin may ask (the form is named in the body). */
export const loader = apiRoute(({ request }: LoaderFunctionArgs) => {
  if (request.method !== "OPTIONS") methodNotAllowed(["POST", "OPTIONS"]);
  return submitPreflight(request);
});

export const action = apiRoute(({ request, context }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["POST", "OPTIONS"]);
  return partialLead(request, { ip: clientIp(context) });
});
