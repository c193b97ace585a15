// Conditional fields (issue 31, item 2): a field's `showIf` says when it is part of the form,
// from the answers to fields before it. One evaluator for the server (the authority: a field
// hidden by its condition is not required and a value sent for it is dropped) and the browser
// (the hosted page hides it as the visitor answers), so this module imports nothing server-only.
import { z } from "zod";
import { conditionKeys, type Condition } from "./condition-eval";

export { conditionKeys, isShown, shownKeys, type Condition } from "./condition-eval";

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
