// The form builder's edits to a field list, as pure functions. The server applies
// them (through replaceFormSchema, in form.server.ts) and the builder page applies
// the same functions to pending submissions for its optimistic view, so what the
// page shows while saving is what the server will store.
// Shared by server and browser: imports nothing server-only.
import { textPolicyIssues } from "../utils/text-policy";
import { conditionFromFormData, placeInStep } from "./builder-placement";
import { FieldSchema, FieldsSchema, isReservedFieldKey, type FieldType, type FormField } from "./schema/form-schema";

export type BuilderDetail = { path: string; message: string };

export type BuilderResult =
  | { ok: true; fields: FormField[] }
  | { ok: false; code: "validation_failed" | "field_not_found"; message: string; details?: BuilderDetail[] };

/** One place up or down (the buttons), or to a position in the list (a drag, 0-based). */
export type MoveTarget = "up" | "down" | number;

export const BUILDER_INTENTS = ["add-field", "update-field", "move-field", "remove-field"] as const;

const TEXT_TYPES: readonly FieldType[] = ["text", "textarea", "email", "tel", "url", "hidden"];
const CHOICE_TYPES: readonly FieldType[] = ["select", "multiselect"];

/** Which optional rules a field type takes: the builder shows and keeps only these. */
export function rulesFor(type: string) {
  const t = type as FieldType;
  return {
    length: TEXT_TYPES.includes(t),
    pattern: TEXT_TYPES.includes(t),
    range: t === "number",
    options: CHOICE_TYPES.includes(t),
    placeholder: t !== "checkbox" && t !== "consent" && t !== "hidden" && t !== "multiselect",
    text: t === "consent",
    /** A file field's types, size and number of files (decision 064). */
    file: t === "file",
  };
}

function text(form: FormData, name: string): string | undefined {
  const value = form.get(name);
  if (typeof value !== "string") return undefined;
  const trimmed = value.trim();
  return trimmed === "" ? undefined : trimmed;
}

function number(form: FormData, name: string): number | undefined {
  const value = text(form, name);
  // NaN reaches the schema, which names the input ("expected number").
  return value === undefined ? undefined : Number(value);
}

/** A textarea's lines, trimmed, empty ones dropped; undefined when none. */
function list(form: FormData, name: string): string[] | undefined {
  const entries = String(form.get(name) ?? "")
    .split(/\r?\n/)
    .map((entry) => entry.trim())
    .filter(Boolean);
  return entries.length > 0 ? entries : undefined;
}

function defaultValueFor(type: string, raw: string | undefined): FormField["defaultValue"] {
  if (raw === undefined) return undefined;
  if (type === "number") return Number.isNaN(Number(raw)) ? raw : Number(raw);
  if (type === "checkbox") {
    if (["true", "on", "yes", "1"].includes(raw.toLowerCase())) return true;
    if (["false", "off", "no", "0"].includes(raw.toLowerCase())) return false;
    return raw;
  }
  if (type === "multiselect") {
    return raw
      .split(",")
      .map((option) => option.trim())
      .filter(Boolean);
  }
  return raw;
}

/**
 * A field as the builder's form posts it, before validation. Rules that do not apply
 * to the chosen type are left out, so switching a field from text to number does not
 * trip over a leftover maxLength the page (without JavaScript) could not hide.
 */
