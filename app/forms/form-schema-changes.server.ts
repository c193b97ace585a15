// Schema versions (docs/decisions/003-form-schema-versions.md): every field list a form
// has had is a FormVersion row, and `Form.fields` is always the list of the row numbered
// `Form.schemaVersion`. A change first inserts the next FormVersion row (its primary key
// (formId, version) is the lock: two writers cannot both take version n+1), then moves
// the form to it with `updateMany where schemaVersion = n`. Both are single statements,
// so nothing here needs a transaction. A crash between them leaves a FormVersion row one
// ahead of its form; the next writer finds it and rolls the form forward onto it.
import { forgetCachedForm } from "~/capture/public-form.server";
import {
  addFieldTo,
  fieldInputFromFormData,
  moveFieldIn,
  removeFieldFrom,
  updateFieldIn,
  type BuilderResult,
  type MoveTarget,
} from "~/forms/form-builder";
import type { FormField } from "~/forms/schema/form-schema";
import { db } from "~/storage/db.server";
import { DomainError, invalidFields } from "~/utils/domain-error";
import {
  asJson,
  canonical,
  checkFields,
  getForm,
  MAX_ATTEMPTS,
  notFound,
  prismaCode,
  readFields,
  type FormRecord,
} from "./form.server";

/**
 * The next version is taken by inserting its FormVersion row. False when another
 * writer holds it (after helping that writer finish), so the caller reads again.
 */
async function commitNextVersion(formId: string, current: number, fields: FormField[]): Promise<boolean> {
  const next = current + 1;
  try {
    await db.formVersion.create({
      data: { formId, version: next, fields: asJson(fields) },
      select: { version: true },
    });
  } catch (error) {
    const code = prismaCode(error);
    if (code === "P2003") notFound(); // the form was deleted meanwhile
    if (code !== "P2002") throw error;
    await rollForward(formId, current);
    return false;
  }
  const { count } = await db.form.updateMany({
    where: { id: formId, schemaVersion: current },
    data: { fields: asJson(fields), schemaVersion: next },
  });
  if (count === 1) return true;
  // Only our row moves the form off `current`, so either another writer rolled it
  // forward onto our version, or the form is gone (and our row with it).
  if (!(await db.form.findUnique({ where: { id: formId }, select: { id: true } }))) notFound();
  return true;
}

/** Moves a form onto a FormVersion row written by a writer that stopped (or is slow). */
async function rollForward(formId: string, current: number): Promise<void> {
  const pending = await db.formVersion.findUnique({
    where: { formId_version: { formId, version: current + 1 } },
    select: { fields: true },
  });
  if (!pending) return;
  await db.form.updateMany({
    where: { id: formId, schemaVersion: current },
    data: { fields: asJson(pending.fields), schemaVersion: current + 1 },
  });
}

/**
 * The one way a form's field list changes: `change` gets the current list and returns
 * the next; on a concurrent change it runs again on the newer list. Every change makes
 * a new schemaVersion with its FormVersion row.
 */
async function changeFields(
  formId: string,
  change: (fields: FormField[]) => unknown,
  options: { expectedSchemaVersion?: number } = {},
): Promise<FormRecord> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const current = await db.form.findUnique({
      where: { id: formId },
      select: { fields: true, schemaVersion: true },
    });
    if (!current) notFound();
    if (options.expectedSchemaVersion !== undefined && current.schemaVersion !== options.expectedSchemaVersion) {
      throw new DomainError(
        "version_conflict",
        `The form is at schema version ${current.schemaVersion}, not ${options.expectedSchemaVersion}.`,
        [{ path: "expectedSchemaVersion", message: `The current version is ${current.schemaVersion}.` }],
      );
    }
    const fields = parseFields(change(readFields(current.fields)));
    // Saving the same list again (a move at the end of the list, a repeated PUT) is
    // not a change: no new version for leads to be filed under.
    if (canonical(fields) === canonical(current.fields)) return getForm(formId);
    if (await commitNextVersion(formId, current.schemaVersion, fields)) {
      // The public submit endpoint caches forms; in this process it sees the change at once.
      forgetCachedForm(formId);
      return getForm(formId);
    }
  }
  throw new DomainError("conflict", "The form's fields kept changing while saving; try again.");
}

/** Replaces the whole field list (validated with FieldsSchema): a new schemaVersion. */
export async function replaceFormSchema(
  formId: string,
  fields: unknown,
  options: { expectedSchemaVersion?: number } = {},
): Promise<FormRecord> {
  // Validated before reading the form, so a bad schema is refused the same for any id.
  const valid = parseFields(fields);
  return changeFields(formId, () => valid, options);
}

function parseFields(value: unknown): FormField[] {
  const checked = checkFields(value);
  if ("fields" in checked) return checked.fields;
  throw invalidFields(checked.details);
}

function unwrap(result: BuilderResult): FormField[] {
  if (result.ok) return result.fields;
  throw new DomainError(result.code, result.message, result.details);
}

// The builder's edits. Each is applied to the newest field list and saved through
// changeFields, so they and replaceFormSchema share one way to change a schema.

// A posted field is read against the same newest list it is applied to: a condition's
// value is typed by the field it looks at (a checkbox's "yes" is true).

export function addField(formId: string, form: FormData): Promise<FormRecord> {
  return changeFields(formId, (fields) => unwrap(addFieldTo(fields, fieldInputFromFormData(form, fields))));
}

export function updateField(formId: string, key: string, form: FormData): Promise<FormRecord> {
  return changeFields(formId, (fields) => unwrap(updateFieldIn(fields, key, fieldInputFromFormData(form, fields))));
}

export function moveField(formId: string, key: string, to: MoveTarget): Promise<FormRecord> {
  return changeFields(formId, (fields) => unwrap(moveFieldIn(fields, key, to)));
}

export function removeField(formId: string, key: string): Promise<FormRecord> {
  return changeFields(formId, (fields) => unwrap(removeFieldFrom(fields, key)));
}
