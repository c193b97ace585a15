// "New form"'s choice of a starting point: blank or one of the templates, each listed with
// its fields (readable without JavaScript), and with JavaScript a preview of the chosen
// template as the hosted form will show it.
import { useState } from "react";
import { FormFields } from "~/components/FormFields";
import { formTemplates, type TemplateId } from "~/forms/form-templates";

const TEMPLATES = formTemplates();

export function TemplatePicker({ initial, error }: { initial?: string; error?: string }) {
  const [chosen, setChosen] = useState<string>(initial ?? "");
  const preview = TEMPLATES.find((template) => template.id === (chosen as TemplateId));
  return (
    <>
      <fieldset aria-describedby={error ? "new-form-template-error" : undefined}>
        <legend>Start from</legend>
        <label>
          <input type="radio" name="template" value="" checked={chosen === ""} onChange={() => setChosen("")} /> A blank
          form <span className="muted">(add the fields yourself)</span>
        </label>
        {TEMPLATES.map((template) => (
          <label key={template.id}>
            <input
              type="radio"
              name="template"
              value={template.id}
              checked={chosen === template.id}
              onChange={() => setChosen(template.id)}
            />{" "}
            {template.title} <span className="muted">({template.fields.map((field) => field.label).join(", ")})</span>
          </label>
        ))}
      </fieldset>
      {error ? (
        <p id="new-form-template-error" className="field-error">
          {error}
        </p>
      ) : null}
      {preview ? (
        <section className="template-preview" aria-label={`Preview of the ${preview.title} template`}>
          <p className="muted">{preview.description}</p>
          <FormFields fields={preview.fields} idPrefix="template-preview" disabled />
        </section>
      ) : null}
    </>
  );
}
