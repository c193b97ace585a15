// POST /api/forms/:id/views: the embed script's beacon, one per page view of a site that
// carries the form (no login, no cookies read). Counted in memory (app/capture/form-views.server.ts);
// the answer is 204 at once, counted or not: a disallowed origin, a bot, an archived form, a
// visitor counted within the last FORM_VIEW_DEDUPE_SECONDS and an address over its cap are
// ignored without a tell (decision 039: why not 429). Rules: docs/api/forms.md#form-views.
import { countView, isBotAgent } from "~/capture/form-views.server";
import { getPublicForm, isOriginAllowed } from "~/capture/public-form.server";
import { apiRoute, fail, methodNotAllowed, parseJsonText, readBodyText } from "~/utils/api.server";
import { invalidFields, type ErrorDetail } from "~/utils/domain-error";
import { env } from "~/utils/env.server";
import { clientIp } from "~/utils/request.server";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";

const APP_ORIGIN = new URL(env.APP_URL).origin;
const BEACON_BODY_LIMIT = 4 * 1024;

const BEACON_KEYS = ["utm_source", "utm_campaign", "referrerHost"] as const;
type Beacon = Partial<Record<(typeof BEACON_KEYS)[number], string>>;

/**
 * The beacon's JSON: an object whose known keys, when present, are strings (checked by hand:
 * a schema library cost a tenth of this endpoint's time). Other keys are ignored, so an
 * embed script newer or older than the server still counts; control characters drop a value.
 */
function readBeacon(text: string): Beacon {
  const body: unknown = text.trim() === "" ? {} : parseJsonText(text);
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw invalidFields([{ path: "(body)", message: "Send a JSON object." }]);
  }
  const problems: ErrorDetail[] = [];
  const beacon: Beacon = {};
  for (const key of BEACON_KEYS) {
    const value = (body as Record<string, unknown>)[key];
    if (value === undefined || value === null) continue;
    if (typeof value === "string") beacon[key] = value;
    else problems.push({ path: key, message: "Use a string." });
  }
  if (problems.length > 0) throw invalidFields(problems);
  return beacon;
}

function corsHeaders(origin: string | null): Record<string, string> {
  if (!origin) return { Vary: "Origin", "Cache-Control": "no-store" };
  // sendBeacon sends credentials; nothing here reads them, but without this the browser
  // reports the beacon as a CORS failure.
  return {
    Vary: "Origin",
    "Access-Control-Allow-Origin": origin,
    "Access-Control-Allow-Credentials": "true",
    "Cache-Control": "no-store",
  };
}

/** Preflight, for a client that sends JSON by fetch instead of a text/plain beacon. */
export const loader = apiRoute(async ({ request }: LoaderFunctionArgs) => {
  if (request.method !== "OPTIONS") methodNotAllowed(["POST", "OPTIONS"]);
  return new Response(null, {
    status: 204,
    headers: {
      ...corsHeaders(request.headers.get("Origin")),
      "Access-Control-Allow-Methods": "POST, OPTIONS",
      "Access-Control-Allow-Headers": "Content-Type",
      "Access-Control-Max-Age": "600",
    },
  });
});

export const action = apiRoute(async ({ request, params, context }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["POST", "OPTIONS"]);
  const origin = request.headers.get("Origin");
  const cors = corsHeaders(origin);
  const text = await readBodyText(request, BEACON_BODY_LIMIT);
  const beacon = readBeacon(text);
  const form = await getPublicForm(params.id ?? "");
  if (!form) fail(404, "not_found", "There is no form with this id.", { headers: cors });
  const allowed = isOriginAllowed(form, origin, () => new URL(request.url).origin) || origin === APP_ORIGIN;
  const userAgent = request.headers.get("User-Agent");
  if (allowed && form.status === "active" && !isBotAgent(userAgent)) {
    countView(
      form.id,
      { utmSource: beacon.utm_source, utmCampaign: beacon.utm_campaign, referrerHost: beacon.referrerHost },
      { ip: clientIp(context), userAgent },
    );
  }
  return new Response(null, { status: 204, headers: allowed ? cors : corsHeaders(null) });
});

// Every page view of every site with the embed script: called straight from the server,
// skipping Remix's router (docs/decisions/004-direct-dispatch.md).
export const handle = { directDispatch: true };
