// A submission's uploaded files against its form's file fields (decision 064): which field
// takes them, how many, how large, of which type (told by their bytes). The files' names
// become the field's value, so `required`, conditions, exports and search see them as any
// answer; a file for a field its condition hides is dropped with the answer.
import { fileRules, isAccepted } from "~/forms/schema/file-field";
import type { FormField } from "~/forms/schema/form-schema";
import { DomainError, invalidFields, type ErrorDetail } from "~/utils/domain-error";
import { env } from "~/utils/env.server";
import { isPlainObject, type Submission } from "../lead-submission.server";
import { getPublicForm } from "../public-form.server";
import type { FieldLimit, StagedFile, UploadLimits } from "./lead-uploads.server";

const MB = 1024 * 1024;
/** The most files one submission carries, whatever its form. */
const MAX_FILES_PER_SUBMISSION = 20;

/** The hard limits of a multipart post, before its form is known. */
export function uploadLimits(textBytes: number): UploadLimits {
  const totalBytes = env.UPLOAD_MAX_TOTAL_MB * MB;
  return {
    fileBytes: Math.min(25 * MB, totalBytes),
    totalBytes,
    files: MAX_FILES_PER_SUBMISSION,
    textBytes,
  };
}

const mb = (bytes: number) => `${Math.round((bytes / MB) * 10) / 10} MB`;

/** 413 naming the field: a file over its field's `maxSizeMb`, told while it streams in or once read. */
function overFieldLimit(field: FormField, filename: string): DomainError {
  const most = mb(fileRules(field).maxBytes);
  return new DomainError("payload_too_large", `${filename} weighs more than ${most}, the most ${field.label} takes.`, [
    { path: `data.${field.key}`, message: `${filename} is too large: choose a file of at most ${most}.` },
  ]);
}

/**
 * Each file field's own limit, by key, for the upload to cut a file off at the byte that
 * passes it (readMultipartSubmission). Null for no such form, or one that takes no more
 * submissions: no file of its post is written, and the submit refuses it once the text is read.
 */
export async function fileFieldLimits(formId: string): Promise<Map<string, FieldLimit> | null> {
  const form = await getPublicForm(formId);
  if (!form || form.status === "archived") return null;
  const limits = new Map<string, FieldLimit>();
  for (const field of form.fields) {
    if (field.type !== "file") continue;
    limits.set(field.key, {
      maxBytes: fileRules(field).maxBytes,
      refusal: (filename) => overFieldLimit(field, filename),
    });
  }
  return limits;
}

/**
 * Checks the staged files against the form's file fields and sets each file field's value
 * to its files' names (whatever text was posted under that name). 413 for a file over its
 * field's size; 422 naming the field for too many files, or a type the field does not accept
 * or that the bytes contradict. A file under any other name is dropped, as an unknown text
 * field of a form post is (a site's own file input): keptFiles leaves it out.
 */
export function applyUploads(fields: readonly FormField[], submission: Submission, files: readonly StagedFile[]): void {
  // JSON cannot carry a file: its value for a file field is refused by the field's validator.
  if (submission.mode !== "form") return;
  if (files.length === 0 && !fields.some((field) => field.type === "file")) return;
  const data = isPlainObject(submission.data) ? submission.data : (submission.data = Object.create(null));
  const details: ErrorDetail[] = [];
  for (const field of fields) {
    if (field.type !== "file") continue;
    const mine = files.filter((file) => file.field === field.key);
    delete (data as Record<string, unknown>)[field.key];
    if (mine.length === 0) continue;
    const rules = fileRules(field);
    const path = `data.${field.key}`;
    // Cut off as it streamed in when the post named its form first; checked here for one that did not.
    const tooBig = mine.find((file) => file.size > rules.maxBytes);
    if (tooBig) throw overFieldLimit(field, tooBig.filename);
    if (mine.length > rules.maxFiles) {
      details.push({ path, message: `Attach at most ${rules.maxFiles} ${rules.maxFiles === 1 ? "file" : "files"}.` });
      continue;
    }
    const wrong = mine.find((file) => !file.type.ok || !isAccepted(rules.accept, file.filename, file.type.contentType));
    if (wrong) {
      details.push({
        path,
        message: wrong.type.ok
          ? `${wrong.filename} is not a type this field takes (${rules.accept.join(", ")}).`
          : `${wrong.filename}: its contents are not what its name says.`,
      });
      continue;
    }
    (data as Record<string, unknown>)[field.key] = mine.map((file) => file.filename);
  }
  if (details.length > 0) throw invalidFields(details, "The submission has invalid files.");
}

/** The staged files the stored lead keeps: those of its file fields whose answers it kept. */
export function keptFiles(
  fields: readonly FormField[],
  files: readonly StagedFile[],
  data: Record<string, unknown>,
): StagedFile[] {
  const fileKeys = new Set(fields.flatMap((field) => (field.type === "file" ? [field.key] : [])));
  return files.filter((file) => fileKeys.has(file.field) && data[file.field] !== undefined);
}
