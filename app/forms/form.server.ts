// Forms: what a website's lead form is described by (name, settings, field schema),
// and the one way each of them changes. The JSON API and the builder pages call these.
// Schema changes, and how versions are kept, are in form-schema-changes.server.ts.
import { z } from "zod";
import { isPlainObject } from "~/capture/lead-submission.server";
import { forgetCachedForm } from "~/capture/public-form.server";
import { autoresponderProblems } from "~/forms/autoresponder";
import { TEMPLATE_IDS, withTemplate } from "~/forms/form-templates";
import {
  FieldsSchema,
  FormDescriptionSchema,
  FormNameSchema,
  FormSettingsSchema,
  publicSettings,
  type FormField,
  type FormSettings,
} from "~/forms/schema/form-schema";
import { notificationsChanged } from "~/notifications/notifications.server";
import { db, type Prisma } from "~/storage/db.server";
import { decodeCursorOrFail, encodeCursor } from "~/storage/keyset.server";
import {
  DomainError,
  invalidFields,
  parseOrThrow,
  textPolicyDetails,
  zodDetails,
  type ErrorDetail,
} from "~/utils/domain-error";
import { plural } from "~/utils/plural";
import { textPolicyIssues } from "~/utils/text-policy";

export const FORM_STATUSES = ["active", "archived"] as const;
export type FormStatus = (typeof FORM_STATUSES)[number];

export type FormRecord = {
  id: string;
  name: string;
  description: string;
  status: FormStatus;
  schemaVersion: number;
  fields: FormField[];
  settings: FormSettings;
  createdAt: Date;
  updatedAt: Date;
};

export type LeadCounts = { leadCount: number; spamCount: number };

export type FormListItem = {
  id: string;
  name: string;
  status: FormStatus;
  schemaVersion: number;
  fieldCount: number;
  createdAt: Date;
  updatedAt: Date;
} & LeadCounts;

const FORM_SELECT = {
  id: true,
  name: true,
  description: true,
  status: true,
  schemaVersion: true,
  fields: true,
  settings: true,
  createdAt: true,
  updatedAt: true,
} as const;

const NameSchema = FormNameSchema;
const DescriptionSchema = FormDescriptionSchema;

export const CreateFormSchema = z
  .object({
    name: NameSchema,
    description: DescriptionSchema.default(""),
    // Checked by checkFields, which names every mistake at once.
    fields: z.unknown().optional(),
    settings: FormSettingsSchema.prefault({}),
    /** A starting point (form-templates.ts), whose fields withTemplate has filled in. */
    template: z.enum(TEMPLATE_IDS, { error: `Use one of ${TEMPLATE_IDS.join(", ")}.` }).optional(),
  })
  .strict();

export const UpdateFormSchema = z
  .object({
    name: NameSchema.optional(),
    description: DescriptionSchema.optional(),
    status: z.enum(FORM_STATUSES, { error: "Use active or archived." }).optional(),
    // Checked after merging with the stored settings, against FormSettingsSchema.
    settings: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .refine((patch) => Object.keys(patch).length > 0, "Send at least one of name, description, status, settings.");

export const ReplaceSchemaBodySchema = z
  .object({
    // Checked by replaceFormSchema, which names every mistake at once.
    fields: z.unknown().refine((value) => value !== undefined, "Send the field list."),
    /** When given, the change is refused (409) unless the form is still at this version. */
    expectedSchemaVersion: z.number().int().min(1).optional(),
  })
  .strict();

export const MAX_ATTEMPTS = 8;

export function asJson(value: unknown): Prisma.InputJsonValue {
  return value as Prisma.InputJsonValue;
}

/** Stored settings with today's defaults filled in (older rows may lack newer keys). */
function readSettings(value: unknown): FormSettings {
  const result = FormSettingsSchema.safeParse(value ?? {});
  return result.success ? result.data : FormSettingsSchema.parse({});
}

/** JSON with object keys sorted: PostgreSQL's jsonb does not keep key order. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

export function readFields(value: unknown): FormField[] {
  return Array.isArray(value) ? (value as FormField[]) : [];
}

type FormRow = {
  id: string;
  name: string;
  description: string;
  status: string;
  schemaVersion: number;
  fields: unknown;
  settings: unknown;
  createdAt: Date;
  updatedAt: Date;
};

function toRecord(row: FormRow): FormRecord {
  return {
    ...row,
    status: row.status as FormStatus,
    fields: readFields(row.fields),
    settings: readSettings(row.settings),
  };
}

/** An autoresponder's unknown placeholders and disallowed fields: 422, each named (decision 066). */
function failOnAutoresponderProblems(settings: FormSettings, fields: readonly FormField[]): void {
  const problems = settings.autoresponder ? autoresponderProblems(settings.autoresponder, fields) : [];
  if (problems.length > 0) {
    throw invalidFields(problems.map((problem) => ({ ...problem, path: `settings.${problem.path}` })));
  }
}

export function notFound(): never {
  throw new DomainError("not_found", "There is no form with this id.");
}

/** Prisma's error code, whichever of the two generated clients threw it. */
export function prismaCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

export async function leadCounts(formIds: string[]): Promise<Map<string, LeadCounts>> {
  const counts = new Map<string, LeadCounts>(formIds.map((id) => [id, { leadCount: 0, spamCount: 0 }]));
  if (formIds.length === 0) return counts;
  const groups = await db.lead.groupBy({
    by: ["formId", "isSpam"],
    where: { formId: { in: formIds } },
    _count: { _all: true },
  });
  for (const group of groups) {
    const entry = counts.get(group.formId)!;
    if (group.isSpam) entry.spamCount = group._count._all;
    else entry.leadCount = group._count._all;
  }
  return counts;
}

// ---------------------------------------------------------------------------- reading

export const ListFormsQuerySchema = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(50),
    cursor: z.string().max(200).optional(),
    status: z.enum(FORM_STATUSES, { error: "Use active or archived." }).optional(),
  })
  .strict();
