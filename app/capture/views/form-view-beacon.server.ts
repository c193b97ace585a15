// The embed script's view beacon (POST /api/forms/:id/views, no login, no cookies read):
// one per page view of a site that carries the form, counted in memory (form-views.server.ts).
// The answer is 204 at once, counted or not: a disallowed origin, a bot, an archived form, a
// visitor counted within the last FORM_VIEW_DEDUPE_SECONDS and an address over its cap are
// ignored without a tell (decision 039: why not 429). Rules: docs/api/forms.md#form-views.
// The funnel's beacon (POST /api/forms/:id/events: a visitor's first interaction, a step
// reached) follows the same rules (docs/api/forms.md#drop-off-funnel, decision 059).
import { MAX_STEPS, formSteps } from "~/forms/schema/form-steps";
import { invalidFields, type ErrorDetail } from "~/utils/domain-error";
import { env } from "~/utils/env.server";
import { fail, parseJsonText, readBodyText } from "~/utils/http/api.server";
import { getPublicForm, isOriginAllowed } from "../public-form.server";
import { STARTED_STAGE, countFunnelStage, countView, isBotAgent } from "./form-views.server";

const APP_ORIGIN = new URL(env.APP_URL).origin;
const BEACON_BODY_LIMIT = 4 * 1024;

const BEACON_KEYS = ["utm_source", "utm_campaign", "referrerHost"] as const;
type Beacon = Partial<Record<(typeof BEACON_KEYS)[number], string>>;
type EventBeacon = Beacon & { stage: number };

/**
 * The beacon's JSON: an object whose known keys, when present, are strings (checked by hand:
 * a schema library cost a tenth of this endpoint's time). Other keys are ignored, so an
 * embed script newer or older than the server still counts; control characters drop a value.
 */
function readBeacon(text: string): Beacon {
  const body = readObject(text);
  const problems: ErrorDetail[] = [];
  const beacon = sourceOf(body, problems);
  if (problems.length > 0) throw invalidFields(problems);
  return beacon;
}

function readObject(text: string): Record<string, unknown> {
  const body: unknown = text.trim() === "" ? {} : parseJsonText(text);
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw invalidFields([{ path: "(body)", message: "Send a JSON object." }]);
  }
  return body as Record<string, unknown>;
}

function sourceOf(body: Record<string, unknown>, problems: ErrorDetail[]): Beacon {
  const beacon: Beacon = {};
  for (const key of BEACON_KEYS) {
    const value = (body as Record<string, unknown>)[key];
    if (value === undefined || value === null) continue;
    if (typeof value === "string") beacon[key] = value;
    else problems.push({ path: key, message: "Use a string." });
  }
  return beacon;
}

/**
 * The funnel beacon's JSON: `type` "start" (the visitor's first interaction) or "step" with
 * `step` n from 2 (step 1 is where everyone starts: its count is "started"), and the source.
 */
function readEventBeacon(text: string): EventBeacon {
  const body = readObject(text);
  const problems: ErrorDetail[] = [];
  const source = sourceOf(body, problems);
  let stage = STARTED_STAGE;
  if (body.type === "step") {
    const step = body.step;
    if (typeof step === "number" && Number.isInteger(step) && step >= 2 && step <= MAX_STEPS) stage = step;
    else problems.push({ path: "step", message: `Send the step reached, a whole number from 2 to ${MAX_STEPS}.` });
  } else if (body.type !== "start") {
    problems.push({ path: "type", message: 'Use "start" or "step".' });
  }
  if (problems.length > 0) throw invalidFields(problems);
  return { ...source, stage };
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
 * answers 204 either way; 404 for an unknown form, 422 for a malformed beacon. `kind` says
 * which: a view, or a stage of the funnel.
 */
export async function countBeacon(
  request: Request,
  formId: string,
  meta: { ip: string },
  kind: "view" | "event" = "view",
): Promise<Response> {
  const origin = request.headers.get("Origin");
  const cors = corsHeaders(origin);
  const text = await readBodyText(request, BEACON_BODY_LIMIT);
  const beacon: Beacon & { stage?: number } = kind === "view" ? readBeacon(text) : readEventBeacon(text);
  const form = await getPublicForm(formId);
  if (!form) fail(404, "not_found", "There is no form with this id.", { headers: cors });
  const allowed = isOriginAllowed(form, origin, () => new URL(request.url).origin) || origin === APP_ORIGIN;
  const userAgent = request.headers.get("User-Agent");
  if (allowed && form.status === "active" && !isBotAgent(userAgent)) {
    const source = {
      utmSource: beacon.utm_source,
      utmCampaign: beacon.utm_campaign,
      referrerHost: beacon.referrerHost,
    };
    const visitor = { ip: meta.ip, userAgent };
    if (beacon.stage === undefined) countView(form.id, source, visitor);
    // A step past the form's last (a page drawn before the form lost steps) is not counted.
    else if (beacon.stage <= formSteps(form.fields).length) countFunnelStage(form.id, beacon.stage, source, visitor);
  }
  return new Response(null, { status: 204, headers: allowed ? cors : corsHeaders(null) });
}
