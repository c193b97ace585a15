// /forms/:id/danger: archiving (the form stops taking submissions) and deleting, which asks
// first on its own URL (?delete=confirm) so it works without JavaScript.
import { parseWithZod } from "@conform-to/zod/v4";
import { redirect } from "@remix-run/node";
import { Link, useActionData, useSearchParams } from "@remix-run/react";
import { DeleteConfirmation, StatusForm } from "~/components/form-builder/DangerForms";
import { BuilderNotice, resultFor, useBuilderData } from "~/components/form-builder/shared";
import { builderAction, savePanel, type BuilderIntents } from "~/forms/builder-action.server";
import { changeForm, removeForm } from "~/forms/form-changes.server";
import { DeleteFormFormSchema, FormStatusFormSchema } from "~/forms/form-danger-schemas";

// Archiving stops a form's submissions, so it counts as removing the form.
const setStatus = {
  permission: "forms.delete",
  run: ({ formId, form, actor }) =>
    savePanel(String(form.get("intent")), parseWithZod(form, { schema: FormStatusFormSchema }), ({ intent }) =>
      changeForm(formId, { status: intent === "archive" ? "archived" : "active" }, actor),
    ),
} satisfies BuilderIntents[string];

export const action = builderAction({
  archive: setStatus,
  unarchive: setStatus,
  delete: {
    permission: "forms.delete",
    run: ({ formId, form, actor }) =>
      savePanel("delete", parseWithZod(form, { schema: DeleteFormFormSchema }), async ({ deleteLeads }) => {
        await removeForm(formId, { deleteLeads: deleteLeads ?? false }, actor);
        return redirect("/forms");
      }),
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
