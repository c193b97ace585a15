// The public lead submission's policy (POST /api/leads/submit, no login): who may post
// (a form's allowed origins, CORS), in which body kinds, how often, and how each caller is
// answered: scripts (JSON), the embed script (multipart, Accept: application/json) and plain
// HTML forms on any website (URL-encoded or multipart: answered with redirects and pages).
// Rules and examples: docs/api/lead-capture.md.
import { queueAutoresponse } from "~/capture/autoresponse.server";
import type { LeadData } from "~/forms/schema/form-schema";
import { leadEmail } from "~/forms/schema/lead-values";
import { personName } from "~/leads/lead-name";
import { DomainError } from "~/utils/domain-error";
import { env } from "~/utils/env.server";
import {
  domainErrorHeaders,
  domainErrorResponse,
  errorResponse,
  json,
  readBodyText,
  statusOf,
} from "~/utils/http/api.server";
import { log } from "~/utils/log.server";
import { counter } from "~/utils/metrics.server";
import { checkCaptcha } from "./captcha.server";
import {
  idempotencyKeyOf,
  limitSubmissions,
  storeLead,
  SUBMISSION_BODY_LIMIT,
  validateSubmission,
} from "./lead-capture.server";
import { parseSubmission, submissionKind, type Submission } from "./lead-submission.server";
import { completedPartialKey } from "./partial-lead.server";
import { findOpenForm, isOriginAllowed, type PublicForm } from "./public-form.server";
import { dropProgress } from "./step-progress.server";
import { hostedFormWithErrors } from "./submit-return.server";
import { applyUploads, fileFieldLimits, keptFiles, uploadLimits } from "./uploads/lead-files.server";
import { discardFiles, readMultipartSubmission, type StagedFile } from "./uploads/lead-uploads.server";
import { leadDraftScope, markSettled } from "./visitor-drafts.server";
import { isBrowserPost, isFormPost, visitorPage } from "./visitor-page.server";

/** What the HTTP layer knows about a submission and its Request does not. */
export type SubmitMeta = { ip: string };

const APP_ORIGIN = new URL(env.APP_URL).origin;

const leadsAccepted = counter({
  name: "leadcapture_leads_accepted_total",
  help: "Leads stored by the submit endpoint (a replayed idempotency key not counted again); spam: marked as spam by its signals.",
  labelNames: ["spam"],
});
// Made once, so the hot path makes no labels object; shown at 0 from the start, so that a
// rate over the first leads has a value to start from.
const acceptedLead = leadsAccepted.labels("false");
const acceptedSpam = leadsAccepted.labels("true");
acceptedLead.inc(0);
acceptedSpam.inc(0);
const leadsRefused = counter({
  name: "leadcapture_leads_refused_total",
  help: "Submissions refused, by reason: the error code of the answer (validation_failed, rate_limited, payload_too_large, origin_not_allowed...).",
  labelNames: ["reason"],
});

/**
 * Preflight. It cannot know the form (the formId is in the body), so it lets any
 * origin ask; the POST itself is refused (403) when the form does not allow the origin.
 */
export function submitPreflight(request: Request): Response {
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
}

/**
 * Takes one submission (the request's body, in any of the kinds above) and answers it:
 * the origin the form allows, the rate limit, validation and spam signals, storing (once
 * per idempotency key), and the answer the caller understands (JSON with CORS headers, a
 * redirect, or a page for a person's browser).
 */
