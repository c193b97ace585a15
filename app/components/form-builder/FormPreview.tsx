// The form as visitors will see it, drafts included; it never posts. A form in steps is
// previewed one step at a time, as the hosted page shows it ("Step 2 of 3: Details"): the step
// of the field being edited while a draft is open, else the one the page's `?step=` names,
// with links to the others (plain links: they work without JavaScript too).
import { Link, useSearchParams } from "@remix-run/react";
import { FormFields } from "~/components/FormFields";
import type { FormField } from "~/forms/schema/form-schema";
import { formSteps, stepOf } from "~/forms/schema/form-steps";

type Props = {
  fields: FormField[];
  /** settings.stepTitles: the steps' names. */
  stepTitles?: string[];
  /** The step of the field being edited, if a draft is open. */
  editingStep?: number;
};

export function FormPreview({ fields, stepTitles, editingStep }: Props) {
  const steps = formSteps(fields, stepTitles);
  const [params] = useSearchParams();
  const asked = Number(params.get("step"));
  const wanted = editingStep ?? (Number.isInteger(asked) ? asked : 1);
  const index = Math.max(
    0,
    steps.findIndex((step) => step.number === wanted),
  );
  const step = steps.length > 1 ? steps[index] : undefined;
  const shown = step ? fields.filter((field) => stepOf(field) === step.number) : fields;
  return (
    <aside className="card builder-preview" aria-labelledby="preview-heading">
      <h2 id="preview-heading">Preview</h2>
      <div role="region" aria-label="Form preview">
        {fields.length === 0 ? (
          <p className="muted">The form has no fields yet.</p>
        ) : (
          <form onSubmit={(event) => event.preventDefault()} aria-label="Preview of the form">
            {step ? (
              <p className="lc-progress" aria-live="polite">
                {`Step ${index + 1} of ${steps.length}${step.title ? `: ${step.title}` : ""}`}
              </p>
            ) : null}
            <FormFields fields={shown} idPrefix="preview" />
            <button type="button" disabled>
              {step && index < steps.length - 1 ? "Next" : "Send"}
            </button>
          </form>
        )}
        {step ? <StepLinks steps={steps.map((s) => s.number)} current={step.number} /> : null}
      </div>
    </aside>
  );
}

/** Links to the previewed form's other steps (each keeps the rest of the page's query). */
function StepLinks({ steps, current }: { steps: number[]; current: number }) {
  const [params] = useSearchParams();
  const to = (step: number) => {
    const next = new URLSearchParams(params);
    next.set("step", String(step));
    return `?${next.toString()}`;
  };
  return (
    <nav aria-label="Preview steps">
      <p className="muted">
        Preview step:{" "}
        {steps.map((step, i) => (
          <span key={step}>
            {i > 0 ? " · " : null}
            {step === current ? (
              <strong aria-current="step">{i + 1}</strong>
            ) : (
              <Link to={to(step)} preventScrollReset replace>
                {i + 1}
              </Link>
            )}
          </span>
        ))}
      </p>
    </nav>
  );
}