export type ListFormsQuery = z.input<typeof ListFormsQuerySchema>;

/** One page of forms, newest first, with field and lead counts. */
export async function listForms(
  query: ListFormsQuery = {},
): Promise<{ items: FormListItem[]; nextCursor: string | null }> {
  const { limit, cursor, status } = parseOrThrow(ListFormsQuerySchema, query);
  const after = cursor ? decodeCursorOrFail(cursor) : null;
  const rows = await db.form.findMany({
    where: {
      ...(status ? { status } : {}),
      ...(after
        ? {
            OR: [{ createdAt: { lt: after.at } }, { createdAt: after.at, id: { lt: after.id } }],
          }
        : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit + 1,
    select: {
      id: true,
      name: true,
      status: true,
      schemaVersion: true,
      fields: true,
      createdAt: true,
      updatedAt: true,
    },
  });
  const page = rows.slice(0, limit);
  const counts = await leadCounts(page.map((row) => row.id));
  return {
    items: page.map((row) => ({
      id: row.id,
      name: row.name,
      status: row.status as FormStatus,
      schemaVersion: row.schemaVersion,
      fieldCount: readFields(row.fields).length,
      ...counts.get(row.id)!,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
    })),
    nextCursor:
      rows.length > limit ? encodeCursor({ at: page[page.length - 1].createdAt, id: page[page.length - 1].id }) : null,
  };
}

export async function findForm(id: string): Promise<FormRecord | null> {
  const row = await db.form.findUnique({ where: { id }, select: FORM_SELECT });
  return row ? toRecord(row) : null;
}

/** The form, or a 404 response thrown. */
export async function getForm(id: string): Promise<FormRecord> {
  return (await findForm(id)) ?? notFound();
}

export async function getFormWithCounts(id: string): Promise<FormRecord & LeadCounts> {
  const form = await getForm(id);
  const counts = (await leadCounts([id])).get(id)!;
  return { ...form, ...counts };
}

// ---------------------------------------------------------------------------- writing

export async function createForm(body: unknown): Promise<FormRecord> {
  if (isPlainObject(body) && body.template !== undefined && body.fields !== undefined) {
    throw invalidFields([{ path: "template", message: "Send either a template or fields, not both." }]);
  }
  const input = withTemplate(body);
  const refused = textPolicyIssues(input);
  if (refused.length > 0) {
    throw invalidFields(textPolicyDetails(refused));
  }
  const base = CreateFormSchema.safeParse(input);
  const checked = checkFields(
    base.success ? (base.data.fields ?? []) : ((input as { fields?: unknown })?.fields ?? []),
  );
  const details = [...(base.success ? [] : zodDetails(base.error)), ...("details" in checked ? checked.details : [])];
  if (!base.success || "details" in checked) {
    throw invalidFields(details);
  }
  const { name, description, settings } = base.data;
  const fields = checked.fields;
  if (settings.doubleOptIn) checkDoubleOptIn(fields);
  failOnAutoresponderProblems(settings, fields);
  // A nested create is one statement batch that cannot fail half-way for a business
  // reason (fresh id, version 1), so the form never exists without its version 1 row.
  const row = await db.form.create({
    data: {
      name,
      description,
      fields: asJson(fields),
      settings: asJson(settings),
      schemaVersion: 1,
      versions: { create: { version: 1, fields: asJson(fields) } },
    },
    select: FORM_SELECT,
  });
  return toRecord(row);
}

/** Double opt-in needs an address to confirm (decision 067): a required email field. */
function checkDoubleOptIn(fields: readonly FormField[]): void {
  if (!fields.some((field) => field.type === "email" && field.required)) {
    throw invalidFields([
      { path: "settings.doubleOptIn", message: "Double opt-in needs a required email field to send the link to." },
    ]);
  }
}

/**
 * Updates name, description, status and settings. `settings` is merged key by key into
 * the stored settings (and `settings.notifications` into the stored notifications; a key set to null is cleared where the schema allows null, e.g.
 * redirectUrl), and the result must pass FormSettingsSchema.
 */
export async function updateForm(id: string, input: unknown): Promise<FormRecord> {
  const patch = parseOrThrow(UpdateFormSchema, input);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const current = await db.form.findUnique({
      where: { id },
      select: { settings: true, updatedAt: true, fields: true },
    });
    if (!current) notFound();
    const data: Prisma.FormUpdateManyMutationInput = {};
    if (patch.name !== undefined) data.name = patch.name;
    if (patch.description !== undefined) data.description = patch.description;
    if (patch.status !== undefined) data.status = patch.status;
    if (patch.settings !== undefined) {
      const stored = readSettings(current.settings);
      const merged: Record<string, unknown> = { ...stored, ...patch.settings };
      // `notifications` and `captcha` merge one level down too: `{mode: "digest"}` keeps the
      // recipients, a new site key the stored secret (which the API never shows).
      for (const key of ["notifications", "captcha"] as const) {
        if (isPlainObject(patch.settings[key])) merged[key] = { ...stored[key], ...patch.settings[key] };
      }
      const settings = parseOrThrow(FormSettingsSchema, merged, "settings");
      if (patch.settings.doubleOptIn) checkDoubleOptIn(current.fields as FormField[]);
      failOnAutoresponderProblems(settings, readFields(current.fields));
      data.settings = asJson(settings);
    }
    // Only when nothing changed the form since it was read: a concurrent settings
    // change is merged again on the next attempt, never overwritten.
    const { count } = await db.form.updateMany({ where: { id, updatedAt: current.updatedAt }, data });
    if (count === 1) {
      forgetCachedForm(id);
      const updated = await getForm(id);
      if (patch.settings?.notifications !== undefined) {
        await notificationsChanged(
          updated,
          readSettings(current.settings).notifications,
          updated.settings.notifications,
        );
      }
      return updated;
    }
  }
  throw new DomainError("conflict", "The form kept changing while saving; try again.");
}

/**
 * Deletes a form with its versions. A form with leads is refused (409 form_has_leads)
 * unless `deleteLeads`, and then its leads go with it (cascade).
 */
export async function deleteForm(id: string, options: { deleteLeads?: boolean } = {}): Promise<void> {
  if (options.deleteLeads) {
    const { count } = await db.form.deleteMany({ where: { id } });
    if (count === 0) notFound();
    forgetCachedForm(id);
    return;
  }
  // One statement: a lead arriving between a check and a delete cannot be lost.
  const { count } = await db.form.deleteMany({ where: { id, leads: { none: {} } } });
  if (count === 1) {
    forgetCachedForm(id);
    return;
  }
  const form = await db.form.findUnique({ where: { id }, select: { id: true } });
  if (!form) notFound();
  const { leadCount, spamCount } = (await leadCounts([id])).get(id)!;
  throw new DomainError(
    "form_has_leads",
    `The form has ${plural(leadCount + spamCount, "lead")}. Delete them with it (deleteLeads=true) or archive the form instead.`,
  );
}

/**
 * FieldsSchema, with every refusal at once: zod checks duplicate keys only when each
 * field is valid on its own, so a list with both kinds of mistake would need two
 * rounds. Duplicates among the raw keys are added here.
 */
export function checkFields(value: unknown): { fields: FormField[] } | { details: ErrorDetail[] } {
  const result = FieldsSchema.safeParse(value);
  if (result.success) return { fields: result.data };
  const details = zodDetails(result.error, "fields");
  if (Array.isArray(value)) {
    const seen = new Set<string>();
    value.forEach((field: unknown, index) => {
      const key = (field as { key?: unknown } | null)?.key;
      if (typeof key !== "string") return;
      const path = `fields.${index}.key`;
      if (seen.has(key.toLowerCase()) && !details.some((detail) => detail.path === path)) {
        details.push({ path, message: `Duplicate field key "${key}".` });
      }
      seen.add(key.toLowerCase());
    });
  }
  return { details };
}

/** The JSON representation the API answers with. */
export function formJson(form: FormRecord & Partial<LeadCounts>) {
  return {
    id: form.id,
    name: form.name,
    description: form.description,
    status: form.status,
    schemaVersion: form.schemaVersion,
    fields: form.fields,
    settings: publicSettings(form.settings),
    createdAt: form.createdAt.toISOString(),
    updatedAt: form.updatedAt.toISOString(),
    ...(form.leadCount !== undefined ? { leadCount: form.leadCount, spamCount: form.spamCount } : {}),
  };
}