export function fieldInputFromFormData(form: FormData, fields: readonly FormField[] = []): Record<string, unknown> {
  const type = text(form, "type") ?? "text";
  const rules = rulesFor(type);
  const input: Record<string, unknown> = {
    key: text(form, "key") ?? "",
    label: text(form, "label") ?? "",
    type,
    required: form.get("required") === "on" || form.get("required") === "true",
  };
  if (rules.length) {
    input.minLength = number(form, "minLength");
    input.maxLength = number(form, "maxLength");
  }
  if (rules.pattern) input.pattern = text(form, "pattern");
  if (rules.range) {
    input.min = number(form, "min");
    input.max = number(form, "max");
  }
  if (rules.options) {
    input.options = String(form.get("options") ?? "")
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter(Boolean);
  }
  if (rules.placeholder) input.placeholder = text(form, "placeholder");
  // A consent's wording (decision 065); it starts unticked, so it takes no default.
  if (rules.text) input.text = text(form, "text");
  // A file field's rules, checked by the schema the API uses (file-field.ts); left empty, its defaults.
  if (rules.file) {
    input.accept = list(form, "accept");
    input.maxSizeMb = number(form, "maxSizeMb");
    input.maxFiles = number(form, "maxFiles");
  }
  input.helpText = text(form, "helpText");
  // Neither a consent (unticked) nor a file (a browser cannot be handed one) takes a default.
  if (!rules.text && !rules.file) input.defaultValue = defaultValueFor(type, text(form, "defaultValue"));
  // The step and the condition, when the editor posts them (null: the condition removed).
  input.step = number(form, "step");
  // Step 1 of a form without steps is no step: the field stays as it was stored.
  if (input.step === 1 && !fields.some((field) => (field.step ?? 1) > 1)) delete input.step;
  input.showIf = conditionFromFormData(form, fields);
  for (const name of Object.keys(input)) if (input[name] === undefined) delete input[name];
  return input;
}

/** `"Company size (people)"` -> `"company_size_people"`, unique among `taken`, never a reserved key. */
export function keyFromLabel(label: string, taken: Iterable<string>): string {
  const words = label
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  // A key starts with a letter: "2nd phone" becomes "field_2nd_phone".
  const base = (/^[a-z]/.test(words) ? words : `field_${words}`).replace(/_+$/, "").slice(0, 56);
  const used = new Set([...taken].map((key) => key.toLowerCase()));
  const free = (key: string) => !used.has(key) && !isReservedFieldKey(key);
  if (free(base)) return base;
  for (let n = 2; ; n++) if (free(`${base}_${n}`)) return `${base}_${n}`;
}

function invalid(details: BuilderDetail[]): BuilderResult {
  return { ok: false, code: "validation_failed", message: "The field has invalid values.", details };
}

function missing(key: string): BuilderResult {
  return { ok: false, code: "field_not_found", message: `The form has no field "${key}" (any more).` };
}

function parseField(input: Record<string, unknown>): { field: FormField } | { error: BuilderResult } {
  const refused = textPolicyIssues(input);
  if (refused.length > 0) {
    return {
      error: invalid(refused.map((issue) => ({ path: ["field", ...issue.path].join("."), message: issue.message }))),
    };
  }
  const result = FieldSchema.safeParse(input);
  if (result.success) return { field: result.data };
  return {
    error: invalid(
      result.error.issues.map((issue) => ({
        path: ["field", ...issue.path.map(String)].join("."),
        message: issue.message,
      })),
    ),
  };
}

function duplicateKey(fields: FormField[], key: string, except?: string): BuilderResult | null {
  const clash = fields.some((field) => field.key.toLowerCase() === key.toLowerCase() && field.key !== except);
  return clash ? invalid([{ path: "field.key", message: `Another field already uses the key "${key}".` }]) : null;
}

function withinLimits(fields: FormField[]): BuilderResult {
  const result = FieldsSchema.safeParse(fields);
  if (result.success) return { ok: true, fields: result.data };
  return invalid(result.error.issues.map((issue) => ({ path: "fields", message: issue.message })));
}

/** Appends a field; an empty key is made from the label. */
export function addFieldTo(fields: FormField[], input: Record<string, unknown>): BuilderResult {
  const candidate = { ...input };
  if (!candidate.key && typeof candidate.label === "string" && candidate.label.trim() !== "") {
    candidate.key = keyFromLabel(
      candidate.label,
      fields.map((field) => field.key),
    );
  }
  // A new field goes to the end: on the last step of a form in steps, unless a step is chosen.
  const last = fields.at(-1)?.step;
  const chosen = candidate.step !== undefined;
  if (candidate.showIf === null) delete candidate.showIf;
  if (!chosen && last !== undefined) candidate.step = last;
  const parsed = parseField(candidate);
  if ("error" in parsed) return parsed.error;
  const clash = duplicateKey(fields, parsed.field.key);
  if (clash) return clash;
  return withinLimits(chosen ? placeInStep(fields, parsed.field) : [...fields, parsed.field]);
}

