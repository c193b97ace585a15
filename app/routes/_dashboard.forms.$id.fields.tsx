// /forms/:id/fields: the builder's fields, the add-field form and a live preview (beside
// them on a wide screen, below on a narrow one). Every change is a real form post with an
// `intent` (it works without JavaScript); with JavaScript each one goes through a fetcher,
// and the list and the preview show pending changes at once, computed by the same
// functions the server applies (app/forms/form-builder.ts).
import { useActionData, useFetchers } from "@remix-run/react";
import { useState } from "react";
import { FieldEditor } from "~/components/form-builder/FieldEditor";
import { FieldList } from "~/components/form-builder/FieldList";
import { FormPreview } from "~/components/form-builder/FormPreview";
import { SavedAnnouncer } from "~/components/form-builder/SavedAnnouncer";
import { BuilderNotice, resultFor, useBuilderData, type Draft } from "~/components/form-builder/shared";
import { builderAction } from "~/forms/builder-action.server";
import {
  BUILDER_INTENTS,
  addFieldTo,
  applyBuilderSubmission,
  moveTargetFromFormData,
  updateFieldIn,
} from "~/forms/form-builder";
import { addField, moveField, removeField, updateField } from "~/forms/form-schema-changes.server";
import { getForm } from "~/forms/form.server";
import type { FormField } from "~/forms/schema/form-schema";
import { stepOf } from "~/forms/schema/form-steps";

const key = (form: FormData) => String(form.get("fieldKey") ?? "");

/** A field's label in a saved form, for what the builder says back. */
const labelIn = (record: { fields: unknown }, fieldKey: string) =>
  (record.fields as FormField[]).find((field) => field.key === fieldKey)?.label ?? fieldKey;

const MOVED: Record<string, string> = { up: "moved up", down: "moved down" };

// Each change answers what it did ("Email moved up"): the page says "Saved: Email moved up",
// in a polite live region with JavaScript, as the notice after the post without.
export const action = builderAction({
  "add-field": {
    permission: "forms.write",
    run: async ({ formId, form }) => {
      await addField(formId, form);
      return `${String(form.get("label") ?? "").trim()} added`;
    },
  },
  "update-field": {
    permission: "forms.write",
    run: async ({ formId, form }) => `${labelIn(await updateField(formId, key(form), form), key(form))} changed`,
  },
  "move-field": {
    permission: "forms.write",
    run: async ({ formId, form }) => {
      const to = moveTargetFromFormData(form);
      const record = await moveField(formId, key(form), to);
      const place = (record.fields as FormField[]).findIndex((field) => field.key === key(form)) + 1;
      return `${labelIn(record, key(form))} ${typeof to === "number" ? `moved to place ${place}` : MOVED[to]}`;
    },
  },
  "remove-field": {
    permission: "forms.write",
    run: async ({ formId, form }) => {
      const label = labelIn(await getForm(formId), key(form));
      await removeField(formId, key(form));
      return `${label} removed`;
    },
  },
});

export default function FieldsSection() {
  const { fields: saved, form } = useBuilderData();
  const actionData = useActionData<typeof action>();
  const fetchers = useFetchers();
  const [draft, setDraft] = useState<Draft>(null);
  const fields = withPendingEdits(saved, fetchers);

  return (
    <>
      <BuilderNotice actionData={actionData} fields={fields} />
      <SavedAnnouncer saved={saved}>
        <div className="builder-fields">
          <div>
            <FieldList fields={fields} actionData={actionData} onDraft={setDraft} />
            <section className="card" aria-labelledby="add-field-heading">
              <h2 id="add-field-heading">Add a field</h2>
              <FieldEditor
                mode="add"
                fields={fields}
                idPrefix="new"
                actionData={resultFor(actionData, "add-field")}
                onDraft={setDraft}
              />
            </section>
          </div>
          <FormPreview
            fields={withDraft(fields, draft)}
            stepTitles={form.settings.stepTitles}
            editingStep={draft ? stepOf(draft.field) : undefined}
          />
        </div>
      </SavedAnnouncer>
    </>
  );
}

/** Pending field edits, applied in order by the server's own functions. */
function withPendingEdits(saved: FormField[], fetchers: ReturnType<typeof useFetchers>): FormField[] {
  let fields = saved;
  for (const fetcher of fetchers) {
    if (!fetcher.formData || !BUILDER_INTENTS.includes(fetcher.formData.get("intent") as never)) continue;
    const result = applyBuilderSubmission(fields, fetcher.formData);
    if (result?.ok) fields = result.fields;
  }
  return fields;
}

/** The fields with the one being edited as it stands, while it is valid. */
function withDraft(fields: FormField[], draft: Draft): FormField[] {
  if (!draft) return fields;
  const result =
    draft.target === null ? addFieldTo(fields, draft.field) : updateFieldIn(fields, draft.target, draft.field);
  return result.ok ? result.fields : fields;
}

export { BuilderError as ErrorBoundary } from "~/components/form-builder/shared";
