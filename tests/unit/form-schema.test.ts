import { describe, expect, it } from "vitest";
import { FieldsSchema, FormSettingsSchema, buildLeadDataSchema, type FormField } from "~/forms/schema/form-schema";

const fields: FormField[] = FieldsSchema.parse([
  { key: "name", label: "Name", type: "text", required: true, maxLength: 50 },
  { key: "email", label: "Email", type: "email", required: true },
  { key: "budget", label: "Budget", type: "number", min: 0, max: 1000 },
  { key: "topic", label: "Topic", type: "select", options: ["Sales", "Support"] },
  { key: "channels", label: "Channels", type: "multiselect", options: ["Email", "Phone"] },
  { key: "consent", label: "I agree", type: "checkbox", required: true },
  { key: "start", label: "Start", type: "date" },
]);

describe("field schema", () => {
  it("refuses duplicate keys, a select without options and min > max, naming each field", () => {
    const result = FieldsSchema.safeParse([
      { key: "a", label: "A", type: "text" },
      { key: "a", label: "A again", type: "text" },
      { key: "pick", label: "Pick", type: "select" },
      { key: "n", label: "N", type: "number", min: 5, max: 1 },
      { key: "bad key", label: "Bad", type: "text" },
      { key: "re", label: "Re", type: "text", pattern: "(" },
    ]);
    expect(result.success).toBe(false);
    const paths = result.error!.issues.map((issue) => issue.path.join("."));
    expect(paths).toEqual(expect.arrayContaining(["1.key", "2.options", "3.min", "4.key", "5.pattern"]));
  });

  it("normalises allowed origins and refuses paths", () => {
    expect(FormSettingsSchema.parse({ allowedOrigins: ["https://Example.com/"] }).allowedOrigins).toEqual([
      "https://example.com",
    ]);
    expect(FormSettingsSchema.safeParse({ allowedOrigins: ["https://example.com/contact"] }).success).toBe(false);
  });
});

describe("lead data validator", () => {
  it("accepts typed JSON and refuses unknown keys by name", () => {
    const schema = buildLeadDataSchema(fields, "json");
    const ok = schema.safeParse({
      name: " Ada ",
      email: "ada@example.com",
      budget: 10,
      consent: true,
      channels: ["Email"],
    });
    expect(ok.success && ok.data).toEqual({
      name: "Ada",
      email: "ada@example.com",
      budget: 10,
      consent: true,
      channels: ["Email"],
    });
    const unknown = schema.safeParse({ name: "Ada", email: "ada@example.com", consent: true, extra: 1 });
    expect(unknown.success).toBe(false);
    expect(JSON.stringify(unknown.error!.issues)).toContain("extra");
  });

  it("names every bad field once", () => {
    const result = buildLeadDataSchema(fields, "json").safeParse({
      email: "nope",
      budget: 5000,
      topic: "Other",
      consent: false,
      start: "2026-02-30",
    });
    expect(result.success).toBe(false);
    const paths = result.error!.issues.map((issue) => issue.path.join("."));
    expect(paths.sort()).toEqual(["budget", "consent", "email", "name", "start", "topic"]);
    const name = result.error!.issues.find((issue) => issue.path[0] === "name");
    expect(name?.message).toBe("This field is required.");
    const blank = buildLeadDataSchema(fields, "form").safeParse({
      name: "   ",
      email: "ada@example.com",
      consent: "on",
    });
    expect(blank.error?.issues.map((issue) => [issue.path.join("."), issue.message])).toEqual([
      ["name", "This field is required."],
    ]);
  });

  it("coerces form posts: numbers, checkboxes, a single multiselect value, and drops unknown keys", () => {
    const result = buildLeadDataSchema(fields, "form").parse({
      name: "Ada",
      email: "ada@example.com",
      budget: "42",
      consent: "on",
      channels: "Phone",
      topic: "",
      submit: "Send",
    });
    expect(result).toEqual({ name: "Ada", email: "ada@example.com", budget: 42, consent: true, channels: ["Phone"] });
  });
});
