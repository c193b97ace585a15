// A form's field schema, and the one place that turns it into the validator a lead's
// `data` must pass. Shared by the server (API, lead submission) and the browser
// (builder preview, hosted form), so it imports nothing server-only.
import { z } from "zod";
import type { LeadData, LeadValue } from "~/storage/leads/lead-types";
import { DEFAULT_SUCCESS_MESSAGE } from "../../leads/lead-fields";
import { EmailSchema } from "../../staff/account-schemas";
import { AutoresponderSchema } from "../autoresponder";
import { CAPTCHA_PROVIDERS } from "../captcha-widgets";
import { CONSENT_TEXT_MAX, consentFieldProblems } from "./consent-text";
import { ConditionSchema, conditionKeys, isShown } from "./field-conditions";
import { FILE_FIELD_KEYS, fileFieldProblems } from "./file-field";
import { fileStepProblems, MAX_STEPS, stepOrderProblems } from "./form-steps";
import { HttpsUrlSchema, HttpUrlSchema } from "./url-schemas";

export { HttpsUrlSchema, HttpUrlSchema };

export const FIELD_TYPES = [
  "text",
  "textarea",
  "email",
  "tel",
  "url",
  "number",
  "date",
  "select",
  "multiselect",
  "checkbox",
  "hidden",
  "consent",
  "file",
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/**
 * A box ticked or not: a checkbox, or a consent (decision 065), which is a checkbox whose
 * text is the exact wording agreed to and whose tick is kept as a consent record.
 */
export const isTickBox = (type: string): boolean => type === "checkbox" || type === "consent";

const TEXT_TYPES: readonly FieldType[] = ["text", "textarea", "email", "tel", "url", "hidden"];
const CHOICE_TYPES: readonly FieldType[] = ["select", "multiselect"];

/** Longest value a field takes when its schema sets no maxLength. */
export const DEFAULT_MAX_LENGTH: Partial<Record<FieldType, number>> = { textarea: 10_000 };
const FALLBACK_MAX_LENGTH = 1_000;

/**
 * Names a plain form post uses for the submission itself, not the lead
 * (see app/capture/lead-capture.server.ts): a field cannot take them.
 */
export const RESERVED_FIELD_KEYS = [
  "formId",
  "utm_source",
  "utm_medium",
  "utm_campaign",
  "utm_term",
  "utm_content",
  "referrerUrl",
  "landingPageUrl",
] as const;
const RESERVED_KEYS_LOWER = new Set<string>(RESERVED_FIELD_KEYS.map((key) => key.toLowerCase()));

// Names every JavaScript object answers to (constructor, toString, valueOf...): a field
// keyed so would find an inherited value wherever data is read as a plain object.
const OBJECT_MEMBERS_LOWER = new Set(Object.getOwnPropertyNames(Object.prototype).map((name) => name.toLowerCase()));

/** Whether a field may not use this key (submission names and object members alike). */
export function isReservedFieldKey(key: string): boolean {
  const lower = key.toLowerCase();
  return RESERVED_KEYS_LOWER.has(lower) || OBJECT_MEMBERS_LOWER.has(lower);
}

export const FieldKeySchema = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, "Use letters, digits and underscores, starting with a letter (64 at most).")
  .refine((key) => !RESERVED_KEYS_LOWER.has(key.toLowerCase()), {
    message: `This key is reserved for submissions (${RESERVED_FIELD_KEYS.join(", ")}).`,
  })
  .refine((key) => !OBJECT_MEMBERS_LOWER.has(key.toLowerCase()), {
    message: "This key is reserved: it names a built-in property of every object. Choose another.",
  });

const optionalText = (max: number) => z.string().trim().max(max).optional();

