// Partial capture (issue 31, item 7; docs/decisions/060-partial-capture.md): on a form with
// settings.capturePartial, the answers of the steps a visitor has completed, once they hold
// a valid email, are kept as a partial lead (POST /api/leads/partial), and finishing the form
// with its partialId (POST /api/leads/submit) stores the lead and forgets the partial.
// Partials live in their own table, so no count, export, notification or webhook sees one.
// The endpoint is public: it takes the submit endpoint's origin policy, rate limit, text
// policy and spam signals (lead-capture.server.ts), and a partialId is a random bearer token
// (the database keeps only its SHA-256), never a lead id.
import { createHash } from "node:crypto";
import { buildLeadDataSchema, type LeadData } from "~/forms/schema/form-schema";
import { stepOf } from "~/forms/schema/form-steps";
import { leadEmail } from "~/forms/schema/lead-values";
import { db } from "~/storage/db.server";
import { DomainError, invalidFields } from "~/utils/domain-error";
import { env } from "~/utils/env.server";
import { domainErrorResponse, errorResponse, json, readBodyText } from "~/utils/http/api.server";
import { randomText } from "~/utils/random-text.server";
import { HONEYPOT_FIELD, UTM_KEYS } from "../leads/lead-fields";
import { limitSubmissions, SUBMISSION_BODY_LIMIT, validateSubmission, type ValidLead } from "./lead-capture.server";
import { TIMESTAMP_FIELD } from "./lead-signatures.server";
import { isPlainObject, parseSubmission, submissionKind, type Submission } from "./lead-submission.server";
import { findOpenForm, isOriginAllowed, type PublicForm } from "./public-form.server";

const APP_ORIGIN = new URL(env.APP_URL).origin;
const PARTIAL_ID = /^[A-Za-z0-9_-]{20,100}$/;

const keyOf = (partialId: string) => createHash("sha256").update(partialId).digest("base64url");

/**
 * The fields a partial is checked against: those of every step up to the last one the
 * answers touch (the steps completed so far), so a later step's required field is not
 * required yet, and a key of no such field is refused as for a submit.
 */
function completedStepFields(form: PublicForm, data: unknown) {
  const sent = isPlainObject(data) ? new Set(Object.keys(data)) : new Set<string>();
  let last = 1;
  for (const field of form.fields) {
    if (field.type !== "hidden" && sent.has(field.key)) last = Math.max(last, stepOf(field));
  }
  return form.fields.filter((field) => stepOf(field) <= last);
}

/** Validates a partial like a submit, with only the completed steps' fields, and at least an email. */
export function validatePartial(form: PublicForm, submission: Submission, userAgent: string | null): ValidLead {
  if (!form.settings.capturePartial) {
    throw new DomainError("forbidden", "This form does not keep partial answers.");
  }
  if (submission.partialId !== undefined && !PARTIAL_ID.test(submission.partialId)) {
    throw invalidFields([{ path: "partialId", message: "Send the partialId this endpoint gave, or none." }]);
  }
  const fields = completedStepFields(form, submission.data);
  const lead = validateSubmission(
    form,
    submission,
    Date.now(),
    userAgent,
    buildLeadDataSchema(fields, submission.mode),
  );
  if (!leadEmail(lead.data, fields)) {
    const emailField = form.fields.find((field) => field.type === "email");
    throw invalidFields([
      {
        path: emailField ? `data.${emailField.key}` : "data",
        message: "A partial lead needs a valid email address.",
      },
    ]);
  }
  return lead;
}

function partialRow(lead: ValidLead, email: string) {
  return {
    schemaVersion: lead.schemaVersion,
    data: lead.data as object,
    email,
    ...lead.source,
  };
}

/**
 * Stores or updates a partial: an existing one (its partialId, on this form) is overwritten
 * with the new answers (`created: false`); an unknown, expired or completed one starts a
 * fresh partial under a new partialId, so an old id never reaches another visitor's answers.
 * Spam is not stored, but answered alike, so a bot learns nothing.
 */
