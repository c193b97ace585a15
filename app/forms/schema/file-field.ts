// A form's `file` field (decision 064): what it accepts, how large, how many. Shared by the
// server (validation, the upload's limits) and the browser (the builder, the hosted form's
// `accept`), so it imports nothing server-only. The server checks each file's bytes too
// (app/capture/uploads/upload-types.server.ts): a name is only a claim.
import { z } from "zod";

/** The most one file may weigh, and a field's default. */
export const FILE_MAX_SIZE_MB = 25;
export const DEFAULT_FILE_SIZE_MB = 10;
/** The most files one field takes, and its default. */
export const MAX_FILES_PER_FIELD = 10;

/** What a file field accepts when its schema names nothing: documents and pictures. */
export const DEFAULT_ACCEPT = [".pdf", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".txt", ".csv", ".docx", ".xlsx"];

/** An extension (`.pdf`), a MIME type (`image/png`) or a family (`image/*`). */
export const AcceptEntrySchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(
    /^(\.[a-z0-9]{1,10}|[a-z]+\/(\*|[a-z0-9][a-z0-9.+-]{0,80}))$/,
    "Use an extension such as .pdf, a type such as image/png, or a family such as image/*.",
  );

export const AcceptSchema = z.array(AcceptEntrySchema).min(1, "Name at least one type.").max(30);

/** The keys only a file field takes, as the field schema (form-schema.ts) checks them. */
export const FILE_FIELD_KEYS = {
  accept: AcceptSchema.optional(),
  maxSizeMb: z
    .number({ error: "Use a number of megabytes." })
    .positive("Use more than 0 MB.")
    .max(FILE_MAX_SIZE_MB, `A file may weigh at most ${FILE_MAX_SIZE_MB} MB.`)
    .optional(),
  maxFiles: z
    .number({ error: "Use a number of files." })
    .int("Use a whole number of files.")
    .min(1, "Allow at least one file.")
    .max(MAX_FILES_PER_FIELD, `A field takes at most ${MAX_FILES_PER_FIELD} files.`)
    .optional(),
};

/** A file field's settings, with their defaults. */
export function fileRules(field: { accept?: string[]; maxSizeMb?: number; maxFiles?: number }) {
  return {
    accept: field.accept && field.accept.length > 0 ? field.accept : DEFAULT_ACCEPT,
    maxBytes: Math.round((field.maxSizeMb ?? DEFAULT_FILE_SIZE_MB) * 1024 * 1024),
    maxFiles: field.maxFiles ?? 1,
  };
}

/** The hosted form's `accept` attribute. */
export function acceptAttribute(field: { accept?: string[] }): string {
  return fileRules(field).accept.join(",");
}

/** Whether a file named `filename` whose content is `contentType` is one the field accepts. */
export function isAccepted(accept: readonly string[], filename: string, contentType: string): boolean {
  const dot = filename.lastIndexOf(".");
  const extension = dot > 0 ? filename.slice(dot).toLowerCase() : "";
  return accept.some((entry) => {
    if (entry.startsWith(".")) return entry === extension;
    if (entry.endsWith("/*")) return contentType.startsWith(entry.slice(0, -1));
    return entry === contentType;
  });
}

/** What is wrong with a field's file settings: [path, message] pairs (none for a good field). */
export function fileFieldProblems(field: {
  type: string;
  accept?: unknown;
  maxSizeMb?: unknown;
  maxFiles?: unknown;
  defaultValue?: unknown;
}): Array<[string, string]> {
  if (field.type === "file") {
    return field.defaultValue === undefined ? [] : [["defaultValue", "A file field cannot have a default value."]];
  }
  return (["accept", "maxSizeMb", "maxFiles"] as const)
    .filter((key) => field[key] !== undefined)
    .map((key) => [key, `${key} only applies to file fields.`]);
}