export const FieldSchema = z
  .object({
    key: FieldKeySchema,
    label: z.string().trim().min(1, "Give the field a label.").max(200),
    type: z.enum(FIELD_TYPES, { error: `Use one of: ${FIELD_TYPES.join(", ")}.` }),
    required: z.boolean().default(false),
    minLength: z.number().int().min(0).max(100_000).optional(),
    maxLength: z.number().int().min(1).max(100_000).optional(),
    min: z.number().finite().optional(),
    max: z.number().finite().optional(),
    pattern: z.string().max(500).optional(),
    options: z.array(z.string().trim().min(1, "An option cannot be empty.").max(200)).max(500).optional(),
    placeholder: optionalText(200),
    helpText: optionalText(500),
    /** A consent field's exact wording, links as `[label](https://…)` (consent-text.ts). */
    text: z.string().trim().min(1, "Give the text the visitor agrees to.").max(CONSENT_TEXT_MAX).optional(),
    defaultValue: z.union([z.string().max(10_000), z.number().finite(), z.boolean(), z.array(z.string())]).optional(),
    /** A file field's types, size in MB and number of files (file-field.ts, decision 064). */
    ...FILE_FIELD_KEYS,
    /** When the field is part of the form (field-conditions.ts); always when absent. */
    showIf: ConditionSchema.optional(),
    /** The page of a form in steps the field is on (form-steps.ts); 1 when absent. */
    step: z
      .number({ error: "Use a step number." })
      .int("Use a whole step number.")
      .min(1, "Steps count from 1.")
      .max(MAX_STEPS, `A form has at most ${MAX_STEPS} steps.`)
      .optional(),
  })
  .strict()
  .superRefine((field, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
    if (CHOICE_TYPES.includes(field.type)) {
      if (!field.options || field.options.length === 0) issue("options", "A select field needs at least one option.");
      else if (new Set(field.options).size !== field.options.length) issue("options", "Options must be unique.");
    } else if (field.options !== undefined) {
      issue("options", "Options only apply to select and multiselect fields.");
    }
    if (field.minLength !== undefined && field.maxLength !== undefined && field.minLength > field.maxLength) {
      issue("minLength", "minLength cannot be greater than maxLength.");
    }
    if (field.min !== undefined && field.max !== undefined && field.min > field.max) {
      issue("min", "min cannot be greater than max.");
    }
    if ((field.minLength !== undefined || field.maxLength !== undefined) && !TEXT_TYPES.includes(field.type)) {
      issue("minLength", "Length rules only apply to text fields.");
    }
    if ((field.min !== undefined || field.max !== undefined) && field.type !== "number") {
      issue("min", "min and max only apply to number fields.");
    }
    for (const [path, message] of consentFieldProblems(field)) issue(path, message);
    for (const [path, message] of fileFieldProblems(field)) issue(path, message);
    if (field.pattern !== undefined) {
      if (!TEXT_TYPES.includes(field.type)) issue("pattern", "A pattern only applies to text fields.");
      else if (!compilePattern(field.pattern)) issue("pattern", "The pattern is not a valid regular expression.");
    }
  });

export type FormField = z.output<typeof FieldSchema>;

export const FieldsSchema = z
  .array(FieldSchema)
  .max(100, "A form has at most 100 fields.")
  .superRefine((fields, ctx) => {
    const seen = new Set<string>();
    const keys = fields.map((field) => field.key);
    fields.forEach((field, index) => {
      const key = field.key.toLowerCase();
      if (seen.has(key)) {
        ctx.addIssue({ code: "custom", path: [index, "key"], message: `Duplicate field key "${field.key}".` });
      }
      seen.add(key);
      // Only answers given before the field: no condition can wait on itself or a later one.
      for (const looked of field.showIf ? conditionKeys(field.showIf) : []) {
        const at = keys.indexOf(looked);
        if (at === -1 || at >= index) {
          const message =
            at === -1
              ? `The condition looks at "${looked}", which is not a field of this form.`
              : `The condition looks at "${looked}": a condition may only look at fields before its own.`;
          ctx.addIssue({ code: "custom", path: [index, "showIf"], message });
        }
      }
    });
    for (const { index, message } of [...stepOrderProblems(fields), ...fileStepProblems(fields)]) {
      ctx.addIssue({ code: "custom", path: [index, "step"], message });
    }
  });

/** `https://Example.com/path` -> `https://example.com`; refuses anything but an http(s) origin. */
const OriginSchema = z
  .string()
  .trim()
  .transform((value, ctx) => {
    try {
      const url = new URL(value);
      if ((url.protocol === "http:" || url.protocol === "https:") && (url.pathname === "/" || url.pathname === "")) {
        return url.origin;
      }
    } catch {
      // fall through
    }
    ctx.addIssue({ code: "custom", message: "Use an origin such as https://www.example.com." });
    return z.NEVER;
  });

/** A form's name and description, as the API and the dashboard's "New form" take them. */
export const FormNameSchema = z
  .string({ error: "Give the form a name." })
  .trim()
  .min(1, "Give the form a name.")
  .max(200);
export const FormDescriptionSchema = z.string().trim().max(2000);
/**
 * The dashboard's "New form" and the builder's "Name and description": validated in the
 * browser (Conform) and again on the server.
 */
export const FormDetailsSchema = z.object({ name: FormNameSchema, description: FormDescriptionSchema.default("") });

export { DEFAULT_SUCCESS_MESSAGE };

export const NOTIFICATION_MODES = ["instant", "digest"] as const;
export const MAX_NOTIFICATION_RECIPIENTS = 20;

