// A staff user's changes to a form, on record: archiving or bringing back a form (which
// stops or restarts its submissions) and deleting it are audited here, so the builder's
// danger zone and PATCH/DELETE /api/forms/:id record them the one same way.
import { auditBy, type AuditActor } from "~/audit/audit.server";
import { isPlainObject } from "~/capture/lead-submission.server";
import { deleteForm, updateForm, type FormRecord } from "./form.server";

/** updateForm, recording form.archive or form.unarchive when the patch sets a status. */
export async function changeForm(id: string, patch: unknown, actor: AuditActor): Promise<FormRecord> {
  const form = await updateForm(id, patch);
  const status = isPlainObject(patch) ? patch.status : undefined;
  if (status !== undefined)
    await auditBy(actor, status === "archived" ? "form.archive" : "form.unarchive", `form:${id}`);
  return form;
}

/** deleteForm, recording form.delete (and whether its leads went with it). */
export async function removeForm(id: string, options: { deleteLeads: boolean }, actor: AuditActor): Promise<void> {
  await deleteForm(id, options);
  await auditBy(actor, "form.delete", `form:${id}`, { deleteLeads: options.deleteLeads });
}
