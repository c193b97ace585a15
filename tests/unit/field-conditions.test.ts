// Conditional fields' evaluator and the save-time rules (issue 31, item 2).
import { describe, expect, it } from "vitest";
import { isShown, shownKeys, type Condition } from "~/forms/schema/field-conditions";
import { buildLeadDataSchema, FieldsSchema } from "~/forms/schema/form-schema";

const FIELDS = FieldsSchema.parse([
  { key: "reason", label: "Reason", type: "select", options: ["sales", "support", "other"], required: true },
  { key: "company", label: "Company", type: "text", required: true, showIf: { field: "reason", equals: "sales" } },
  { key: "seats", label: "Seats", type: "number", showIf: { field: "company", notEmpty: true } },
  {
    key: "details",
    label: "Details",
    type: "textarea",
    required: true,
    showIf: { field: "reason", in: ["support", "other"] },
  },
  { key: "agree", label: "Call me", type: "checkbox" },
  {
    key: "phone",
    label: "Phone",
    type: "tel",
    required: true,
    showIf: {
      all: [
        { field: "agree", equals: true },
        {
          any: [
            { field: "reason", equals: "sales" },
            { field: "reason", equals: "support" },
          ],
        },
      ],
    },
  },
]);

describe("isShown", () => {
  it.each<[Condition, Record<string, unknown>, boolean]>([
    [{ field: "a", equals: "x" }, { a: "x" }, true],
    [{ field: "a", equals: "x" }, { a: "y" }, false],
    [{ field: "a", equals: "x" }, {}, false],
    [{ field: "a", equals: 3 }, { a: 3 }, true],
    [{ field: "a", equals: 3 }, { a: "3" }, true],
    [{ field: "a", equals: "crm" }, { a: ["ads", "crm"] }, true],
    [{ field: "a", equals: true }, { a: true }, true],
    [{ field: "a", equals: false }, { a: false }, true],
    [{ field: "a", equals: false }, {}, true],
    [{ field: "a", equals: false }, { a: true }, false],
    [{ field: "a", in: ["x", "y"] }, { a: "y" }, true],
    [{ field: "a", in: ["x", "y"] }, { a: ["z", "x"] }, true],
    [{ field: "a", in: ["x"] }, { a: [] }, false],
    [{ field: "a", notEmpty: true }, { a: "  " }, false],
    [{ field: "a", notEmpty: true }, { a: 0 }, true],
    [
      {
        all: [
          { field: "a", notEmpty: true },
          { field: "b", equals: "x" },
        ],
      },
      { a: "1", b: "x" },
      true,
    ],
    [
      {
        all: [
          { field: "a", notEmpty: true },
          { field: "b", equals: "x" },
        ],
      },
      { a: "1" },
      false,
    ],
    [
      {
        any: [
          { field: "a", notEmpty: true },
          { field: "b", equals: "x" },
        ],
      },
      { b: "x" },
      true,
    ],
  ])("%j over %j is %s", (condition, answers, expected) => {
    expect(isShown(condition, answers)).toBe(expected);
  });

  it("treats a hidden field's answer as no answer for the fields after it", () => {
    // company is hidden (reason is not sales), so seats, which looks at company, is hidden too.
    expect([...shownKeys(FIELDS, { reason: "support", company: "Acme" })]).toEqual(["reason", "details", "agree"]);
    expect([...shownKeys(FIELDS, { reason: "sales", company: "Acme", agree: true })]).toEqual([
      "reason",
      "company",
      "seats",
      "agree",
      "phone",
    ]);
  });
});

describe("the lead validator", () => {
  const json = buildLeadDataSchema(FIELDS, "json");
  const form = buildLeadDataSchema(FIELDS, "form");

  it("requires a field only when it is shown, and drops what is sent for a hidden one", () => {
    expect(json.safeParse({ reason: "support", details: "Broken", company: "Sent anyway", seats: 5 }).data).toEqual({
      reason: "support",
      details: "Broken",
    });
    const missing = json.safeParse({ reason: "sales" });
    expect(missing.error?.issues.map((issue) => [issue.path.join("."), issue.message])).toEqual([
      ["company", "This field is required."],
    ]);
    const bad = form.safeParse({ reason: "sales", company: "Acme", seats: "many", agree: "on" });
    expect(bad.error?.issues.map((issue) => issue.path.join("."))).toEqual(["seats", "phone"]);
    expect(form.safeParse({ reason: "other", details: "Hi", phone: "not even checked" }).data).toEqual({
      reason: "other",
      details: "Hi",
      agree: false,
    });
  });
});

describe("saving conditions", () => {
  const issues = (fields: unknown[]) =>
    FieldsSchema.safeParse(fields).error?.issues.map((issue) => [issue.path.join("."), issue.message]) ?? [];
  const text = (key: string, showIf?: unknown) => ({ key, label: key, type: "text", ...(showIf ? { showIf } : {}) });

  it("refuses a condition on an unknown field, on itself or on a later one (so no cycle can be saved)", () => {
    expect(issues([text("a", { field: "nope", notEmpty: true })])).toEqual([
      ["0.showIf", 'The condition looks at "nope", which is not a field of this form.'],
    ]);
    expect(issues([text("a", { field: "a", notEmpty: true })])[0][1]).toContain("only look at fields before");
    expect(issues([text("a", { field: "b", notEmpty: true }), text("b", { field: "a", notEmpty: true })])).toHaveLength(
      1,
    );
    expect(issues([text("a"), text("b", { any: [{ field: "a", equals: "x" }] })])).toEqual([]);
  });

  it("refuses a malformed or too deep condition without walking it recursively", () => {
    expect(issues([text("a"), text("b", { field: "a" })])[0][1]).toContain("Not a condition");
    expect(issues([text("a"), text("b", { field: "a", equals: "x", extra: 1 })])[0][1]).toContain("Not a condition");
    let deep: unknown = { field: "a", notEmpty: true };
    for (let i = 0; i < 100_000; i++) deep = { all: [deep] };
    expect(issues([text("a"), text("b", deep)])[0][1]).toContain("at most 4 deep");
    const wide = {
      any: Array.from({ length: 6 }, () => ({
        all: Array.from({ length: 5 }, () => ({ field: "a", notEmpty: true })),
      })),
    };
    expect(issues([text("a"), text("b", wide)])[0][1]).toContain("at most 20 answers");
  });
});