/** Who is emailed about the form's leads (spam aside): at once, or in one daily digest. */
export const NotificationSettingsSchema = z
  .object({
    recipients: z
      .array(EmailSchema)
      .max(MAX_NOTIFICATION_RECIPIENTS, `At most ${MAX_NOTIFICATION_RECIPIENTS} recipients.`)
      .default([])
      // One email per address, whatever the list repeats.
      .transform((list) => [...new Set(list)]),
    mode: z.enum(NOTIFICATION_MODES, { error: 'Choose "instant" or "digest".' }).default("instant"),
  })
  .strict();
export type NotificationSettings = z.output<typeof NotificationSettingsSchema>;

/** What the hosted thank-you page says, and its way back to the customer's site. */
export const ThankYouSchema = z
  .object({
    /** Shown instead of successMessage (which stays the fallback). */
    message: z.string().trim().min(1).max(500).optional(),
    linkUrl: HttpUrlSchema.optional(),
    linkText: z.string().trim().min(1).max(100).optional(),
  })
  .strict()
  .refine((thankYou) => !thankYou.linkText || thankYou.linkUrl, {
    message: "A link text needs a link address.",
    path: ["linkUrl"],
  });

/**
 * A CAPTCHA the form asks for (app/capture/captcha.server.ts checks it). The API never
 * returns `secretKey` (publicSettings), and a PATCH merges this object key by key, so a
 * new site key keeps the stored secret.
 */
export const CaptchaSettingsSchema = z
  .object({
    provider: z.enum(CAPTCHA_PROVIDERS, { error: `Use one of ${CAPTCHA_PROVIDERS.join(", ")}.` }),
    siteKey: z.string().trim().min(1, "Give the site key.").max(200),
    secretKey: z.string().trim().min(1, "Give the secret key.").max(500),
  })
  .strict();
export type CaptchaSettings = z.output<typeof CaptchaSettingsSchema>;

export const MAX_RETENTION_DAYS = 36_500;
const RETENTION_DAYS_MESSAGE = `Give a whole number of days from 1 to ${MAX_RETENTION_DAYS}, or null to keep leads.`;
export const RetentionDaysSchema = z
  .number({ error: RETENTION_DAYS_MESSAGE })
  .int(RETENTION_DAYS_MESSAGE)
  .min(1, RETENTION_DAYS_MESSAGE)
  .max(MAX_RETENTION_DAYS, RETENTION_DAYS_MESSAGE);

export const FormSettingsSchema = z
  .object({
    /** Origins allowed to post to the submit endpoint; empty means any. */
    allowedOrigins: z.array(OriginSchema).max(50).default([]),
    /** Where a plain HTML form post lands after success; unset: the built-in thank-you page. */
    redirectUrl: HttpUrlSchema.nullable().optional(),
    successMessage: z.string().trim().min(1).max(500).default(DEFAULT_SUCCESS_MESSAGE),
    // null removes it: stored settings (and the API) have it or not, never null.
    thankYou: ThankYouSchema.nullable()
      .optional()
      .transform((thankYou) => thankYou ?? undefined),
    notifications: NotificationSettingsSchema.prefault({}),
    // null removes it, as for thankYou.
    captcha: CaptchaSettingsSchema.nullable()
      .optional()
      .transform((captcha) => captcha ?? undefined),
    /** The names of a form's steps, first step first (form-steps.ts); an empty one names none. */
    stepTitles: z
      .array(z.string().trim().max(100, "A step title has at most 100 characters."))
      .max(MAX_STEPS, `A form has at most ${MAX_STEPS} steps.`)
      .optional(),
    /** Keep the answers of a visitor's completed steps as a partial lead (decision 060). */
    capturePartial: z.boolean().optional(),
    /**
     * Double opt-in (decision 067): a lead waits for its visitor to confirm the address by an
     * emailed link before it is announced (lead.created, notifications). Needs an email field.
     */
    doubleOptIn: z.boolean().optional(),
    /**
     * Leads older than this many days are deleted by the retention job (decision 069); absent or
     * null: kept. A whole number of days, at most 100 years.
     */
    retentionDays: RetentionDaysSchema.nullable()
      .optional()
      .transform((days) => days ?? undefined),
    /** The email a visitor gets after a submission (autoresponder.ts, decision 066); null removes it. */
    autoresponder: AutoresponderSchema.nullable()
      .optional()
      .transform((autoresponder) => autoresponder ?? undefined),
    /** The form's privacy notice, linked beside its Send button (decision 065); null removes it. */
    privacyUrl: HttpsUrlSchema.nullable()
      .optional()
      .transform((url) => url ?? undefined),
  })
  .strict();
