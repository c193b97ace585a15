// A form in steps on the hosted page (app/routes/f.$formId.tsx; issue 31, item 1). Without
// JavaScript the server draws one step, carries the other steps' answers in hidden fields and
// takes Next and Back as posts to the page (app/capture/step-progress.server.ts). Once the
// page is hydrated every step is drawn, the ones not current hidden (the later ones disabled,
// so the browser checks only what the visitor has reached), and Next and Back stay in the page.
import { Fragment, useEffect, useRef, useState, type FormEvent, type ReactNode, type RefObject } from "react";
import { useHydrated } from "~/components/form-builder/shared";
import { FormFields } from "~/components/FormFields";
import type { FormField, LeadValue } from "~/forms/schema/form-schema";
import { shownOnArrival, stepAfter, stepOf, STEP_FIELD, type FormStep } from "~/forms/schema/form-steps";
import { currentAnswers } from "./HostedFormParts";

type Values = Record<string, LeadValue>;

/**
 * The step shown and the moves between steps: Next (after the browser's own checks of what
 * the visitor reached) and Back skip steps whose fields are all hidden by their conditions;
 * a refusal of the whole form goes to the step of its first problem.
 */
export function useSteps(
  fields: FormField[],
  first: number,
  errors: Record<string, string>,
  formRef: RefObject<HTMLFormElement | null>,
  capturePartial = false,
) {
  const [current, setCurrent] = useState(first);
  // The partial lead kept for this visitor (decision 060), sent with the last step's Send.
  const [partialId, setPartialId] = useState<string | null>(null);
  const moved = useRef(false);
  useEffect(() => {
    const problem = fields.find((field) => errors[field.key] !== undefined);
    if (problem) setCurrent(stepOf(problem));
  }, [errors, fields]);
  useEffect(() => {
    // After a move (not on arrival), the new step's first control takes the focus.
    if (!moved.current || !formRef.current) return;
    const step = formRef.current.querySelector(`fieldset.lc-step[data-step="${current}"]`);
    step?.querySelector<HTMLElement>("input:not([type=hidden]), select, textarea")?.focus();
  }, [current, formRef]);

  /**
   * The form's submit with steps: Next and Back (the buttons, or Enter in a field, which
   * presses the first of them) move; the last step's Send goes to `send`.
   */
  function onSubmit(event: FormEvent<HTMLFormElement>, send: (event: FormEvent<HTMLFormElement>) => Promise<void>) {
    const submitter = (event.nativeEvent as SubmitEvent).submitter;
    const intent = submitter?.getAttribute("name") === "_intent" ? submitter.getAttribute("value") : null;
    if (intent === null) {
      void send(event);
      return;
    }
    event.preventDefault();
    moved.current = true;
    const answers = currentAnswers(event.currentTarget, fields);
    // Taken before the move: the steps reached so far are the form's enabled fields.
    if (capturePartial && intent !== "back") void savePartial(event.currentTarget, setPartialId);
    setCurrent(stepAfter(fields, answers, current, intent === "back" ? -1 : 1));
  }
  return { current, onSubmit, partialId };
}

/**
 * After Next on a step reached with a valid email, the answers so far go to the partial
 * endpoint (the form's own fields, the last partialId among them); its id comes back for the
 * next save and the Send. Best effort: a refusal or a network failure changes nothing.
 */
async function savePartial(form: HTMLFormElement, keep: (partialId: string) => void) {
  const email = form.querySelector<HTMLInputElement>("input[type=email]:not(:disabled)");
  if (!email?.value || !email.validity.valid) return;
  try {
    const response = await fetch("/api/leads/partial", {
      method: "POST",
      body: new URLSearchParams(new FormData(form) as unknown as Record<string, string>),
      headers: { Accept: "application/json" },
    });
    if (!response.ok) return;
    const body = (await response.json()) as { partialId?: unknown };
    if (typeof body.partialId === "string") keep(body.partialId);
  } catch {
    // Offline or refused: the visitor's own Send still carries every answer.
  }
}

type Props = {
  fields: FormField[];
  steps: FormStep[];
  current: number;
  values: Values;
  errors: Record<string, string>;
  /** Which conditional fields show, once the page is hydrated (useShownFields). */
  shown: ReadonlySet<string> | undefined;
  /** Where Next and Back post without JavaScript: the page itself. */
  pageUrl: string;
  busy: boolean;
  /** Shown on the last step, above Send (the CAPTCHA). */
  beforeSend?: ReactNode;
};

/** The steps' fields, the progress ("Step 2 of 3: Details") and the Next, Back and Send buttons. */
export function StepFields({ fields, steps, current, values, errors, shown, pageUrl, busy, beforeSend }: Props) {
  const hydrated = useHydrated();
  const showing = shown ?? shownOnArrival(fields, values, current);
  const reached = steps.filter((step, index) => index === 0 || step.keys.some((key) => showing.has(key)));
  const position = Math.max(1, reached.findIndex((step) => step.number === current) + 1);
  const last = reached.at(-1)?.number === current;
  const title = steps.find((step) => step.number === current)?.title;
  return (
    <>
      <p className="lc-progress" id="lc-progress">
        {`Step ${position} of ${reached.length}${title ? `: ${title}` : ""}`}
      </p>
      <progress className="lc-progress-bar" max={reached.length} value={position} aria-labelledby="lc-progress" />
      <input type="hidden" name={STEP_FIELD} value={current} />
      <FormFields
        fields={fields.filter((field) => field.type === "hidden")}
        values={values}
        errors={errors}
        idPrefix="lead"
      />
      {steps.map((step) => {
        const onStep = fields.filter((field) => field.type !== "hidden" && stepOf(field) === step.number);
        if (step.number !== current && !hydrated) {
          return <Fragment key={step.number}>{carried(onStep, values)}</Fragment>;
        }
        return (
          <fieldset
            key={step.number}
            className="lc-step"
            data-step={step.number}
            hidden={step.number !== current}
            disabled={step.number > current}
          >
            {step.title ? <legend>{step.title}</legend> : null}
            <FormFields fields={onStep} values={values} errors={errors} idPrefix="lead" shown={showing} />
          </fieldset>
        );
      })}
      {last ? beforeSend : null}
      <p className="lc-step-nav">
        {last ? (
          <button type="submit" disabled={busy}>
            {busy ? "Sending…" : "Send"}
          </button>
        ) : (
          <button type="submit" name="_intent" value="next" formAction={pageUrl}>
            Next
          </button>
        )}
        {position > 1 ? (
          <button type="submit" name="_intent" value="back" formAction={pageUrl} formNoValidate className="secondary">
            Back
          </button>
        ) : null}
      </p>
    </>
  );
}

/** Another step's answers as hidden fields, so that the page's post carries them along. */
function carried(fields: FormField[], values: Values) {
  return fields.flatMap((field) => {
    const value = values[field.key];
    const list = Array.isArray(value) ? value : value === true ? ["on"] : value ? [String(value)] : [];
    return list.map((item, index) => (
      <input key={`${field.key}-${index}`} type="hidden" name={field.key} value={item} />
    ));
  });
}
