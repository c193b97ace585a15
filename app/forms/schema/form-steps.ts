// Steps (issue 31, item 1): a field's `step` (1-based, 1 when absent) puts it on a page of
// its own, and `settings.stepTitles` may name the pages. Fields come in step order, so a
// condition (field-conditions.ts), which looks only at earlier fields, looks only at fields
// of earlier steps or earlier in its own. Hidden fields belong to no page: they travel with
// every one. Shared by the server and the browser (hosted page, embed, builder).
import { conditionKeys, shownKeys, type Condition } from "./field-conditions";

export const MAX_STEPS = 20;
/** A step page's hidden field (and query parameter) that carries its visitor's progress token. */
export const PROGRESS_FIELD = "_progress";
/** A step page's hidden field (and query parameter) that names the step it shows. */
export const STEP_FIELD = "_step";

type Stepped = { key: string; type: string; step?: number; showIf?: Condition };

/** The page a field is on (a hidden field's number is kept, but it shows on none). */
export const stepOf = (field: { step?: number }) => field.step ?? 1;

const onPage = (field: Stepped) => field.type !== "hidden";

export type FormStep = { number: number; title: string | undefined; keys: string[] };

/** The form's pages in order, each with its title (if named) and its fields' keys. */
export function formSteps(fields: readonly Stepped[], titles: readonly string[] = []): FormStep[] {
  const steps: FormStep[] = [];
  for (const field of fields.filter(onPage)) {
    const number = stepOf(field);
    let step = steps.find((candidate) => candidate.number === number);
    if (!step) {
      step = { number, title: titles[number - 1] || undefined, keys: [] };
      steps.push(step);
    }
    step.keys.push(field.key);
  }
  return steps.length > 0
    ? steps.sort((a, b) => a.number - b.number)
    : [{ number: 1, title: titles[0] || undefined, keys: [] }];
}

/**
 * Why the fields' steps are out of order, if they are: by field position, the first field on a
 * page is on step 1, and each field is on its predecessor's step or the one after.
 */
export function stepOrderProblems(fields: readonly Stepped[]): Array<{ index: number; message: string }> {
  const problems: Array<{ index: number; message: string }> = [];
  let current = 0;
  fields.forEach((field, index) => {
    if (!onPage(field)) return;
    const step = stepOf(field);
    if (step === current || step === current + 1) current = step;
    else if (step < current) {
      problems.push({
        index,
        message: `Fields come in step order: "${field.key}" is on step ${step} but follows a field of step ${current}.`,
      });
    } else {
      problems.push({
        index,
        message: `Steps follow one another: "${field.key}" is on step ${step}, but step ${current + 1} has no field before it.`,
      });
      current = step; // one gap, one problem
    }
  });
  return problems;
}

/**
 * File fields off the last page (decision 064): without JavaScript each page is a post of its
 * own, and a browser cannot carry a chosen file to the next page, so file fields go on the
 * page that sends the form.
 */
export function fileStepProblems(fields: readonly Stepped[]): Array<{ index: number; message: string }> {
  const last = Math.max(1, ...fields.filter(onPage).map(stepOf));
  return fields.flatMap((field, index) =>
    field.type === "file" && stepOf(field) < last
      ? [
          {
            index,
            message:
              `"${field.key}" is a file field on step ${stepOf(field)}: file fields go on the last step (${last}), ` +
              "the one that sends the form, since without JavaScript a file chosen on an earlier step cannot be carried to the next.",
          },
        ]
      : [],
  );
}

/**
 * The pages a visitor goes through for these answers: a page whose fields are all hidden by
 * their conditions is skipped (the first page always counts).
 */
export function shownSteps(fields: readonly Stepped[], answers: Record<string, unknown>, titles?: readonly string[]) {
  const shown = shownKeys(fields, answers);
  return formSteps(fields, titles).filter((step, index) => index === 0 || step.keys.some((key) => shown.has(key)));
}

/** The page after (1) or before (-1) `from` that the visitor goes to; `from` itself at either end. */
export function stepAfter(
  fields: readonly Stepped[],
  answers: Record<string, unknown>,
  from: number,
  direction: 1 | -1,
): number {
  const numbers = shownSteps(fields, answers).map((step) => step.number);
  const candidates = direction === 1 ? numbers.filter((n) => n > from) : numbers.filter((n) => n < from).reverse();
  return candidates[0] ?? from;
}

const CHECKED = ["on", "true", "1", "yes"];

/** A form post's answers (all text) as conditions read them: a checkbox ticked or not. */
export function postedAnswers(fields: readonly Stepped[], values: Record<string, string | string[]>) {
  const answers: Record<string, unknown> = {};
  for (const field of fields) {
    const value = values[field.key];
    const first = Array.isArray(value) ? value[0] : value;
    if (field.type === "checkbox" || field.type === "consent")
      answers[field.key] = CHECKED.includes(String(first ?? "").toLowerCase());
    else if (value !== undefined) answers[field.key] = value;
  }
  return answers;
}

/**
 * The fields shown on `step`'s page before the visitor answers it: a condition on answers
 * of earlier steps is decided; one on an answer of this page is not yet, so its field shows
 * (the server decides when the page is posted).
 */
export function shownOnArrival(fields: readonly Stepped[], answers: Record<string, unknown>, step: number) {
  const decided = shownKeys(fields, answers);
  const onPage = new Set(fields.filter((field) => stepOf(field) === step).map((field) => field.key));
  return new Set(
    fields
      .filter(
        (field) =>
          decided.has(field.key) || (field.showIf && conditionKeys(field.showIf).some((key) => onPage.has(key))),
      )
      .map((field) => field.key),
  );
}
