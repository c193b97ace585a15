// /forms/:id/danger: archiving (the form stops taking submissions) and deleting, which asks
// first on its own URL (?delete=confirm) so it works without JavaScript.
import { redirect } from "@remix-run/node";
import { Link, useActionData, useSearchParams } from "@remix-run/react";
import { DeleteConfirmation, StatusForm } from "~/components/form-builder/FormPanels";
import { BuilderNotice, resultFor, useBuilderData } from "~/components/form-builder/shared";
import { builderAction } from "~/forms/builder-action.server";
import { deleteForm, setFormStatus } from "~/forms/form.server";

// Archiving stops a form's submissions, so it counts as removing the form.
export const action = builderAction({
  archive: {
    permission: "forms.delete",
    run: async ({ formId, audit }) => {
      await setFormStatus(formId, "archived");
      await audit("form.archive", `form:${formId}`);
    },
  },
  unarchive: {
    permission: "forms.delete",
    run: async ({ formId, audit }) => {
      await setFormStatus(formId, "active");
      await audit("form.unarchive", `form:${formId}`);
    },
  },
  delete: {
    permission: "forms.delete",
    run: async ({ formId, form, audit }) => {
      const deleteLeads = form.get("deleteLeads") === "on";
      await deleteForm(formId, { deleteLeads });
      await audit("form.delete", `form:${formId}`, { deleteLeads });
      return redirect("/forms");
    },
  },
});

export default function DangerSection() {
  const { form, fields, canDelete } = useBuilderData();
  const actionData = useActionData<typeof action>();
  const [searchParams] = useSearchParams();
  return (
    <section className="card" aria-labelledby="danger-heading">
      <h2 id="danger-heading">Archive or delete</h2>
      {!canDelete ? (
        <p className="muted">Only owners and admins can archive or delete a form.</p>
      ) : (
        <>
          <BuilderNotice actionData={actionData} fields={fields} />
          <StatusForm status={form.status} />
          {searchParams.get("delete") === "confirm" ? (
            <DeleteConfirmation
              name={form.name}
              totalLeads={(form.leadCount ?? 0) + (form.spamCount ?? 0)}
              actionData={resultFor(actionData, "delete")}
            />
          ) : (
            <p>
              <Link to="?delete=confirm#delete-heading" className="button secondary">
                Delete form…
              </Link>
            </p>
          )}
        </>
      )}
    </section>
  );
}

export { BuilderError as ErrorBoundary } from "~/components/form-builder/shared";
