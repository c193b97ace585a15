// The lead page's forms (/leads/:id, plain posts that work without JavaScript): "Status,
// owner and tags" (intent=update, and the spam notice's "Not spam") and the note form
// (intent=note). Each is parsed with the schema its browser validated with (Conform,
// decision 022, app/leads/lead-schemas.ts) and saved with the operations the API uses; a
// refusal is Conform's reply, with the domain's paths (`tags.3`) named as the page's inputs.
import { parseWithZod } from "@conform-to/zod/v4";
import { DomainError, type ErrorDetail } from "~/utils/domain-error";
import { statusOf } from "~/utils/http/api.server";
import { LeadNoteFormSchema, LeadWorkFormSchema, tagList } from "./lead-schemas";
import { addLeadNote, updateLead, type Actor } from "./lead-work.server";
import type { SubmissionResult } from "@conform-to/react";

export type LeadFormIntent = "update" | "note";
/** A refused update or note: Conform's reply (the messages by input, and what was sent). */
export type LeadFormRefusal = { intent: LeadFormIntent; result: SubmissionResult<string[]> };

const text = (value: FormDataEntryValue | null) => (value === null ? undefined : String(value));

/**
 * The work form as updateLead's patch: an empty owner is nobody; tags are comma-separated.
 * An input left out (the spam notice sends only the status), or that still holds what the
 * page showed (`<name>Was`), is not part of it, so a save changes only what this person changed.
 */
function patchOf(form: FormData) {
  const changed = (name: string, same = (a: string, b: string) => a === b) => {
    const value = text(form.get(name));
    const was = text(form.get(`${name}Was`));
    return value === undefined || (was !== undefined && same(value, was)) ? undefined : value;
  };
  const status = changed("status");
  const ownerId = changed("ownerId");
  const tags = changed("tags", (a, b) => tagList(a.toLowerCase()).join() === tagList(b.toLowerCase()).join());
  return {
    ...(status !== undefined && { status }),
    ...(ownerId !== undefined && { ownerId: ownerId || null }),
    ...(tags !== undefined && { tags: tagList(tags) }),
  };
}

/** The domain's paths (`tags.3`) as the page's inputs (`tags`), with the tag's position. */
function errorsByInput(details: ErrorDetail[]): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const { path, message } of details) {
    const [input, index] = path.split(".");
    errors[input] ??= [index === undefined ? message : `Tag ${Number(index) + 1}: ${message}`];
  }
  return errors;
}

/**
 * Saves the posted form: null when saved, else the refusal and its status (422 for input
 * the schema or the domain refuses). A missing lead throws (the page's 404).
 */
export async function saveLeadForm(
  id: string,
  intent: LeadFormIntent,
  form: FormData,
  actor: Actor,
): Promise<{ refusal: LeadFormRefusal; status: number } | null> {
  const submission =
    intent === "update"
      ? parseWithZod(form, { schema: LeadWorkFormSchema })
      : parseWithZod(form, { schema: LeadNoteFormSchema });
  if (submission.status !== "success") return { refusal: { intent, result: submission.reply() }, status: 422 };
  try {
    if (intent === "update") await updateLead(id, patchOf(form), actor);
    else await addLeadNote(id, submission.value, actor);
    return null;
  } catch (thrown) {
    if (!(thrown instanceof DomainError) || thrown.code === "not_found") throw thrown;
    const fieldErrors = errorsByInput(thrown.details);
    if (Object.keys(fieldErrors).length === 0) fieldErrors[intent === "note" ? "body" : "status"] = [thrown.message];
    return { refusal: { intent, result: submission.reply({ fieldErrors }) }, status: statusOf(thrown) };
  }
}
