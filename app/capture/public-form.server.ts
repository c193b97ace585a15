// Forms as the public side sees them (the submit endpoint, the hosted page), cached in
// process memory.
//
// A form's fields, settings and status are read at most once per FORM_CACHE_TTL_MS per
// process. A change made in this process (archive, new schema) is seen at once when
// the forms module calls forgetCachedForm; a change made by another instance is seen
// within the TTL. Unknown ids are cached too, so a flood of made-up ids cannot turn
// into a flood of queries. The validators are cached per (form, schema version).
import { type z } from "zod";
import {
  FieldsSchema,
  FormSettingsSchema,
  buildLeadDataSchema,
  type FormField,
  type FormSettings,
  type LeadData,
  type SubmissionMode,
} from "~/forms/schema/form-schema";
import { db } from "~/storage/db.server";
import { DomainError } from "~/utils/domain-error";
import { hasForbiddenText } from "~/utils/text-policy";

const FORM_CACHE_TTL_MS = 3_000;
const FORM_CACHE_MAX = 5_000;
const FORM_ID_MAX_LENGTH = 100;

export type PublicForm = {
  id: string;
  name: string;
  description: string;
  status: "active" | "archived";
  schemaVersion: number;
  fields: FormField[];
  settings: FormSettings;
  allowedOrigins: ReadonlySet<string>;
};

const formCache = new Map<string, { expiresAt: number; form: Promise<PublicForm | null> }>();
const validatorCache = new Map<string, z.ZodType<LeadData>>();

async function loadPublicForm(id: string): Promise<PublicForm | null> {
  const row = await db.form.findUnique({
    where: { id },
    select: {
      id: true,
      name: true,
      description: true,
      status: true,
      schemaVersion: true,
      fields: true,
      settings: true,
    },
  });
  if (!row) return null;
  // The forms module validated the fields when it wrote them; a list written under
  // older rules (say, before a key became reserved) is still used as it is.
  const parsedFields = FieldsSchema.safeParse(row.fields);
  const fields = parsedFields.success ? parsedFields.data : (row.fields as FormField[]);
  const parsedSettings = FormSettingsSchema.safeParse(row.settings ?? {});
  const settings = parsedSettings.success ? parsedSettings.data : FormSettingsSchema.parse({});
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    status: row.status,
    schemaVersion: row.schemaVersion,
    fields,
    settings,
    allowedOrigins: new Set(settings.allowedOrigins),
  };
}

/** The form with this id (cached for a few seconds), or null. */
export function getPublicForm(id: string): Promise<PublicForm | null> {
  // No form id holds a control character, and PostgreSQL refuses a NUL outright.
  if (id.length === 0 || id.length > FORM_ID_MAX_LENGTH || hasForbiddenText(id)) return Promise.resolve(null);
  const now = Date.now();
  const cached = formCache.get(id);
  if (cached && cached.expiresAt > now) return cached.form;
  if (cached) formCache.delete(id);
  else if (formCache.size >= FORM_CACHE_MAX) formCache.delete(formCache.keys().next().value!);
  // Concurrent requests for the same form share one query.
  const entry = { expiresAt: now + FORM_CACHE_TTL_MS, form: loadPublicForm(id) };
  formCache.set(id, entry);
  // A failed read is not remembered: the next request tries again.
  entry.form.catch(() => {
    if (formCache.get(id) === entry) formCache.delete(id);
  });
  return entry.form;
}

/** Drops a form from this process's cache, so its next submission reads it again. */
export function forgetCachedForm(id: string): void {
  formCache.delete(id);
}

/** The validator of a submission's data for the form's current schema, cached. */
export function leadValidator(form: PublicForm, mode: SubmissionMode): z.ZodType<LeadData> {
  const key = `${form.id}\u0000${form.schemaVersion}\u0000${mode}`;
  let validator = validatorCache.get(key);
  if (!validator) {
    if (validatorCache.size >= FORM_CACHE_MAX) validatorCache.delete(validatorCache.keys().next().value!);
    validator = buildLeadDataSchema(form.fields, mode);
    validatorCache.set(key, validator);
  }
  return validator;
}

/** The form a submission names: 404 when there is none, 410 when it is archived. */
export async function findOpenForm(formId: string): Promise<PublicForm> {
  const form = await getPublicForm(formId);
  if (!form) throw new DomainError("form_not_found", "There is no form with this formId.");
  if (form.status === "archived") throw new DomainError("form_archived", "This form no longer accepts submissions.");
  return form;
}

/**
 * Whether a browser on `origin` may post to this form: any origin when the form lists
 * none, the app's own pages always, otherwise only the listed ones. A request without
 * an Origin header is not from a browser page (curl, a server) and is allowed.
 */
export function isOriginAllowed(form: PublicForm, origin: string | null, ownOrigin: () => string): boolean {
  if (origin === null) return true;
  if (form.allowedOrigins.size === 0) return true;
  return form.allowedOrigins.has(origin) || origin === ownOrigin();
}
