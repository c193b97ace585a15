// POST /api/leads/submit: the public lead submission endpoint (no login), called by
// scripts (JSON), by the embed script (multipart, Accept: application/json) and by
// plain HTML forms on any website (URL-encoded or multipart: answered with redirects).
// Its policy (origins, CORS, limits, answers) is app/capture/lead-submit.server.ts.
// Rules and examples: docs/api/lead-capture.md.
import { submitLead, submitPreflight } from "~/capture/lead-submit.server";
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
  return submitLead(request, { ip: clientIp(context) });
});

// The server calls this route's loader and action directly, skipping Remix's router
// (docs/decisions/004-direct-dispatch.md): this endpoint takes every website's traffic.
export const handle = { directDispatch: true };
