// A form's autoresponder (issue 32, decision 066): the email a visitor gets after a
// submission. Anyone can type anyone's address into a public form, so the text is the
// owner's: a placeholder is {{name}}, {{form.name}} or a field the owner lists in
// `allowFields` (never a textarea), and every visitor value is cleaned and cut before it
// goes in. Shared by the server and the builder's preview, so it imports nothing server-only.
import { z } from "zod";
import type { LeadData, LeadValue } from "~/storage/leads/lead-types";
import { EmailSchema } from "../staff/account-schemas";

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const BUILT_IN = new Set(["name", "form.name"]);
export const NAME_MAX = 40;
const VALUE_MAX = 100;

export const AutoresponderSchema = z
  .object({
    enabled: z.boolean().default(false),
    subject: z.string().trim().min(1, "Give the subject.").max(200),
    body: z.string().trim().min(1, "Give the text.").max(5000),
    replyTo: EmailSchema.nullable()
      .optional()
      .transform((address) => address ?? undefined),
    /** Field keys the owner lets into placeholders (decision 066). */
    allowFields: z.array(z.string().trim().min(1).max(100)).max(50).default([]),
  })
  .strict();
export type AutoresponderSettings = z.output<typeof AutoresponderSchema>;

/**
 * The builder's autoresponder form: the switch, subject, text, reply-to and the fields let
 * into placeholders (checkboxes). A subject or text without the other is refused; all of it
 * empty with the switch off removes the autoresponder (autoresponderOfForm).
 */
export const AutoresponderFormSchema = z
  .object({
    enabled: z.boolean().default(false),
    subject: z.string().trim().max(200).optional(),
    body: z.string().trim().max(5000).optional(),
    replyTo: EmailSchema.optional(),
    allowFields: z.array(z.string().trim().min(1).max(100)).max(50).default([]),
  })
  .superRefine((value, context) => {
    if (!value.enabled && !value.subject && !value.body) return;
    if (!value.subject) context.addIssue({ code: "custom", path: ["subject"], message: "Give the subject." });
    if (!value.body) context.addIssue({ code: "custom", path: ["body"], message: "Give the text." });
  });

/** The settings the builder's form stands for: null (none) when it is empty and off. */
export function autoresponderOfForm(value: z.output<typeof AutoresponderFormSchema>): AutoresponderSettings | null {
  if (!value.enabled && !value.subject && !value.body) return null;
  const { enabled, subject = "", body = "", replyTo, allowFields } = value;
  return { enabled, subject, body, replyTo, allowFields };
}

type FieldInfo = { key: string; type: string };
export type AutoresponderProblem = { path: string; message: string };

/** The placeholder names a text uses, in order of first use. */
export function placeholdersOf(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((match) => match[1]))];
}

/** What is wrong with an autoresponder on a form with these fields; empty when nothing. */
export function autoresponderProblems(
  settings: AutoresponderSettings,
  fields: readonly FieldInfo[],
): AutoresponderProblem[] {
  const problems: AutoresponderProblem[] = [];
  const byKey = new Map(fields.map((field) => [field.key, field]));
  settings.allowFields.forEach((key, index) => {
    const field = byKey.get(key);
    const path = `autoresponder.allowFields.${index}`;
    if (!field) problems.push({ path, message: `The form has no field "${key}".` });
    else if (field.type === "textarea")
      problems.push({ path, message: `"${key}" is free text: a long answer cannot go into the email.` });
  });
  for (const part of ["subject", "body"] as const) {
    for (const name of placeholdersOf(settings[part])) {
      if (BUILT_IN.has(name) || settings.allowFields.includes(name)) continue;
      problems.push({
        path: `autoresponder.${part}`,
        message: `Unknown placeholder {{${name}}}: use {{name}}, {{form.name}} or a field listed in allowFields.`,
      });
    }
  }
  return problems;
}

/** A visitor's value as plain words: no links, no markup, one line, cut to `max`. */
export function cleanValue(value: LeadValue | undefined, max: number): string {
  const raw = Array.isArray(value) ? value.join(", ") : value === undefined ? "" : String(value);
  const text = raw
    .replace(/<[^>]*>?/g, " ")
    .replace(/\b(?:[a-z][a-z0-9+.-]*:\/\/|www\.)\S*/gi, " ")
    .replace(/\S+\.(?:[a-z]{2,})(?:\/\S*)?\b/gi, (word) => (word.includes("@") ? " " : word.replace(/\./g, " ")))
    .replace(/[\u0000-\u001f\u007f<>]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return text.length > max ? text.slice(0, max).trimEnd() : text;
}

/** The autoresponse's subject and text for one lead: placeholders filled as plain text. */
export function renderAutoresponse(
  settings: AutoresponderSettings,
  input: { formName: string; personName: string | null; data: LeadData },
): { subject: string; text: string } {
  const fill = (text: string) =>
    text.replace(PLACEHOLDER, (_match, name: string) => {
      if (name === "name") return cleanValue(input.personName ?? "", NAME_MAX);
      if (name === "form.name") return input.formName;
      return settings.allowFields.includes(name) ? cleanValue(input.data[name], VALUE_MAX) : "";
    });
  // Header injection is impossible: a subject is one line.
  const subject = fill(settings.subject)
    .replace(/[\r\n]+/g, " ")
    .trim();
  return { subject: subject.slice(0, 250), text: fill(settings.body) };
}