/** Replaces the field now keyed `key` (its key may change). */
export function updateFieldIn(fields: FormField[], key: string, input: Record<string, unknown>): BuilderResult {
  const index = fields.findIndex((field) => field.key === key);
  if (index === -1) return missing(key);
  // What the field editor does not show (its condition, its step) stays as it was.
  const { showIf, step } = fields[index];
  const candidate: Record<string, unknown> = {
    ...(showIf ? { showIf } : {}),
    ...(step !== undefined ? { step } : {}),
    ...input,
  };
  if (!candidate.key) candidate.key = key;
  if (candidate.showIf === null) delete candidate.showIf;
  const parsed = parseField(candidate);
  if ("error" in parsed) return parsed.error;
  const clash = duplicateKey(fields, parsed.field.key, key);
  if (clash) return clash;
  // Another step: the field moves to it (and a step it leaves empty goes away).
  if ((parsed.field.step ?? 1) !== (step ?? 1)) return withinLimits(placeInStep(fields, parsed.field, key));
  return withinLimits(fields.map((field, i) => (i === index ? parsed.field : field)));
}

/**
 * Moves a field one place up or down, or to a position; at either end it stays where it
 * is, and a position past the end means the end.
 */
export function moveFieldIn(fields: FormField[], key: string, to: MoveTarget): BuilderResult {
  const index = fields.findIndex((field) => field.key === key);
  if (index === -1) return missing(key);
  if (typeof to === "number" && !(Number.isInteger(to) && to >= 0)) {
    return invalid([{ path: "to", message: "The position must be a whole number from 0." }]);
  }
  const target = to === "up" ? index - 1 : to === "down" ? index + 1 : Math.min(to, fields.length - 1);
  if (target < 0 || target >= fields.length || target === index) return { ok: true, fields };
  const next = fields.filter((field) => field.key !== key);
  // In a form in steps the field joins the step of the field it now follows (the first step's at the top).
  const neighbour = next[target - 1] ?? next[0];
  const moved = neighbour?.step === undefined ? fields[index] : { ...fields[index], step: neighbour.step };
  next.splice(target, 0, moved);
  return withinLimits(next);
}

/** Where a `move-field` post sends its field: `to` (a drag) or `direction` (the buttons). */
export function moveTargetFromFormData(form: FormData): MoveTarget {
  const to = form.get("to");
  if (typeof to === "string" && to.trim() !== "") return /^\d+$/.test(to.trim()) ? Number(to) : Number.NaN;
  return form.get("direction") === "up" ? "up" : "down";
}

export function removeFieldFrom(fields: FormField[], key: string): BuilderResult {
  if (!fields.some((field) => field.key === key)) return missing(key);
  return { ok: true, fields: fields.filter((field) => field.key !== key) };
}

/**
 * Applies one builder submission (`intent` plus its inputs) to a field list.
 * `null` when the submission is not a field edit.
 */
export function applyBuilderSubmission(fields: FormField[], form: FormData): BuilderResult | null {
  const intent = form.get("intent");
  const key = String(form.get("fieldKey") ?? "");
  switch (intent) {
    case "add-field":
      return addFieldTo(fields, fieldInputFromFormData(form, fields));
    case "update-field":
      return updateFieldIn(fields, key, fieldInputFromFormData(form, fields));
    case "move-field":
      return moveFieldIn(fields, key, moveTargetFromFormData(form));
    case "remove-field":
      return removeFieldFrom(fields, key);
    default:
      return null;
  }
}
