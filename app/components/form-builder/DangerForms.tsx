// The builder's danger zone: archiving (or bringing back) a form, and deleting it after
// asking. Both are Conform forms (decision 022) that post as plain forms without JavaScript.
import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Form, Link, useFetcher, useNavigation } from "@remix-run/react";
import { DeleteFormFormSchema, FormStatusFormSchema } from "~/forms/form-danger-schemas";
import type { ActionResult } from "./shared";

export function StatusForm({ status }: { status: string }) {
  const fetcher = useFetcher<ActionResult>();
  const [form] = useForm({
    id: "form-status",
    lastResult: fetcher.state === "idle" ? fetcher.data?.reply : undefined,
    onValidate: ({ formData }) => parseWithZod(formData, { schema: FormStatusFormSchema }),
  });
  const pending = fetcher.formData?.get("intent");
  // Optimistic: the button flips while the change is saved.
  const shown = pending === "archive" ? "archived" : pending === "unarchive" ? "active" : status;
  return (
    <fetcher.Form method="post" aria-label="Status" {...getFormProps(form)}>
      {shown === "active" ? (
        <p className="actions">
          <input type="hidden" name="intent" value="archive" />
          <button type="submit" className="secondary">
            Archive form
          </button>
          <span className="muted">An archived form stays readable with its leads.</span>
        </p>
      ) : (
        <p className="actions">
          <input type="hidden" name="intent" value="unarchive" />
          <button type="submit" className="secondary">
            Unarchive form
          </button>
          <span className="muted">This form is archived.</span>
        </p>
      )}
      {form.errors?.length ? (
        <p className="error" role="alert">
          {form.errors.join(" ")}
        </p>
      ) : null}
    </fetcher.Form>
  );
}

export function DeleteConfirmation({
  name,
  totalLeads,
  actionData,
}: {
  name: string;
  totalLeads: number;
  actionData: ActionResult | undefined;
}) {
  const navigation = useNavigation();
  const deleting = navigation.state !== "idle" && navigation.formData?.get("intent") === "delete";
  const [form] = useForm({
    id: "delete-form",
    lastResult: actionData?.reply,
    onValidate: ({ formData }) => parseWithZod(formData, { schema: DeleteFormFormSchema }),
  });
  // A refusal (the form has leads) is the reply's form error.
  const refusal = form.errors?.join(" ") || (actionData && !actionData.ok ? actionData.message : undefined);
  return (
    <div className="notice warn" role="group" aria-labelledby="delete-heading">
      <h3 id="delete-heading">Delete “{name}”?</h3>
      <Form method="post" aria-label="Delete form" {...getFormProps(form)}>
        <input type="hidden" name="intent" value="delete" />
        <p>The form and every version of its fields are deleted. This cannot be undone.</p>
        {totalLeads > 0 ? (
          <label className="choice">
            <input type="checkbox" name="deleteLeads" /> Also delete its {totalLeads} lead
            {totalLeads === 1 ? "" : "s"} (otherwise the form is not deleted)
          </label>
        ) : null}
        {refusal ? (
          <p className="error" role="alert">
            {refusal}
          </p>
        ) : null}
        <p className="actions">
          <button type="submit" className="danger" disabled={deleting}>
            {deleting ? "Deleting…" : "Delete permanently"}
          </button>
          <Link to=".">Cancel</Link>
        </p>
      </Form>
    </div>
  );
}
