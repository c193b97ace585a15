// Steps (issue 31, item 1): the pages of a form, the save-time order rules, and which steps a
// visitor goes through when conditions hide every field of one.
import { describe, expect, it } from "vitest";
import { addFieldTo, moveFieldIn, updateFieldIn } from "~/forms/form-builder";
import { FieldsSchema, FormSettingsSchema } from "~/forms/schema/form-schema";
import { formSteps, postedAnswers, shownOnArrival, shownSteps, stepAfter } from "~/forms/schema/form-steps";

// Step 1 asks what the visitor needs; step 2 only matters to sales; step 3 is for everyone.
const FIELDS = FieldsSchema.parse([
  { key: "plan", label: "Plan", type: "hidden" },
  { key: "email", label: "Email", type: "email", required: true, step: 1 },
  { key: "reason", label: "Reason", type: "select", options: ["sales", "support"], required: true, step: 1 },
  {
    key: "company",
    label: "Company",
    type: "text",
    required: true,
    step: 2,
    showIf: { field: "reason", equals: "sales" },
  },
  { key: "seats", label: "Seats", type: "number", step: 2, showIf: { field: "reason", equals: "sales" } },
  { key: "message", label: "Message", type: "textarea", step: 3 },
  { key: "callMe", label: "Call me", type: "checkbox", step: 3 },
  { key: "phone", label: "Phone", type: "tel", step: 3, showIf: { field: "callMe", equals: true } },
]);

describe("formSteps", () => {
  it("groups the fields shown on a page by step, titled as the settings name them, hidden fields on none", () => {
    expect(formSteps(FIELDS, ["You", "", "Anything else"])).toEqual([
      { number: 1, title: "You", keys: ["email", "reason"] },
      { number: 2, title: undefined, keys: ["company", "seats"] },
      { number: 3, title: "Anything else", keys: ["message", "callMe", "phone"] },
    ]);
  });

  it("sees a form without steps as one page (a form of hidden fields only too)", () => {
    const plain = FieldsSchema.parse([{ key: "name", label: "Name", type: "text" }]);
    expect(formSteps(plain)).toEqual([{ number: 1, title: undefined, keys: ["name"] }]);
    expect(formSteps([])).toEqual([{ number: 1, title: undefined, keys: [] }]);
  });
});

describe("the steps' order when a form is saved", () => {
  const field = (key: string, step?: number) => ({ key, label: key, type: "text", ...(step ? { step } : {}) });

  it("takes fields in step order, a hidden field anywhere", () => {
    expect(FieldsSchema.safeParse([field("a"), field("b", 2), field("c", 2), field("d", 3)]).success).toBe(true);
    const hiddenLast = [field("a", 1), field("b", 2), { key: "h", label: "h", type: "hidden" }];
    expect(FieldsSchema.safeParse(hiddenLast).success).toBe(true);
  });

  it.each([
    [
      [field("a", 2), field("b", 2)],
      0,
      'Steps follow one another: "a" is on step 2, but step 1 has no field before it.',
    ],
    [[field("a"), field("b", 3)], 1, 'Steps follow one another: "b" is on step 3, but step 2 has no field before it.'],
    [
      [field("a", 1), field("b", 2), field("c", 1)],
      2,
      'Fields come in step order: "c" is on step 1 but follows a field of step 2.',
    ],
  ])("refuses fields out of order or a step with no field, naming the field (%#)", (fields, index, message) => {
    const result = FieldsSchema.safeParse(fields);
    expect(result.success).toBe(false);
    expect(result.error!.issues).toEqual([expect.objectContaining({ path: [index, "step"], message })]);
  });

  it("refuses a step that is not a whole number from 1 to 20, and more than 20 titles", () => {
    for (const step of [0, 1.5, 21, "2"]) {
      expect(FieldsSchema.safeParse([{ ...field("a"), step }]).success, String(step)).toBe(false);
    }
    expect(FormSettingsSchema.safeParse({ stepTitles: Array(21).fill("t") }).success).toBe(false);
    expect(FormSettingsSchema.parse({ stepTitles: [" You ", ""] }).stepTitles).toEqual(["You", ""]);
  });
});

