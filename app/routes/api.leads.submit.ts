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
} from "~/models/lead-capture.server";
import { UTM_KEYS } from "~/models/lead-fields";
import { signErrors } from "~/models/lead-signatures.server";
import { parseSubmission, submissionKind, type Submission } from "~/models/lead-submission.server";
import { findOpenForm, isOriginAllowed, type PublicForm } from "~/models/public-form.server";
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
import { escapeHtml } from "~/utils/html";
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
      return errorResponse(403, "origin_not_allowed", "This form does not accept submissions from this website.", {
        headers: { Vary: "Origin" },
      });
    }
    await limitSubmissions(form.id, clientIp(context));
    const idempotencyKey = idempotencyKeyOf(request.headers.get("Idempotency-Key"));
    const lead = validateSubmission(form, submission);
    const stored = await storeLead(lead, form, {
      ip: clientIp(context),
      userAgent: request.headers.get("User-Agent"),
      idempotencyKey,
    });
    if (wantsRedirect(request, submission)) {
      return redirect303(form.settings.redirectUrl ?? `/f/${encodeURIComponent(form.id)}/thanks`, corsOrigin);
    }
    return json(
      { id: stored.lead.id, formId: stored.lead.formId, createdAt: stored.lead.createdAt.toISOString() },
      { status: stored.replayed ? 200 : 201, headers: corsHeaders(corsOrigin) },
    );
  } catch (thrown) {
    if (!(thrown instanceof DomainError)) throw thrown;
    return answerRefusal(request, thrown, corsOrigin, form, submission);
  }
});

function corsHeaders(origin: string | null): Record<string, string> {
  if (!origin) return { Vary: "Origin" };
  return { Vary: "Origin", "Access-Control-Allow-Origin": origin, "Access-Control-Expose-Headers": "Retry-After" };
}

function isFormPost(request: Request): boolean {
  const type = request.headers.get("Content-Type") ?? "";
  return /^\s*(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(type);
}

/** A plain HTML form post (no script asked for JSON) is answered with redirects and pages. */
function wantsRedirect(request: Request, submission: Submission | null): boolean {
  const formPost = submission ? submission.mode === "form" : isFormPost(request);
  return formPost && !(request.headers.get("Accept") ?? "").includes("application/json");
}

function redirect303(location: string, corsOrigin: string | null): Response {
  return new Response(null, {
    status: 303,
    headers: { Location: location, "Cache-Control": "no-store", ...corsHeaders(corsOrigin) },
  });
}

/**
 * A refusal as JSON (adding CORS headers), or for a plain HTML form post: a validation
 * failure goes back to the hosted form with the problems named by field, and anything
 * else becomes a short HTML page when the browser asked for HTML.
 */
function answerRefusal(
  request: Request,
  refusal: DomainError,
  corsOrigin: string | null,
  form: PublicForm | null,
  submission: Submission | null,
): Response {
  const status = statusOf(refusal);
  const browserPage = wantsRedirect(request, submission) && (request.headers.get("Accept") ?? "").includes("text/html");
  if (wantsRedirect(request, submission) && refusal.code === "validation_failed" && form && submission) {
    return redirect303(hostedFormWithErrors(form, submission, refusal.details), corsOrigin);
  }
  const response = browserPage
    ? new Response(refusalPage(status, refusal.message), {
        status,
        headers: { "Content-Type": "text/html; charset=utf-8", ...domainErrorHeaders(refusal) },
      })
    : domainErrorResponse(refusal);
  for (const [name, value] of Object.entries(corsHeaders(corsOrigin))) response.headers.set(name, value);
  return response;
}

function hostedFormWithErrors(
  form: PublicForm,
  submission: Submission,
  details: { path: string; message: string }[],
): string {
  const errors: Record<string, string> = {};
  for (const detail of details) {
    const key = detail.path.startsWith("data.") ? detail.path.slice(5) : "_form";
    errors[key] ??= key === "_form" ? `${detail.path}: ${detail.message}` : detail.message;
  }
  // Tracking travels back with the visitor so that the next try still carries it; the
  // values they typed do not (personal data stays out of URLs and logs).
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
  return `/f/${encodeURIComponent(form.id)}?${params}`;
}

function refusalPage(status: number, message: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Submission not accepted</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:10vh auto;padding:0 1rem;line-height:1.45}</style>
</head><body><main>
<h1>Your submission was not accepted</h1>
<p role="alert">${escapeHtml(message)}</p>
<p class="muted">(Error ${status})</p>
<p>Use your browser's Back button to return to the form.</p>
</main></body></html>`;
}

// The server calls this route's loader and action directly, skipping Remix's router
// (docs/decisions/004-direct-dispatch.md): this endpoint takes every website's traffic.
export const handle = { directDispatch: true };
