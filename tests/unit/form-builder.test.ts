import { describe, expect, it } from "vitest";
import {
  addFieldTo,
  applyBuilderSubmission,
  fieldInputFromFormData,
  keyFromLabel,
  moveFieldIn,
  removeFieldFrom,
  updateFieldIn,
} from "~/forms/form-builder";
import type { FormField } from "~/forms/schema/form-schema";

const fields: FormField[] = [
  { key: "name", label: "Name", type: "text", required: true },
  { key: "topic", label: "Topic", type: "select", required: false, options: ["A", "B"] },
];

function formData(entries: Record<string, string>) {
  const form = new FormData();
  for (const [name, value] of Object.entries(entries)) form.append(name, value);
  return form;
}

describe("keys made from labels", () => {
  it("lower-cases, joins words with underscores, starts with a letter and avoids taken keys", () => {
    expect(keyFromLabel("Company size (people)", [])).toBe("company_size_people");
    expect(keyFromLabel("Émail address", [])).toBe("email_address");
    expect(keyFromLabel("2nd phone", [])).toBe("field_2nd_phone");
    expect(keyFromLabel("Name", ["name", "NAME_2"])).toBe("name_3");
    expect(keyFromLabel("!!!", [])).toBe("field");
    expect(keyFromLabel("Form ID", [])).toBe("form_id");
    expect(keyFromLabel("formId", [])).toBe("formid_2");
  });
});

describe("the builder's form inputs", () => {
  it("reads numbers, options one per line, and leaves out rules the type does not take", () => {
    expect(
      fieldInputFromFormData(
        formData({
          key: "",
          label: " Size ",
          type: "number",
          required: "on",
          min: "1",
          max: "9",
          maxLength: "5",
          options: "x",
        }),
      ),
    ).toEqual({ key: "", label: "Size", type: "number", required: true, min: 1, max: 9 });
    expect(
      fieldInputFromFormData(
        formData({
          key: "plan",
          label: "Plan",
          type: "multiselect",
          options: "Basic\r\n\r\n Pro \n",
          defaultValue: "Basic, Pro",
        }),
      ),
    ).toEqual({
      key: "plan",
      label: "Plan",
      type: "multiselect",
      required: false,
      options: ["Basic", "Pro"],
      defaultValue: ["Basic", "Pro"],
    });
  });
});

describe("a file field's settings from the field editor (decision 064)", () => {
  const posted = (extra: Record<string, string>) =>
    fieldInputFromFormData(formData({ key: "cv", label: "CV", type: "file", defaultValue: "x", ...extra }));

  it("reads the types one per line, the size and the number of files, and takes no default value", () => {
    expect(posted({ accept: " .pdf \r\n\nimage/*\n", maxSizeMb: "2.5", maxFiles: "3" })).toEqual({
      key: "cv",
      label: "CV",
      type: "file",
      required: false,
      accept: [".pdf", "image/*"],
      maxSizeMb: 2.5,
      maxFiles: 3,
    });
    // Left empty: the defaults (file-field.ts), nothing stored.
    expect(posted({ accept: " \n", maxSizeMb: "", maxFiles: "" })).toEqual({
      key: "cv",
      label: "CV",
      type: "file",
      required: false,
    });
    // Another type leaves the file settings out, as a page without JavaScript still posts them.
    expect(posted({ type: "text", accept: ".pdf", maxSizeMb: "2" })).not.toHaveProperty("accept");
  });

  it("refuses bad settings with the API's own messages, each by its input", () => {
    const result = addFieldTo(fields, posted({ accept: ".pdf\nnot a type", maxSizeMb: "26", maxFiles: "1.5" }));
    expect(result.ok).toBe(false);
    expect(!result.ok && result.details).toEqual([
      {
        path: "field.accept.1",
        message: "Use an extension such as .pdf, a type such as image/png, or a family such as image/*.",
      },
      { path: "field.maxSizeMb", message: "A file may weigh at most 25 MB." },
      { path: "field.maxFiles", message: "Use a whole number of files." },
    ]);
    const saved = addFieldTo(fields, posted({ accept: ".PDF", maxSizeMb: "25", maxFiles: "10" }));
    expect(saved.ok && saved.fields.at(-1)).toMatchObject({ accept: [".pdf"], maxSizeMb: 25, maxFiles: 10 });
  });
});

