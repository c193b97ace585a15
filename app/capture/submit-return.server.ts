// A plain HTML form post that the submit endpoint refuses for its values goes back to the
// hosted form (/f/:formId) rather than to a dead end: the problems by field, signed; the
// tracking values, so the next try still carries them; what was typed, kept on the server
// under a random token (personal data stays out of URLs and logs) so the form comes back
// filled in.
import { PROGRESS_FIELD } from "~/forms/schema/form-steps";
import { UTM_KEYS } from "~/leads/lead-fields";
import { signErrors } from "./lead-signatures.server";
import { isPlainObject, type Submission } from "./lead-submission.server";
import { type PublicForm } from "./public-form.server";
import { keepDraft, leadDraftScope, newAttempt, type DraftValues } from "./visitor-drafts.server";

/**
 * Where a refused plain post sends the visitor: the hosted form, with the problems named
 * by field (signed, so a link cannot put words in our mouth) and what was typed kept.
 */
export async function hostedFormWithErrors(
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
  // A form in steps goes back to the step of the first problem, its progress still kept.
  if (submission.progress) params.set(PROGRESS_FIELD, submission.progress.slice(0, 64));
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