export async function submitLead(request: Request, meta: SubmitMeta): Promise<Response> {
  const origin = request.headers.get("Origin");
  // Until the form is known, any page may read our refusal (it names no form's data).
  let corsOrigin: string | null = origin;
  let form: PublicForm | null = null;
  let submission: Submission | null = null;
  let staged: StagedFile[] = [];
  try {
    let refusal: DomainError | undefined;
    let rate: RateCheck | undefined;
    ({ submission, staged, refusal, rate } = await readSubmission(request, meta.ip));
    form = await findOpenForm(submission.formId);
    const ownOrigin = () => new URL(request.url).origin;
    if (!isOriginAllowed(form, origin, ownOrigin) && origin !== APP_ORIGIN) {
      corsOrigin = null;
      leadsRefused.inc({ reason: "origin_not_allowed" });
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
    // A file cut off at its field's limit, the text read on so that the page comes back filled in.
    if (refusal) throw refusal;
    // A multipart post was counted when its formId came (before any file was written).
    if (rate?.refusal) throw rate.refusal;
    if (rate?.formId !== form.id) await limitSubmissions(form.id, meta.ip);
    const idempotencyKey = idempotencyKeyOf(request.headers.get("Idempotency-Key"));
    applyUploads(form.fields, submission, staged);
    const lead = validateSubmission(form, submission, Date.now(), request.headers.get("User-Agent"));
    const files = keptFiles(form.fields, staged, lead.data);
    // Last, once the answers are good: a token is spent by its check.
    if (form.settings.captcha) {
      const outcome = await checkCaptcha(form.settings.captcha, submission.captchaToken, meta.ip);
      if (outcome === "unavailable") lead.isSpam = true;
    }
    const stored = await storeLead(lead, form, {
      ip: meta.ip,
      userAgent: request.headers.get("User-Agent"),
      idempotencyKey,
      // The partial it finishes goes in the lead's own transaction (decision 060).
      completesPartial: completedPartialKey(submission.partialId),
      files: files.map((file) => file.id),
    });
    if (!stored.replayed) (lead.isSpam ? acceptedSpam : acceptedLead).inc();
    // A double opt-in lead's one email is its confirmation link (decision 067): no autoresponse.
    const confirmation = !stored.replayed && !stored.lead.awaitingConfirmation && (await autoresponseFor(form, lead));
    if (submission.retryOf) {
      // Only what Back to the old errors page says: never worth failing a stored lead over.
      await markSettled(leadDraftScope(form.id), submission.retryOf).catch((error) =>
        log.error("marking a refused post settled failed", error),
      );
    }
    if (submission.progress) {
      // The steps' answers kept without JavaScript are not needed once the lead is in.
      await dropProgress(form.id, submission.progress).catch((error) =>
        log.error("forgetting a step progress failed", error),
      );
    }
    if (wantsRedirect(request, submission)) {
      const thanks = `/f/${encodeURIComponent(form.id)}/thanks${confirmation ? "?confirmation=1" : ""}`;
      return redirect303(form.settings.redirectUrl ?? thanks, corsOrigin);
    }
    return json(
      {
        id: stored.lead.id,
        formId: stored.lead.formId,
        createdAt: stored.lead.createdAt.toISOString(),
        // Double opt-in (decision 067): the visitor has a confirmation email to answer.
        ...(stored.lead.awaitingConfirmation ? { awaitingConfirmation: true } : {}),
        ...(confirmation ? { confirmationEmail: true } : {}),
      },
      { status: stored.replayed ? 200 : 201, headers: corsHeaders(corsOrigin) },
    );
  } catch (thrown) {
    if (!(thrown instanceof DomainError)) throw thrown;
    // Bounded: DomainErrorCode is a closed list.
    leadsRefused.inc({ reason: thrown.code });
    return await answerRefusal(request, thrown, corsOrigin, form, submission);
  } finally {
    // Refused, replayed, or a file its condition hid: what no lead linked is deleted now
    // (discardFiles leaves a linked file alone).
    if (staged.length > 0) {
      await discardFiles(staged.map((file) => file.id)).catch((error) => log.error("deleting unlinked files", error));
    }
  }
}

/** A multipart post's rate limit, counted when its `formId` arrived: for which form, and the refusal. */
type RateCheck = { formId: string | null; refusal: unknown };

/**
 * The submission, in any body kind: an unsupported type is refused before the body is read;
 * a multipart post is read as it streams in, its files written unlinked until the lead links
 * them (decision 064), and deleted again if the post turns out unreadable.
 */
async function readSubmission(
  request: Request,
  ip: string,
): Promise<{ submission: Submission; staged: StagedFile[]; refusal?: DomainError; rate?: RateCheck }> {
  const contentType = request.headers.get("Content-Type") ?? "";
  const referer = request.headers.get("Referer");
  if (submissionKind(contentType) !== "multipart") {
    const body = await readBodyText(request, SUBMISSION_BODY_LIMIT);
    return { submission: await parseSubmission({ contentType, body, referer }), staged: [] };
  }
  // A file is cut off at its own field's limit once `formId` names the form; a page post reads
  // on past it (keeping no file) so that the form comes back with what was typed. The post is
  // counted against the rate limit then, before any file is written: over it, its files are
  // dropped unwritten and the 429 follows once it is read.
  const rate: RateCheck = { formId: null, refusal: null };
  const lookup = async (posted: string) => {
    const formId = posted.trim();
    const limits = await fileFieldLimits(formId);
    if (!limits) return null;
    rate.formId = formId;
    try {
      await limitSubmissions(formId, ip);
    } catch (refusal) {
      rate.refusal = refusal;
      return null;
    }
    return limits;
  };
  const forms = { lookup, readOn: wantsRedirect(request, null) };
  const upload = await readMultipartSubmission(request, uploadLimits(SUBMISSION_BODY_LIMIT), forms);
  try {
    const submission = await parseSubmission({ contentType, body: upload.fields, referer });
    return { submission, staged: upload.files, refusal: upload.refusal, rate };
  } catch (error) {
    await discardFiles(upload.files.map((file) => file.id)).catch(() => {});
    throw error;
  }
}

/** Queues the form's autoresponse (decision 066); a failure never fails the stored lead. */
async function autoresponseFor(form: PublicForm, lead: { data: LeadData; isSpam: boolean }): Promise<boolean> {
  return queueAutoresponse({
    settings: form.settings.autoresponder,
    formName: form.name,
    personName: personName(lead.data, form.fields),
    email: leadEmail(lead.data, form.fields),
    data: lead.data,
    isSpam: lead.isSpam,
  }).catch((error) => {
    log.error("queueing an autoresponse failed", error);
    return false;
  });
}

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

/** A refusal the hosted form shows by its fields: bad values, or a file over its field's size. */
function namesFields(refusal: DomainError): boolean {
  return refusal.code === "validation_failed" || (refusal.code === "payload_too_large" && refusal.details.length > 0);
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
  if (wantsRedirect(request, submission) && namesFields(refusal) && form && submission) {
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