export type FormSettings = z.output<typeof FormSettingsSchema>;

/** A form's settings as the API and the pages show them: the CAPTCHA's secret left out. */
export function publicSettings(settings: FormSettings) {
  if (!settings.captcha) return settings;
  const { secretKey: _secret, ...captcha } = settings.captcha;
  return { ...settings, captcha };
}

/** Text, one value per line, as a list of the non-empty lines. */
const linesOf = (value: unknown) =>
  typeof value === "string"
    ? value
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter(Boolean)
    : value;

/**
 * The builder's settings form, with the API's rules: origins one per line (an error at
 * `allowedOrigins[i]` names line i + 1), and an empty redirect or message for none
 * (Conform reads an empty input as absent).
 */
export const SettingsFormSchema = z.object({
  allowedOrigins: z.preprocess(linesOf, FormSettingsSchema.shape.allowedOrigins),
  redirectUrl: HttpUrlSchema.optional(),
  successMessage: FormSettingsSchema.shape.successMessage,
  thankYouMessage: z.string().trim().min(1).max(500).optional(),
  thankYouLinkUrl: HttpUrlSchema.optional(),
  thankYouLinkText: z.string().trim().min(1).max(100).optional(),
  // One title per line, step 1 first (blank lines are skipped).
  stepTitles: z.preprocess(linesOf, FormSettingsSchema.shape.stepTitles),
  privacyUrl: HttpsUrlSchema.optional(),
});

/** The builder's partial capture form: a plain checkbox, absent when unticked. */
export const PartialCaptureFormSchema = z.object({ capturePartial: z.boolean().default(false) });
export const DoubleOptInFormSchema = z.object({ doubleOptIn: z.boolean().default(false) });
/** How long a double opt-in confirmation link works (decision 067). */
export const CONFIRMATION_VALID_DAYS = 7;
/** The builder's retention form: a number of days, or empty to keep leads (Conform reads empty as absent). */
export const RetentionFormSchema = z.object({
  retentionDays: z.preprocess(
    (value) => (typeof value === "string" && /^\s*\d+\s*$/.test(value) ? Number(value) : value),
    RetentionDaysSchema.optional(),
  ),
});

/** The builder's CAPTCHA form: a provider or none; a secret left empty keeps the stored one. */
export const CaptchaFormSchema = z
  .object({
    provider: z.enum(["none", ...CAPTCHA_PROVIDERS]).default("none"),
    siteKey: CaptchaSettingsSchema.shape.siteKey.optional(),
    secretKey: CaptchaSettingsSchema.shape.secretKey.optional(),
  })
  .refine((captcha) => captcha.provider === "none" || captcha.siteKey, {
    message: "Give the site key.",
    path: ["siteKey"],
  });

/** The builder's notifications form: recipients one per line (or comma-separated). */
export const NotificationsFormSchema = z.object({
  recipients: z.preprocess(
    (value) => (typeof value === "string" ? linesOf(value.replace(/[,;]/g, "\n")) : value),
    NotificationSettingsSchema.shape.recipients,
  ),
  mode: NotificationSettingsSchema.shape.mode,
});

export function compilePattern(pattern: string): RegExp | null {
  try {
    // Anchored, as in HTML's pattern attribute; "v" mode is not needed for our rules.
    return new RegExp(`^(?:${pattern})$`, "u");
  } catch {
    return null;
  }
}

// A lead's data as the Lead table holds it.
export type { LeadData, LeadValue };

/**
 * How `data` arrives:
 * - "json": from the JSON API. Types must match (a number field takes a number or a
 *   numeric string, a checkbox a boolean); unknown keys are refused, naming the key.
 * - "form": from an HTML form post. Every value is text: numbers and dates are parsed,
 *   a checkbox is on when present ("on", "true", "1", "yes"), a multiselect takes repeated
 *   keys; unknown keys (a submit button's name, a site's extra inputs) are dropped.
 */
export type SubmissionMode = "json" | "form";

const EMPTY = (value: unknown) =>
  value === undefined ||
  value === null ||
  (typeof value === "string" && value.trim() === "") ||
  (Array.isArray(value) && value.length === 0);

