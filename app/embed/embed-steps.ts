// Steps in an embedded form (issue 31, item 1; part of /embed.js): the site's markup puts
// each step's fields in a `<fieldset data-lc-step>` (the builder's snippet does), and the
// script shows one at a time with "Step 2 of 3" and Back and Next, checking a step's fields
// (the browser's own checks) before Next. Later steps are disabled until reached, so that the
// browser does not hold the post for fields the visitor has not seen. The form's own submit
// button shows on the last step; a step whose fields its conditions all hide is skipped
// (embed-conditions.ts). Without the script every step shows, as one form.
import { hasShownField } from "./embed-conditions";

const STEP = "fieldset[data-lc-step]";
/** Dispatched on the form when Next reaches a step; its detail is the step's number. */
export const STEP_EVENT = "lc-step";
/**
 * Dispatched on the form when Next leaves a step whose fields passed their checks, before the
 * next step is enabled: what the form holds then is the answers of the steps completed.
 */
export const STEP_DONE_EVENT = "lc-step-done";
const CONTROLS = "input:not([type=hidden]), select, textarea";

const stepsOf = (form: HTMLFormElement) => Array.from(form.querySelectorAll<HTMLFieldSetElement>(STEP));
const currentOf = (form: HTMLFormElement) => Number(form.getAttribute("data-lc-current") ?? "0");

function navButton(text: string, className: string): HTMLButtonElement {
  const button = document.createElement("button");
  button.type = "button";
  button.className = className;
  button.textContent = text;
  button.setAttribute("data-lc-nav", "");
  return button;
}

/** The steps the visitor goes through: the first, and each with a field its conditions show. */
const reachable = (steps: HTMLFieldSetElement[]) =>
  steps.map((step, i) => (i === 0 || hasShownField(step) ? i : -1)).filter((i) => i >= 0);

/** Shows step `index` (0-based) of a form in steps, how far along it is, and the buttons that step has. */
function show(form: HTMLFormElement, index: number): void {
  const steps = stepsOf(form);
  form.setAttribute("data-lc-current", String(index));
  steps.forEach((step, i) => {
    step.hidden = i !== index;
    step.disabled = i > index;
  });
  const shown = reachable(steps);
  const title = steps[index].querySelector("legend")?.textContent?.trim();
  const progress = form.querySelector<HTMLElement>(".lc-progress");
  const position = Math.max(1, shown.indexOf(index) + 1);
  if (progress) progress.textContent = `Step ${position} of ${shown.length}${title ? `: ${title}` : ""}`;
  const last = index >= shown[shown.length - 1];
  form.querySelector<HTMLElement>("[data-lc-next]")!.hidden = last;
  form.querySelector<HTMLElement>("[data-lc-back]")!.hidden = index === 0;
  form
    .querySelectorAll<HTMLElement>('button[type="submit"], input[type="submit"], button:not([type])')
    .forEach((button) => {
      if (!button.hasAttribute("data-lc-nav")) button.hidden = !last;
    });
}

/**
 * Next (after the step's own checks) or Back, past steps whose fields the conditions all hide;
 * the new step's first field takes the focus.
 */
function move(form: HTMLFormElement, direction: 1 | -1): void {
  const steps = stepsOf(form);
  const index = currentOf(form);
  if (direction === 1) {
    const invalid = Array.from(steps[index].querySelectorAll<HTMLInputElement>(CONTROLS)).find(
      (control) => !control.checkValidity(),
    );
    if (invalid) {
      invalid.reportValidity();
      return;
    }
  }
  const candidates = reachable(steps).filter((i) => (direction === 1 ? i > index : i < index));
  const next = (direction === 1 ? candidates[0] : candidates[candidates.length - 1]) ?? index;
  if (direction === 1 && next > index) form.dispatchEvent(new CustomEvent(STEP_DONE_EVENT));
  show(form, next);
  steps[next].querySelector<HTMLElement>(CONTROLS)?.focus();
  if (direction === 1 && next > index) {
    const number = Number(steps[next].getAttribute("data-lc-step")) || next + 1;
    form.dispatchEvent(new CustomEvent(STEP_EVENT, { detail: number }));
  }
}

/** Sets a form's steps up once: the progress line, Next and Back, the first step shown. */
export function prepareSteps(form: HTMLFormElement): void {
  const steps = stepsOf(form);
  if (steps.length < 2 || form.hasAttribute("data-lc-current")) return;
  const progress = document.createElement("p");
  progress.className = "lc-progress";
  progress.setAttribute("aria-live", "polite");
  steps[0].before(progress);
  const next = navButton("Next", "lc-next");
  next.setAttribute("data-lc-next", "");
  const back = navButton("Back", "lc-back secondary");
  back.setAttribute("data-lc-back", "");
  const nav = document.createElement("p");
  nav.className = "lc-step-nav";
  nav.append(next, back);
  steps[steps.length - 1].after(nav);
  next.addEventListener("click", () => move(form, 1));
  back.addEventListener("click", () => move(form, -1));
  show(form, 0);
}

/**
 * Whether a submit of this form is a step's Enter rather than the last step's send: if so,
 * it moves to the next step instead.
 */
export function stepInsteadOfSubmit(form: HTMLFormElement): boolean {
  const steps = stepsOf(form);
  if (steps.length < 2 || !form.hasAttribute("data-lc-current") || currentOf(form) === steps.length - 1) return false;
  move(form, 1);
  return true;
}

/** Shows the step that holds `element` (the first field a refusal names). */
export function showStepOf(form: HTMLFormElement, element: Element | null): void {
  const step = element?.closest(STEP);
  const index = step ? stepsOf(form).indexOf(step as HTMLFieldSetElement) : -1;
  if (index >= 0 && form.hasAttribute("data-lc-current")) show(form, index);
}

/** The count and buttons again after an answer changed which steps the visitor goes through. */
export function refreshSteps(form: HTMLFormElement): void {
  if (form.hasAttribute("data-lc-current")) show(form, currentOf(form));
}

/** After a lead is in: the first step again, for a form the site shows again. */
export function resetSteps(form: HTMLFormElement): void {
  if (form.hasAttribute("data-lc-current")) show(form, 0);
}