export async function savePartial(
  form: PublicForm,
  lead: ValidLead,
  partialId: string | undefined,
): Promise<{ partialId: string; created: boolean }> {
  const email = leadEmail(lead.data as LeadData, form.fields) ?? "";
  if (partialId && !lead.isSpam) {
    const updated = await db.partialLead.updateMany({
      where: { key: keyOf(partialId), formId: form.id },
      data: { ...partialRow(lead, email), updatedAt: new Date() },
    });
    if (updated.count === 1) return { partialId, created: false };
  }
  const fresh = randomText(32, "base64url");
  if (!lead.isSpam) {
    await db.partialLead.create({ data: { key: keyOf(fresh), formId: form.id, ...partialRow(lead, email) } });
  }
  return { partialId: fresh, created: true };
}

/**
 * The stored key of the partial a finished submission completes: the lead store deletes that
 * partial (of the same form) in the lead's own transaction. An unknown id deletes nothing: the
 * submission is an ordinary lead anyway.
 */
export function completedPartialKey(partialId: string | undefined): string | null {
  return partialId && PARTIAL_ID.test(partialId) ? keyOf(partialId) : null;
}

/**
 * A step's post without JavaScript (step-progress.server.ts) keeps its partial as the script
 * would: the answers of the steps up to this one, with the page's source and spam markers. A
 * refusal (no valid email yet, capturePartial off) keeps nothing; the partialId, if any.
 */
export async function savePartialOfStep(
  form: PublicForm,
  step: number,
  values: Record<string, string | string[]>,
  page: { one: (name: string) => string; partialId: string | undefined; userAgent: string | null },
): Promise<string | undefined> {
  if (!form.settings.capturePartial) return page.partialId;
  const data: Record<string, string | string[]> = Object.create(null);
  for (const field of form.fields) {
    if (values[field.key] !== undefined && stepOf(field) <= step) data[field.key] = values[field.key];
  }
  const submission: Submission = {
    mode: "form",
    formId: form.id,
    data,
    utm: Object.fromEntries(UTM_KEYS.map((key) => [key, page.one(key)])),
    referrerUrl: page.one("referrerUrl"),
    landingPageUrl: page.one("landingPageUrl"),
    honeypot: page.one(HONEYPOT_FIELD),
    timestamp: page.one(TIMESTAMP_FIELD),
    partialId: page.partialId,
    unknownKeys: [],
  };
  try {
    return (await savePartial(form, validatePartial(form, submission, page.userAgent), page.partialId)).partialId;
  } catch (thrown) {
    if (thrown instanceof DomainError) return page.partialId;
    throw thrown;
  }
}

function corsHeaders(origin: string | null): Record<string, string> {
  if (!origin) return { Vary: "Origin" };
  return { Vary: "Origin", "Access-Control-Allow-Origin": origin, "Access-Control-Expose-Headers": "Retry-After" };
}

/**
 * POST /api/leads/partial: JSON (`{formId, data, utm?, referrerUrl?, landingPageUrl?,
 * partialId?}`), or the form's own fields as a form post (the hosted page's script sends the
 * steps reached so far); 201 `{partialId}` for a new partial, 200 when it updated one.
 * Always answered in JSON, refusals in the one JSON error shape.
 */
export async function partialLead(request: Request, meta: { ip: string }): Promise<Response> {
  const origin = request.headers.get("Origin");
  let corsOrigin: string | null = origin;
  try {
    const contentType = request.headers.get("Content-Type") ?? "";
    submissionKind(contentType); // an unsupported type is refused before the body is read
    const submission = await parseSubmission({
      contentType,
      body: await readBodyText(request, SUBMISSION_BODY_LIMIT),
      referer: request.headers.get("Referer"),
    });
    const form = await findOpenForm(submission.formId);
    if (!isOriginAllowed(form, origin, () => new URL(request.url).origin) && origin !== APP_ORIGIN) {
      corsOrigin = null;
      const message = "This form does not accept submissions from this website.";
      return errorResponse(403, "origin_not_allowed", message, { headers: { Vary: "Origin" } });
    }
    await limitSubmissions(form.id, meta.ip);
    const lead = validatePartial(form, submission, request.headers.get("User-Agent"));
    const saved = await savePartial(form, lead, submission.partialId);
    return json(
      { partialId: saved.partialId },
      { status: saved.created ? 201 : 200, headers: { "Cache-Control": "no-store", ...corsHeaders(corsOrigin) } },
    );
  } catch (thrown) {
    if (!(thrown instanceof DomainError)) throw thrown;
    const response = domainErrorResponse(thrown);
    for (const [name, value] of Object.entries(corsHeaders(corsOrigin))) response.headers.set(name, value);
    return response;
  }
}
