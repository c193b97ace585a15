// The field editor's step and condition (issue 31, item 9): a Step select (the form's steps and
// "A new step") and "Show only if" one earlier field equals, is one of, or is not empty. Plain
// inputs, so they work without JavaScript; app/forms/builder-placement.ts reads them.
import { conditionInputs } from "~/forms/builder-placement";
import type { FormField } from "~/forms/schema/form-schema";
import { stepOf } from "~/forms/schema/form-steps";
import { FieldError } from "./shared";

type Props = {
  idPrefix: string;
  /** The field edited (none when adding). */
  field?: FormField;
  fields: FormField[];
  /** What a refused post sent, shown instead of the field's own values. */
  values: Record<string, string> | undefined;
  errors: Record<string, string>;
};

export function FieldPlacement({ idPrefix, field, fields, values, errors }: Props) {
  const steps = Math.max(1, ...fields.map(stepOf));
  const currentStep = values?.step ?? String(field ? stepOf(field) : (fields.at(-1)?.step ?? 1));
  const index = field ? fields.findIndex((candidate) => candidate.key === field.key) : fields.length;
  const earlier = fields.slice(0, Math.max(0, index));
  const shown = conditionInputs(field?.showIf);
  const condition =
    values && values.showIfField !== undefined
      ? { field: values.showIfField, operator: values.showIfOp ?? "equals", value: values.showIfValue ?? "" }
      : shown === "composite"
        ? null
        : shown;
  const id = (name: string) => `${idPrefix}-${name}`;
  return (
    <fieldset className="placement">
      <legend>Step and condition</legend>
      <div className="row">
        <div>
          <label htmlFor={id("step")}>Step</label>
          <select id={id("step")} name="step" defaultValue={currentStep}>
            {Array.from({ length: steps }, (_, i) => (
              <option key={i} value={String(i + 1)}>
                Step {i + 1}
              </option>
            ))}
            <option value={String(steps + 1)}>A new step ({steps + 1})</option>
          </select>
          <FieldError id={id("step-error")} message={errors.step} />
        </div>
      </div>
      {shown === "composite" ? (
        <p className="muted">
          <input type="hidden" name="showIfField" value="" />
          <input type="hidden" name="showIfKeep" value="1" />
          Shown only when a combined condition holds (<code>{JSON.stringify(field!.showIf)}</code>): edit it through the
          API (<code>PUT /api/forms/:id/schema</code>); saving here keeps it.
        </p>
      ) : (
        <div className="row">
          <div>
            <label htmlFor={id("showIfField")}>Show only if</label>
            <select
              id={id("showIfField")}
              name="showIfField"
              defaultValue={condition?.field ?? ""}
              aria-describedby={errors.showIf ? id("showIf-error") : undefined}
            >
              <option value="">Always shown</option>
              {earlier.map((candidate) => (
                <option key={candidate.key} value={candidate.key}>
                  {candidate.label}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label htmlFor={id("showIfOp")}>Its answer</label>
            <select id={id("showIfOp")} name="showIfOp" defaultValue={condition?.operator ?? "equals"}>
              <option value="equals">is</option>
              <option value="in">is one of (comma-separated)</option>
              <option value="notEmpty">is not empty</option>
            </select>
          </div>
          <div>
            <label htmlFor={id("showIfValue")}>Value</label>
            <input id={id("showIfValue")} name="showIfValue" defaultValue={condition?.value ?? ""} maxLength={500} />
          </div>
        </div>
      )}
      <FieldError id={id("showIf-error")} message={errors.showIf} />
    </fieldset>
  );
}