describe("file fields in a form in steps (decision 064)", () => {
  const text = (key: string, step: number) => ({ key, label: key, type: "text", step });
  const file = (step: number) => ({ key: "cv", label: "CV", type: "file", step });

  it("takes a file field on the last step, hidden fields after it or not", () => {
    expect(FieldsSchema.safeParse([text("a", 1), file(2)]).success).toBe(true);
    expect(
      FieldsSchema.safeParse([text("a", 1), text("b", 2), file(2), { key: "h", label: "h", type: "hidden", step: 3 }])
        .success,
    ).toBe(true);
    expect(FieldsSchema.safeParse([{ key: "cv", label: "CV", type: "file" }, text("b", 1)]).success).toBe(true);
  });

  it("refuses a file field on an earlier step, saying why (a file cannot travel between posted steps)", () => {
    const result = FieldsSchema.safeParse([text("a", 1), file(1), text("b", 2)]);
    expect(result.error!.issues).toEqual([
      expect.objectContaining({
        path: [1, "step"],
        message: expect.stringMatching(/^"cv" is a file field on step 1: file fields go on the last step \(2\)/),
      }),
    ]);
  });

  it("refuses in the builder a new step after a file field, with the reason as the editor's message", () => {
    const fields = FieldsSchema.parse([text("a", 1), file(1)]);
    const added = addFieldTo(fields, { label: "Later", type: "text", step: 2 });
    expect(added).toMatchObject({ ok: false, code: "validation_failed" });
    expect(!added.ok && added.details!.map((detail) => detail.message)).toEqual([
      expect.stringContaining('"cv" is a file field on step 1'),
    ]);
    expect(updateFieldIn(fields, "cv", { key: "cv", label: "CV", type: "file", step: 2 }).ok).toBe(true);
  });
});

describe("the steps a visitor goes through", () => {
  const numbers = (answers: Record<string, unknown>) => shownSteps(FIELDS, answers).map((step) => step.number);

  it("skips a step whose fields are all hidden by their conditions, forward and back", () => {
    expect(numbers({ reason: "sales" })).toEqual([1, 2, 3]);
    expect(numbers({ reason: "support" })).toEqual([1, 3]);
    expect(stepAfter(FIELDS, { reason: "support" }, 1, 1)).toBe(3);
    expect(stepAfter(FIELDS, { reason: "support" }, 3, -1)).toBe(1);
    expect(stepAfter(FIELDS, { reason: "sales" }, 1, 1)).toBe(2);
    // At either end the step stays.
    expect(stepAfter(FIELDS, {}, 3, 1)).toBe(3);
    expect(stepAfter(FIELDS, {}, 1, -1)).toBe(1);
  });

  it("reads a form post's answers as the conditions do: a ticked checkbox is true", () => {
    expect(postedAnswers(FIELDS, { callMe: "on", reason: "sales", seats: "3" })).toEqual({
      callMe: true,
      reason: "sales",
      seats: "3",
    });
    expect(postedAnswers(FIELDS, {})).toEqual({ callMe: false });
  });

  it("decides on arrival the conditions on earlier steps' answers, not those on the page's own", () => {
    const onStep2 = shownOnArrival(FIELDS, { reason: "support" }, 2);
    expect(onStep2.has("company")).toBe(false);
    // Phone waits on "Call me", on its own page: it shows until the page is posted.
    expect(shownOnArrival(FIELDS, { callMe: false }, 3).has("phone")).toBe(true);
    expect(shownOnArrival(FIELDS, { callMe: false }, 1).has("phone")).toBe(false);
  });
});

describe("the builder with steps", () => {
  const stepped = FieldsSchema.parse([
    { key: "a", label: "A", type: "text", step: 1 },
    { key: "b", label: "B", type: "text", step: 2 },
    { key: "c", label: "C", type: "text", step: 2, showIf: { field: "a", notEmpty: true } },
  ]);
  const fieldsOf = (result: ReturnType<typeof addFieldTo>) => (result.ok ? result.fields : result);

  it("adds a new field to the last step", () => {
    const added = fieldsOf(addFieldTo(stepped, { label: "D", type: "text" }));
    expect(Array.isArray(added) && added.at(-1)).toMatchObject({ key: "d", step: 2 });
  });

  it("keeps a field's condition and step when the field editor (which shows neither) saves it", () => {
    const updated = fieldsOf(updateFieldIn(stepped, "c", { key: "c", label: "C renamed", type: "text" }));
    expect(Array.isArray(updated) && updated[2]).toEqual(
      expect.objectContaining({ label: "C renamed", step: 2, showIf: { field: "a", notEmpty: true } }),
    );
  });

  it("moves a field into the step of the field it now follows, and refuses a move that puts a condition before its answer", () => {
    const moved = fieldsOf(moveFieldIn(stepped, "b", "up"));
    expect(Array.isArray(moved) && moved.map((field) => [field.key, field.step])).toEqual([
      ["b", 1],
      ["a", 1],
      ["c", 2],
    ]);
    expect(moveFieldIn(stepped, "c", 0)).toMatchObject({ ok: false, code: "validation_failed" });
  });
});
