// Conditional fields (issue 31, item 2): a field's `showIf` says when it is part of the form,
// from the answers to fields before it. One evaluator for the server (the authority: a field
// hidden by its condition is not required and a value sent for it is dropped) and the browser
// (the hosted page hides it as the visitor answers), so this module imports nothing server-only.
import { z } from "zod";

export type Condition =
  | { field: string; equals: string | number | boolean }
  | { field: string; in: Array<string | number> }
  | { field: string; notEmpty: true }
  | { all: Condition[] }
  | { any: Condition[] };

/** Nesting of all/any a condition may have, and the leaves it may hold in all. */
const MAX_DEPTH = 4;
const MAX_LEAVES = 20;

const FieldRef = z.string().min(1).max(64);
const Scalar = z.union([z.string().max(200), z.number().finite()]);

const ConditionShape: z.ZodType<Condition> = z.lazy(() =>
  z.union([
    z.object({ field: FieldRef, equals: z.union([Scalar, z.boolean()]) }).strict(),
    z.object({ field: FieldRef, in: z.array(Scalar).min(1).max(100) }).strict(),
    z.object({ field: FieldRef, notEmpty: z.literal(true) }).strict(),
    z.object({ all: z.array(ConditionShape).min(1).max(MAX_LEAVES) }).strict(),
    z.object({ any: z.array(ConditionShape).min(1).max(MAX_LEAVES) }).strict(),
  ]),
);

/** How deep `all`/`any` nest, counted without recursion (a hostile body may nest thousands deep). */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    deepest = Math.max(deepest, depth);
    if (deepest > MAX_DEPTH) return deepest;
    if (typeof node !== "object" || node === null) continue;
    for (const key of ["all", "any"] as const) {
      const list = (node as Record<string, unknown>)[key];
      if (Array.isArray(list)) for (const child of list.slice(0, MAX_LEAVES + 1)) stack.push([child, depth + 1]);
    }
  }
  return deepest;
}

const CONDITION_HELP =
  'Use {"field", "equals"}, {"field", "in": [...]}, {"field", "notEmpty": true}, or {"all": [...]} / {"any": [...]} of those.';

/** A field's `showIf`, checked for its depth before zod walks it. */
export const ConditionSchema = z.unknown().transform((value, ctx): Condition => {
  if (depthOf(value) > MAX_DEPTH) {
    ctx.addIssue({ code: "custom", message: `A condition nests all/any at most ${MAX_DEPTH} deep.` });
    return z.NEVER;
  }
  const parsed = ConditionShape.safeParse(value);
  if (!parsed.success) {
    ctx.addIssue({ code: "custom", message: `Not a condition. ${CONDITION_HELP}` });
    return z.NEVER;
  }
  if (conditionKeys(parsed.data).length > MAX_LEAVES) {
    ctx.addIssue({ code: "custom", message: `A condition looks at most ${MAX_LEAVES} answers.` });
    return z.NEVER;
  }
  return parsed.data;
});

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
