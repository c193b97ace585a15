// The embed script's view beacon (POST /api/forms/:id/views, no login, no cookies read):
// one per page view of a site that carries the form, counted in memory (form-views.server.ts).
// The answer is 204 at once, counted or not: a disallowed origin, a bot, an archived form, a
// visitor counted within the last FORM_VIEW_DEDUPE_SECONDS and an address over its cap are
// ignored without a tell (decision 039: why not 429). Rules: docs/api/forms.md#form-views.
import { invalidFields, type ErrorDetail } from "~/utils/domain-error";
import { env } from "~/utils/env.server";
import { fail, parseJsonText, readBodyText } from "~/utils/http/api.server";
import { countView, isBotAgent } from "./form-views.server";
import { getPublicForm, isOriginAllowed } from "./public-form.server";

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
export function beaconPreflight(request: Request): Response {
  return new Response(null, {
    status: 204,
    headers: {
      ...corsHeaders(request.headers.get("Origin")),
      "Access-Control-Allow-Methods": "POST, OPTIONS",
      "Access-Control-Allow-Headers": "Content-Type",
      "Access-Control-Max-Age": "600",
    },
  });
}

/**
 * Counts one beacon of the form `formId` unless it is to be ignored (see above), and
 * answers 204 either way; 404 for an unknown form, 422 for a malformed beacon.
 */
export async function countBeacon(request: Request, formId: string, meta: { ip: string }): Promise<Response> {
  const origin = request.headers.get("Origin");
  const cors = corsHeaders(origin);
  const text = await readBodyText(request, BEACON_BODY_LIMIT);
  const beacon = readBeacon(text);
  const form = await getPublicForm(formId);
  if (!form) fail(404, "not_found", "There is no form with this id.", { headers: cors });
  const allowed = isOriginAllowed(form, origin, () => new URL(request.url).origin) || origin === APP_ORIGIN;
  const userAgent = request.headers.get("User-Agent");
  if (allowed && form.status === "active" && !isBotAgent(userAgent)) {
    countView(
      form.id,
      { utmSource: beacon.utm_source, utmCampaign: beacon.utm_campaign, referrerHost: beacon.referrerHost },
      { ip: meta.ip, userAgent },
    );
  }
  return new Response(null, { status: 204, headers: allowed ? cors : corsHeaders(null) });
}
