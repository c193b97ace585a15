// The evaluator of conditional fields' `showIf` (field-conditions.ts holds the schema that
// checks one when a form is saved): whether a condition holds for the answers so far, and which
// fields show. No dependencies, so the embed script bundles it as the hosted page and the server
// use it.

export type Condition =
  | { field: string; equals: string | number | boolean }
  | { field: string; in: Array<string | number> }
  | { field: string; notEmpty: true }
  | { all: Condition[] }
  | { any: Condition[] };

/** Every field key a condition looks at. */
export function conditionKeys(condition: Condition): string[] {
  if ("all" in condition) return condition.all.flatMap(conditionKeys);
  if ("any" in condition) return condition.any.flatMap(conditionKeys);
  return [condition.field];
}

type Answer = unknown;

const isEmpty = (value: Answer) =>
  value === undefined ||
  value === null ||
  value === false ||
  (typeof value === "string" && value.trim() === "") ||
  (Array.isArray(value) && value.length === 0);

/** A scalar answer equal to the expected value, or a list of answers holding it (text compared). */
const holds = (value: Answer, expected: string | number | boolean) =>
  Array.isArray(value) ? value.some((item) => String(item) === String(expected)) : String(value) === String(expected);

/** Whether the condition holds for these answers (absent and hidden answers are empty). */
export function isShown(condition: Condition, answers: Record<string, Answer>): boolean {
  if ("all" in condition) return condition.all.every((child) => isShown(child, answers));
  if ("any" in condition) return condition.any.some((child) => isShown(child, answers));
  const value = Object.hasOwn(answers, condition.field) ? answers[condition.field] : undefined;
  if ("notEmpty" in condition) return !isEmpty(value);
  if ("in" in condition) return !isEmpty(value) && condition.in.some((expected) => holds(value, expected));
  // `equals: false` is an unticked checkbox: false, or no answer at all.
  if (condition.equals === false) return value === false || value === undefined || value === null;
  return !isEmpty(value) && holds(value, condition.equals);
}

/**
 * The keys of the fields that are part of the form for these answers, in order: a field
 * with a condition is when its condition holds over the answers of the fields shown before it.
 */
export function shownKeys(fields: ReadonlyArray<{ key: string; showIf?: Condition }>, answers: Record<string, Answer>) {
  const shown = new Set<string>();
  const seen: Record<string, Answer> = {};
  for (const field of fields) {
    if (field.showIf && !isShown(field.showIf, seen)) continue;
    shown.add(field.key);
    if (Object.hasOwn(answers, field.key)) seen[field.key] = answers[field.key];
  }
  return shown;
}