describe("field list edits", () => {
  it("adds a field with a key made from its label, and refuses a duplicate key naming field.key", () => {
    const added = addFieldTo(fields, { label: "Email", type: "email" });
    expect(added.ok && added.fields.map((field) => field.key)).toEqual(["name", "topic", "email"]);
    const duplicate = addFieldTo(fields, { key: "Name", label: "Name", type: "text" });
    expect(duplicate).toMatchObject({ ok: false, code: "validation_failed", details: [{ path: "field.key" }] });
  });

  it("names each bad rule of an edited field, and refuses a field that is gone with 404", () => {
    const bad = updateFieldIn(fields, "topic", { label: "", type: "select", options: [] });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.details!.map((detail) => detail.path).sort()).toEqual(["field.label", "field.options"]);
    expect(updateFieldIn(fields, "gone", { label: "X", type: "text" })).toMatchObject({
      ok: false,
      code: "field_not_found",
    });
    const renamed = updateFieldIn(fields, "topic", { key: "subject", label: "Subject", type: "text" });
    expect(renamed.ok && renamed.fields[1]).toEqual({
      key: "subject",
      label: "Subject",
      type: "text",
      required: false,
    });
  });

  it("moves a field one place and leaves it at either end; removes by key", () => {
    expect(moveFieldIn(fields, "topic", "up")).toEqual({ ok: true, fields: [fields[1], fields[0]] });
    expect(moveFieldIn(fields, "topic", "down")).toEqual({ ok: true, fields });
    expect(removeFieldFrom(fields, "name")).toEqual({ ok: true, fields: [fields[1]] });
  });

  it("moves a dragged field to a position, the end when past it, and refuses a position that is not a whole number", () => {
    const four: FormField[] = ["a", "b", "c", "d"].map((key) => ({ key, label: key, type: "text", required: false }));
    const keys = (result: ReturnType<typeof moveFieldIn>) =>
      result.ok ? result.fields.map((field) => field.key) : result;
    expect(keys(moveFieldIn(four, "a", 2))).toEqual(["b", "c", "a", "d"]);
    expect(keys(moveFieldIn(four, "d", 0))).toEqual(["d", "a", "b", "c"]);
    expect(keys(moveFieldIn(four, "b", 99))).toEqual(["a", "c", "d", "b"]);
    expect(keys(moveFieldIn(four, "c", 2))).toEqual(["a", "b", "c", "d"]);
    expect(moveFieldIn(four, "a", -1)).toMatchObject({
      ok: false,
      code: "validation_failed",
      details: [{ path: "to" }],
    });
    expect(moveFieldIn(four, "a", 1.5)).toMatchObject({ ok: false, code: "validation_failed" });
    const posted = (to: string) =>
      applyBuilderSubmission(four, formData({ intent: "move-field", fieldKey: "a", to, direction: "down" }));
    expect(keys(posted("3")!)).toEqual(["b", "c", "d", "a"]);
    expect(posted("first")).toMatchObject({ ok: false, details: [{ path: "to" }] });
    // Without `to`, the buttons' direction.
    expect(keys(posted(" ")!)).toEqual(["b", "a", "c", "d"]);
  });

  it("applies a posted intent, and ignores posts that are not field edits", () => {
    const result = applyBuilderSubmission(fields, formData({ intent: "remove-field", fieldKey: "topic" }));
    expect(result).toEqual({ ok: true, fields: [fields[0]] });
    expect(applyBuilderSubmission(fields, formData({ intent: "update-settings" }))).toBeNull();
  });
});

describe("steps and conditions from the field editor (issue 31, item 9)", () => {
  const stepped: FormField[] = [
    { key: "email", label: "Email", type: "email", required: true, step: 1 },
    { key: "topic", label: "Topic", type: "select", required: false, options: ["A", "B"], step: 1 },
    { key: "agree", label: "Agree", type: "checkbox", required: false, step: 1 },
    { key: "notes", label: "Notes", type: "text", required: false, step: 2 },
  ];

  it("reads the condition inputs typed by the field they look at, null for always, nothing when kept", () => {
    const read = (entries: Record<string, string>) => fieldInputFromFormData(formData(entries), stepped).showIf;
    expect(read({ showIfField: "topic", showIfOp: "equals", showIfValue: "A" })).toEqual({
      field: "topic",
      equals: "A",
    });
    expect(read({ showIfField: "agree", showIfOp: "equals", showIfValue: "yes" })).toEqual({
      field: "agree",
      equals: true,
    });
    expect(read({ showIfField: "topic", showIfOp: "in", showIfValue: "A, B," })).toEqual({
      field: "topic",
      in: ["A", "B"],
    });
    expect(read({ showIfField: "email", showIfOp: "notEmpty", showIfValue: "x" })).toEqual({
      field: "email",
      notEmpty: true,
    });
    expect(read({ showIfField: "", showIfOp: "equals" })).toBeNull();
    expect(read({ showIfField: "", showIfKeep: "1" })).toBeUndefined();
    expect(read({})).toBeUndefined();
  });

  it("puts a field on its step in step order, and closes a step a move leaves empty", () => {
    const moved = updateFieldIn(stepped, "notes", { key: "notes", label: "Notes", type: "text", step: 1 });
    expect(moved.ok && moved.fields.map((f) => [f.key, f.step])).toEqual([
      ["email", 1],
      ["topic", 1],
      ["agree", 1],
      ["notes", 1],
    ]);
    const added = addFieldTo(stepped, { label: "Phone", type: "tel", step: 1 });
    expect(added.ok && added.fields.map((f) => f.key)).toEqual(["email", "topic", "agree", "phone", "notes"]);
    const newStep = updateFieldIn(stepped, "topic", {
      key: "topic",
      label: "Topic",
      type: "select",
      options: ["A", "B"],
      step: 3,
    });
    expect(newStep.ok && newStep.fields.map((f) => [f.key, f.step])).toEqual([
      ["email", 1],
      ["agree", 1],
      ["notes", 2],
      ["topic", 3],
    ]);
  });

  it("keeps a field's condition when the editor does not post one, and removes it on 'always'", () => {
    const withCondition = stepped.map((f) =>
      f.key === "notes" ? { ...f, showIf: { field: "topic", equals: "A" } } : f,
    );
    const kept = updateFieldIn(withCondition, "notes", { key: "notes", label: "Notes", type: "text" });
    expect(kept.ok && kept.fields.at(-1)!.showIf).toEqual({ field: "topic", equals: "A" });
    const removed = updateFieldIn(withCondition, "notes", { key: "notes", label: "Notes", type: "text", showIf: null });
    expect(removed.ok && removed.fields.at(-1)!.showIf).toBeUndefined();
    const later = updateFieldIn(withCondition, "email", {
      key: "email",
      label: "Email",
      type: "email",
      showIf: { field: "notes", notEmpty: true },
    });
    expect(later.ok).toBe(false);
  });
});
