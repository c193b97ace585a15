// Where a field sits in a form in steps, and when it shows, as the builder's field editor
// posts them (issue 31, item 9): a Step select and a one-condition editor that work without
// JavaScript. Shared by server and browser, like form-builder.ts.
import { isTickBox, type FormField } from "./schema/form-schema";
import { stepOf } from "./schema/form-steps";
import type { Condition } from "./schema/condition-eval";

export const CONDITION_OPERATORS = ["equals", "in", "notEmpty"] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

/** An answer as a condition compares it: a checkbox's true or false, a number, or the text. */
function typedValue(raw: string, target: FormField | undefined): string | number | boolean {
  if (target && isTickBox(target.type)) return ["true", "on", "yes", "1"].includes(raw.toLowerCase());
  if (target?.type === "number" && raw !== "" && !Number.isNaN(Number(raw))) return Number(raw);
  return raw;
}

/**
 * The editor's condition inputs as a field's `showIf`: `undefined` when the editor did not
 * post them (a composite condition it only shows), `null` for "always", otherwise one
 * condition on an earlier field (checked by the schema like any other).
 */
export function conditionFromFormData(form: FormData, fields: readonly FormField[]): Condition | null | undefined {
  if (!form.has("showIfField") || form.get("showIfKeep") === "1") return undefined;
  const field = String(form.get("showIfField") ?? "").trim();
  if (field === "") return null;
  const target = fields.find((candidate) => candidate.key === field);
  const operator = String(form.get("showIfOp") ?? "equals");
  const raw = String(form.get("showIfValue") ?? "").trim();
  if (operator === "notEmpty") return { field, notEmpty: true };
  if (operator === "in") {
    const values = raw
      .split(",")
      .map((value) => value.trim())
      .filter(Boolean)
      .map((value) => typedValue(value, target));
    return { field, in: values.filter((value): value is string | number => typeof value !== "boolean") };
  }
  return { field, equals: typedValue(raw, target) };
}

/** One condition the editor can show (`all` and `any` it cannot): its inputs' values. */
export function conditionInputs(
  condition: Condition | undefined,
): { field: string; operator: ConditionOperator; value: string } | "composite" | null {
  if (!condition) return null;
  if ("all" in condition || "any" in condition) return "composite";
  if ("notEmpty" in condition) return { field: condition.field, operator: "notEmpty", value: "" };
  if ("in" in condition) return { field: condition.field, operator: "in", value: condition.in.join(", ") };
  return { field: condition.field, operator: "equals", value: String(condition.equals) };
}

/**
 * `field` put on its step: after the last field of that step or an earlier one (the order
 * the steps need), the others keeping theirs; then the steps numbered 1, 2, 3… again, so a
 * step left empty by a move goes away and "a new step" is the one after the last.
 */
export function placeInStep(fields: readonly FormField[], field: FormField, replacing?: string): FormField[] {
  const others = fields.filter((candidate) => candidate.key !== (replacing ?? field.key));
  const step = stepOf(field);
  let at = 0;
  others.forEach((candidate, i) => {
    if (stepOf(candidate) <= step) at = i + 1;
  });
  const placed = [...others.slice(0, at), field, ...others.slice(at)];
  if (!placed.some((candidate) => candidate.step !== undefined)) return placed;
  const numbers = [...new Set(placed.map(stepOf))].sort((a, b) => a - b);
  return placed.map((candidate) => {
    const renumbered = numbers.indexOf(stepOf(candidate)) + 1;
    return stepOf(candidate) === renumbered ? candidate : { ...candidate, step: renumbered };
  });
}
