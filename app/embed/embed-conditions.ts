// Conditional fields in an embedded form (part of /embed.js): the builder's snippet marks a
// field that shows only when earlier answers call for it with its condition
// (`data-lc-show-if`, the field's showIf as JSON), and the script hides and disables it while
// the condition does not hold, with the evaluator the hosted page and the server use. A hidden
// field is not sent (its controls are disabled), so later conditions see it unanswered, as the
// server does; the server decides in the end. Without the script every field shows.
import { isShown, type Condition } from "~/forms/schema/condition-eval";

const CONDITIONAL = "[data-lc-show-if]";
const CONTROLS = "input, select, textarea";

/** The form's answers as conditions read them: a plain checkbox is ticked or not, a list its choices. */
function answersOf(form: HTMLFormElement): Record<string, unknown> {
  const data = new FormData(form);
  const answers: Record<string, unknown> = {};
  data.forEach((_, name) => {
    const values = data.getAll(name).filter((value): value is string => typeof value === "string");
    answers[name] = values.length > 1 ? values : values[0];
  });
  form.querySelectorAll<HTMLInputElement>('input[type="checkbox"]').forEach((box) => {
    if (box.value === "on" && !box.disabled) answers[box.name] = box.checked;
  });
  form.querySelectorAll<HTMLSelectElement>("select[multiple]").forEach((select) => {
    if (!select.disabled) answers[select.name] = data.getAll(select.name);
  });
  return answers;
}

function conditionOf(element: Element): Condition | null {
  try {
    return JSON.parse(element.getAttribute("data-lc-show-if") ?? "null") as Condition | null;
  } catch {
    return null; // not ours to judge: the field shows, and the server decides
  }
}

/** Shows or hides each conditional field of the form for its answers so far, in page order. */
export function applyConditions(form: HTMLFormElement): void {
  form.querySelectorAll<HTMLElement>(CONDITIONAL).forEach((element) => {
    const condition = conditionOf(element);
    // Answers read again for each field: one hidden just before is unanswered for the next.
    const hidden = condition !== null && !isShown(condition, answersOf(form));
    element.hidden = hidden;
    element.querySelectorAll<HTMLInputElement>(CONTROLS).forEach((control) => (control.disabled = hidden));
  });
}

/** Whether a part of the form (a step) has a field that shows. */
export function hasShownField(part: Element): boolean {
  return Array.from(part.querySelectorAll(CONTROLS)).some((control) => !control.closest(`${CONDITIONAL}[hidden]`));
}
