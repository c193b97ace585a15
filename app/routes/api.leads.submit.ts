// POST /api/leads/submit: the public lead submission endpoint (no login), called by
// scripts (JSON), by the embed script (multipart, Accept: application/json) and by
// plain HTML forms on any website (URL-encoded or multipart: answered with redirects).
// Rules and examples: docs/api/lead-capture.md.
import {
  idempotencyKeyOf,
  limitSubmissions,
  storeLead,
  SUBMISSION_BODY_LIMIT,
  validateSubmission,
} from "~/capture/lead-capture.server";
import { signErrors } from "~/capture/lead-signatures.server";
import { isPlainObject, parseSubmission, submissionKind, type Submission } from "~/capture/lead-submission.server";
import { findOpenForm, isOriginAllowed, type PublicForm } from "~/capture/public-form.server";
import { keepDraft, leadDraftScope, markSettled, newAttempt, type DraftValues } from "~/capture/visitor-drafts.server";
import { isBrowserPost, isFormPost, visitorPage } from "~/capture/visitor-page.server";
import { UTM_KEYS } from "~/leads/lead-fields";
import {
  apiRoute,
  domainErrorHeaders,
  domainErrorResponse,
  errorResponse,
  json,
  methodNotAllowed,
  readBodyText,
  statusOf,
} from "~/utils/api.server";
import { DomainError } from "~/utils/domain-error";
import { env } from "~/utils/env.server";
import { clientIp } from "~/utils/request.server";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";

const APP_ORIGIN = new URL(env.APP_URL).origin;

/**
 * Preflight. It cannot know the form (the formId is in the body), so it lets any
 * origin ask; the POST itself is refused (403) when the form does not allow the origin.
 */
export const loader = apiRoute(async ({ request }: LoaderFunctionArgs) => {
  if (request.method !== "OPTIONS") methodNotAllowed(["POST", "OPTIONS"]);
  const origin = request.headers.get("Origin");
  return new Response(null, {
    status: 204,
    headers: {
      "Access-Control-Allow-Origin": origin ?? "*",
      "Access-Control-Allow-Methods": "POST, OPTIONS",
      "Access-Control-Allow-Headers": "Content-Type, Accept, Idempotency-Key",
      "Access-Control-Max-Age": "600",
      Vary: "Origin, Access-Control-Request-Headers",
      "Cache-Control": "no-store",
    },
  });
});

export const action = apiRoute(async ({ request, context }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["POST", "OPTIONS"]);
  const origin = request.headers.get("Origin");
  // Until the form is known, any page may read our refusal (it names no form's data).
  let corsOrigin: string | null = origin;
  let form: PublicForm | null = null;
  let submission: Submission | null = null;
  try {
    const contentType = request.headers.get("Content-Type") ?? "";
    submissionKind(contentType); // an unsupported type is refused before the body is read
    submission = await parseSubmission({
      contentType,
      body: await readBodyText(request, SUBMISSION_BODY_LIMIT),
      referer: request.headers.get("Referer"),
    });
    form = await findOpenForm(submission.formId);
    const ownOrigin = () => new URL(request.url).origin;
    if (!isOriginAllowed(form, origin, ownOrigin) && origin !== APP_ORIGIN) {
      corsOrigin = null;
      const message = "This form does not accept submissions from this website.";
      // The embed script's fetch fails on CORS and falls back to a plain post: the visitor
      // gets a page with a way back to the site, not our JSON.
      if (answersWithPage(request, submission)) {
        return visitorPage(403, {
          title: "Your submission was not accepted",
          message,
          referer: request.headers.get("Referer"),
          headers: { Vary: "Origin" },
        });
      }
      return errorResponse(403, "origin_not_allowed", message, { headers: { Vary: "Origin" } });
    }
    await limitSubmissions(form.id, clientIp(context));
    const idempotencyKey = idempotencyKeyOf(request.headers.get("Idempotency-Key"));
    const lead = validateSubmission(form, submission, Date.now(), request.headers.get("User-Agent"));
    const stored = await storeLead(lead, form, {
      ip: clientIp(context),
      userAgent: request.headers.get("User-Agent"),
      idempotencyKey,
    });
    if (submission.retryOf) {
      // Only what Back to the old errors page says: never worth failing a stored lead over.
      await markSettled(leadDraftScope(form.id), submission.retryOf).catch((error) =>
        console.error("marking a refused post settled failed:", error),
      );
    }
    if (wantsRedirect(request, submission)) {
      return redirect303(form.settings.redirectUrl ?? `/f/${encodeURIComponent(form.id)}/thanks`, corsOrigin);
    }
    return json(
      { id: stored.lead.id, formId: stored.lead.formId, createdAt: stored.lead.createdAt.toISOString() },
      { status: stored.replayed ? 200 : 201, headers: corsHeaders(corsOrigin) },
    );
  } catch (thrown) {
    if (!(thrown instanceof DomainError)) throw thrown;
    return await answerRefusal(request, thrown, corsOrigin, form, submission);
  }
});