function valueSchema(field: FormField, mode: SubmissionMode): z.ZodType<LeadValue | undefined> {
  const required = "This field is required.";
  switch (field.type) {
    case "number": {
      let number = z.number({ error: "Enter a number." }).finite();
      if (field.min !== undefined) number = number.min(field.min, `Enter ${field.min} or more.`);
      if (field.max !== undefined) number = number.max(field.max, `Enter ${field.max} or less.`);
      return z.preprocess((value) => {
        if (typeof value === "string" && value.trim() !== "" && !Number.isNaN(Number(value))) return Number(value);
        return value;
      }, number);
    }
    case "checkbox":
    case "consent": {
      const checkbox =
        mode === "form"
          ? z.preprocess(
              (value) =>
                ["on", "true", "1", "yes"].includes(String(Array.isArray(value) ? value[0] : value).toLowerCase()),
              z.boolean(),
            )
          : z.boolean({ error: "Use true or false." });
      return field.required ? checkbox.refine((checked) => checked === true, required) : checkbox;
    }
    case "select":
      return z.enum(field.options as [string, ...string[]], { error: `Choose one of: ${field.options!.join(", ")}.` });
    case "multiselect": {
      const choice = z.enum(field.options as [string, ...string[]], {
        error: `Choose from: ${field.options!.join(", ")}.`,
      });
      const list = z.array(choice).max(field.options!.length);
      return mode === "form" ? z.preprocess((value) => (Array.isArray(value) ? value : [value]), list) : list;
    }
    case "file": {
      // A form post's value is set from the files that came (app/capture/uploads/lead-uploads.server.ts):
      // their names. JSON cannot carry a file.
      if (mode === "json") return z.never({ error: "Send files as multipart/form-data." });
      const name = z.string().max(255);
      return z.preprocess((value) => (Array.isArray(value) ? value : [value]), z.array(name).max(field.maxFiles ?? 1));
    }
    case "date":
      return z
        .string({ error: "Enter a date." })
        .trim()
        .regex(/^\d{4}-\d{2}-\d{2}$/, "Enter a date as YYYY-MM-DD.")
        .refine(
          (value) =>
            !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) &&
            new Date(`${value}T00:00:00Z`).toISOString().startsWith(value),
          "Enter a real date.",
        );
    default: {
      const max = field.maxLength ?? DEFAULT_MAX_LENGTH[field.type] ?? FALLBACK_MAX_LENGTH;
      let text = z.string({ error: "Enter text." }).trim().max(max, `Use at most ${max} characters.`);
      if (field.minLength !== undefined)
        text = text.min(field.minLength, `Use at least ${field.minLength} characters.`);
      if (field.type === "email") return text.pipe(z.email("Enter a valid email address."));
      if (field.type === "url") return text.pipe(HttpUrlSchema);
      if (field.pattern) {
        const regex = compilePattern(field.pattern);
        if (regex) return text.regex(regex, "The value does not have the expected format.");
      }
      return text;
    }
  }
}

/**
 * The validator for a lead's `data` under these fields. Empty optional values are
 * left out of the result; a form post's unchecked optional checkbox is stored as false.
 */
function fieldSchema(field: FormField, mode: SubmissionMode): z.ZodType {
  const schema = valueSchema(field, mode);
  if (isTickBox(field.type) && mode === "form") return schema;
  if (field.required) {
    // A missing or empty value stops at "required" before the type's own message.
    const present = z.custom((value) => value !== undefined, { error: "This field is required." });
    return z.preprocess((value) => (EMPTY(value) ? undefined : value), present.pipe(schema));
  }
  return z.preprocess((value) => (EMPTY(value) ? undefined : value), schema.optional());
}

export function buildLeadDataSchema(fields: FormField[], mode: SubmissionMode) {
  const shape: Record<string, z.ZodType> = {};
  // A field with a condition is checked once the answers before it say whether it is shown.
  const later = new Map<string, z.ZodType>();
  for (const field of fields) {
    if (field.showIf) later.set(field.key, fieldSchema(field, mode));
    shape[field.key] = field.showIf ? z.unknown().optional() : fieldSchema(field, mode);
  }
  const object = mode === "json" ? z.object(shape).strict() : z.object(shape).strip();
  if (later.size === 0) return object as unknown as z.ZodType<LeadData>;
  return object.transform((data, ctx) => {
    const answers: Record<string, unknown> = { ...data };
    for (const field of fields) {
      const schema = later.get(field.key);
      if (!schema) continue;
      // Hidden: not required, and whatever was sent for it is dropped. Its condition looks only
      // at fields before it, whose answers are final here (a hidden one already dropped).
      const parsed = isShown(field.showIf!, answers) ? schema.safeParse(data[field.key]) : null;
      if (parsed?.success && parsed.data !== undefined) answers[field.key] = parsed.data;
      else delete answers[field.key];
      for (const issue of parsed?.error?.issues ?? []) {
        ctx.addIssue({ code: "custom", path: [field.key, ...issue.path], message: issue.message });
      }
    }
    return answers;
  }) as unknown as z.ZodType<LeadData>;
}
