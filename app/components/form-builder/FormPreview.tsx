// The form as visitors will see it, drafts included; it never posts.
import { FormFields } from "~/components/FormFields";
import type { FormField } from "~/forms/form-schema";

export function FormPreview({ fields }: { fields: FormField[] }) {
  return (
    <aside className="card builder-preview" aria-labelledby="preview-heading">
      <h2 id="preview-heading">Preview</h2>
      <div role="region" aria-label="Form preview">
        {fields.length === 0 ? (
          <p className="muted">The form has no fields yet.</p>
        ) : (
          <form onSubmit={(event) => event.preventDefault()} aria-label="Preview of the form">
            <FormFields fields={fields} idPrefix="preview" />
            <button type="button" disabled>
              Send
            </button>
          </form>
        )}
      </div>
    </aside>
  );
}
