// The editor of one field (add or edit), shown in place of its row.
import { useFetcher } from "@remix-run/react";
import { useEffect, useState, type FormEvent } from "react";
import { addFieldTo, fieldInputFromFormData, rulesFor, updateFieldIn, type BuilderResult } from "~/models/form-builder";
import { FIELD_TYPES, type FormField } from "~/models/form-schema";
import { FieldError, errorsByName, useHydrated, type ActionResult, type Draft } from "./shared";

export function FieldEditor({
  mode,
  field,
  fields,
  idPrefix,
  actionData,
  onDraft,
}: {
  mode: "add" | "edit";
  field?: FormField;
  fields: FormField[];
  idPrefix: string;
  actionData: ActionResult | undefined;
  onDraft: (draft: Draft) => void;
}) {
  const fetcher = useFetcher<ActionResult>();
  const hydrated = useHydrated();
  const [clientResult, setClientResult] = useState<BuilderResult | null>(null);
  const target = mode === "edit" ? field!.key : null;
  const serverResult = fetcher.state === "idle" ? (fetcher.data ?? actionData) : undefined;
  const values = serverResult && !serverResult.ok ? serverResult.values : undefined;
  const [type, setType] = useState<string>(values?.type ?? field?.type ?? "text");
  useEffect(() => {
    if (values?.type) setType(values.type);
  }, [values?.type]);
  const refusal =
    clientResult && !clientResult.ok ? clientResult : serverResult && !serverResult.ok ? serverResult : undefined;
  const errors = errorsByName(refusal?.details, "field");
  // A refusal that names no input of this editor (a missing field, too many fields).
  const general =
    refusal && Object.keys(errors).length === 0
      ? [refusal.message, ...(refusal.details ?? []).map((detail) => detail.message)].join(" ")
      : undefined;

  useEffect(() => {
    if (mode === "add" && fetcher.state === "idle" && fetcher.data?.ok) onDraft(null);
  }, [fetcher.state, fetcher.data, mode, onDraft]);

  function check(form: HTMLFormElement): BuilderResult {
    const input = fieldInputFromFormData(new FormData(form));
    return target === null ? addFieldTo(fields, input) : updateFieldIn(fields, target, input);
  }

  function onChange(event: FormEvent<HTMLFormElement>) {
    const form = event.currentTarget;
    setType(String(new FormData(form).get("type") ?? "text"));
    const result = check(form);
    if (result.ok) {
      const input = fieldInputFromFormData(new FormData(form));
      const key = target === null ? result.fields[result.fields.length - 1].key : (input.key as string) || target;
      const drafted = result.fields.find((candidate) => candidate.key === key);
      if (drafted) onDraft({ target, field: drafted });
    }
    if (clientResult) setClientResult(null);
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    // Inline errors before the round trip; the server checks the same again.
    const result = check(event.currentTarget);
    if (!result.ok) {
      event.preventDefault();
      setClientResult(result);
      return;
    }
    setClientResult(null);
    onDraft(null);
    if (mode === "add") {
      // The list shows the new field at once, so the form is cleared for the next one
      // right away (after the fetcher has read it). A refusal brings the values back.
      const form = event.currentTarget;
      setTimeout(() => {
        form.reset();
        setType("text");
      }, 0);
    }
  }

  const show = (applies: boolean) => !hydrated || applies;
  const rules = rulesFor(type);
  const id = (name: string) => `${idPrefix}-${name}`;
  const value = (name: keyof FormField): string | undefined => {
    if (values) return values[name];
    const current = field?.[name];
    if (current === undefined) return undefined;
    if (Array.isArray(current)) return name === "options" ? current.join("\n") : current.join(", ");
    return String(current);
  };
  const input = (name: keyof FormField, label: string, props: Record<string, unknown> = {}) => (
    <div>
      <label htmlFor={id(name)}>{label}</label>
      <input
        id={id(name)}
        name={name}
        defaultValue={value(name)}
        aria-invalid={errors[name] ? true : undefined}
        aria-describedby={errors[name] ? id(`${name}-error`) : undefined}
        {...props}
      />
      <FieldError id={id(`${name}-error`)} message={errors[name]} />
    </div>
  );
  const busy = fetcher.state !== "idle";

  return (
    <fetcher.Form
      // A refusal re-creates the inputs, so they show what was sent.
      key={values ? JSON.stringify(values) : "form"}
      method="post"
      onChange={onChange}
      onSubmit={onSubmit}
      aria-label={mode === "add" ? "Add a field" : `Edit field ${field!.label}`}
      noValidate
    >
      <input type="hidden" name="intent" value={mode === "add" ? "add-field" : "update-field"} />
      {mode === "edit" ? <input type="hidden" name="fieldKey" value={field!.key} /> : null}
      <div className="row">
        {input("label", "Label", { required: true, maxLength: 200 })}
        {input("key", "Key", {
          pattern: "[A-Za-z][A-Za-z0-9_]*",
          maxLength: 64,
          placeholder: mode === "add" ? "made from the label" : undefined,
        })}
        <div>
          <label htmlFor={id("type")}>Type</label>
          <select id={id("type")} name="type" defaultValue={value("type") ?? "text"}>
            {FIELD_TYPES.map((option) => (
              <option key={option} value={option}>
                {option}
              </option>
            ))}
          </select>
          <FieldError id={id("type-error")} message={errors.type} />
        </div>
      </div>
      <label className="choice">
        <input type="checkbox" name="required" defaultChecked={values ? values.required === "on" : field?.required} />{" "}
        Required
      </label>
      <div className="row">
        {show(rules.length) ? input("minLength", "Min length (text)", { type: "number", min: 0 }) : null}
        {show(rules.length) ? input("maxLength", "Max length (text)", { type: "number", min: 1 }) : null}
        {show(rules.range) ? input("min", "Min (number)", { type: "number", step: "any" }) : null}
        {show(rules.range) ? input("max", "Max (number)", { type: "number", step: "any" }) : null}
      </div>
      {show(rules.pattern) ? input("pattern", "Pattern (text, a regular expression)", { maxLength: 500 }) : null}
      {show(rules.options) ? (
        <div>
          <label htmlFor={id("options")}>Options (select and multiselect, one per line)</label>
          <textarea
            id={id("options")}
            name="options"
            rows={4}
            defaultValue={value("options")}
            aria-invalid={errors.options ? true : undefined}
            aria-describedby={errors.options ? id("options-error") : undefined}
          />
          <FieldError id={id("options-error")} message={errors.options} />
        </div>
      ) : null}
      <div className="row">
        {show(rules.placeholder) ? input("placeholder", "Placeholder", { maxLength: 200 }) : null}
        {input("helpText", "Help text", { maxLength: 500 })}
        {input("defaultValue", "Default value")}
      </div>
      {general ? (
        <p className="error" role="alert">
          {general}
        </p>
      ) : null}
      <p>
        <button type="submit" disabled={busy}>
          {mode === "add" ? (busy ? "Adding…" : "Add field") : busy ? "Saving…" : "Save field"}
        </button>
      </p>
    </fetcher.Form>
  );
}