function corsHeaders(origin: string | null): Record<string, string> {
  if (!origin) return { Vary: "Origin" };
  return { Vary: "Origin", "Access-Control-Allow-Origin": origin, "Access-Control-Expose-Headers": "Retry-After" };
}

/** A plain HTML form post (no script asked for JSON) is answered with redirects and pages. */
function wantsRedirect(request: Request, submission: Submission | null): boolean {
  const formPost = submission ? submission.mode === "form" : isFormPost(request);
  return formPost && !(request.headers.get("Accept") ?? "").includes("application/json");
}

/** A refusal to a person's browser is a page; a JSON body always gets JSON. */
function answersWithPage(request: Request, submission: Submission | null): boolean {
  const jsonBody = submission ? submission.mode === "json" : /json/i.test(request.headers.get("Content-Type") ?? "");
  return !jsonBody && isBrowserPost(request);
}

function redirect303(location: string, corsOrigin: string | null): Response {
  return new Response(null, {
    status: 303,
    headers: { Location: location, "Cache-Control": "no-store", ...corsHeaders(corsOrigin) },
  });
}

/**
 * A refusal as JSON (adding CORS headers), or for a plain HTML form post: a validation
 * failure goes back to the hosted form with the problems named by field and what was
 * typed kept, and anything else becomes a short HTML page when a browser posted.
 */
async function answerRefusal(
  request: Request,
  refusal: DomainError,
  corsOrigin: string | null,
  form: PublicForm | null,
  submission: Submission | null,
): Promise<Response> {
  const status = statusOf(refusal);
  if (wantsRedirect(request, submission) && refusal.code === "validation_failed" && form && submission) {
    return redirect303(await hostedFormWithErrors(form, submission, refusal.details), corsOrigin);
  }
  const response = answersWithPage(request, submission)
    ? visitorPage(status, {
        title: "Your submission was not accepted",
        message: refusal.message,
        referer: request.headers.get("Referer"),
        headers: domainErrorHeaders(refusal),
      })
    : domainErrorResponse(refusal);
  for (const [name, value] of Object.entries(corsHeaders(corsOrigin))) response.headers.set(name, value);
  return response;
}

async function hostedFormWithErrors(
  form: PublicForm,
  submission: Submission,
  details: { path: string; message: string }[],
): Promise<string> {
  const errors: Record<string, string> = {};
  for (const detail of details) {
    const key = detail.path.startsWith("data.") ? detail.path.slice(5) : "_form";
    errors[key] ??= key === "_form" ? `${detail.path}: ${detail.message}` : detail.message;
  }
  // Tracking travels back with the visitor so that the next try still carries it; the
  // values they typed stay on the server under a random token (personal data stays out
  // of URLs and logs), so the form comes back filled in.
  const params = new URLSearchParams();
  const utm = (submission.utm ?? {}) as Record<string, unknown>;
  for (const key of UTM_KEYS) {
    const value = utm[key];
    if (typeof value === "string" && value) params.set(key, value.slice(0, 200));
  }
  if (typeof submission.referrerUrl === "string" && submission.referrerUrl)
    params.set("ref", submission.referrerUrl.slice(0, 2048));
  if (typeof submission.landingPageUrl === "string" && submission.landingPageUrl) {
    params.set("landing", submission.landingPageUrl.slice(0, 2048));
  }
  const signed = signErrors(form.id, errors);
  params.set("errors", signed.errors);
  params.set("sig", signed.sig);
  params.set("attempt", newAttempt());
  const values = typedValues(form, submission);
  if (Object.keys(values).length > 0) params.set("draft", await keepDraft(leadDraftScope(form.id), { values }));
  return `/f/${encodeURIComponent(form.id)}?${params}`;
}

/** The posted values of the form's visible fields (hidden fields keep their own value). */
function typedValues(form: PublicForm, submission: Submission): DraftValues {
  const values: DraftValues = {};
  if (!isPlainObject(submission.data)) return values;
  for (const field of form.fields) {
    if (field.type === "hidden") continue;
    const value = submission.data[field.key];
    if (typeof value === "string" || (Array.isArray(value) && value.every((item) => typeof item === "string"))) {
      values[field.key] = value as string | string[];
    }
  }
  return values;
}

// The server calls this route's loader and action directly, skipping Remix's router
// (docs/decisions/004-direct-dispatch.md): this endpoint takes every website's traffic.
export const handle = { directDispatch: true };
