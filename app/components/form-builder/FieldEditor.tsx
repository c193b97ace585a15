// The editor of one field (add or edit), shown in place of its row. A Conform form: the
// browser checks it with the functions the server applies (app/forms/form-builder.ts),
// and a refusal from the server, with or without JavaScript, shows the same way.
import { getFormProps, parse, useForm } from "@conform-to/react";
import { useFetcher } from "@remix-run/react";
import { useEffect, useState, type FormEvent, type InputHTMLAttributes } from "react";
import { addFieldTo, fieldInputFromFormData, rulesFor, updateFieldIn, type BuilderResult } from "~/forms/form-builder";
import { CONSENT_TEXT_MAX } from "~/forms/schema/consent-text";
import { DEFAULT_ACCEPT, DEFAULT_FILE_SIZE_MB, FILE_MAX_SIZE_MB, MAX_FILES_PER_FIELD } from "~/forms/schema/file-field";
import { FIELD_TYPES, type FormField } from "~/forms/schema/form-schema";
import { FieldPlacement } from "./FieldPlacement";
import { useSayWhenSaved } from "./SavedAnnouncer";
import { FieldError, editorErrors, useHydrated, type ActionResult, type Draft } from "./shared";

type FieldEditorProps = {
  mode: "add" | "edit";
  field?: FormField;
  fields: FormField[];
  idPrefix: string;
  actionData: ActionResult | undefined;
  onDraft: (draft: Draft) => void;
};

/** What each input of the editor reads: its id, the value to show and its error. */
type EditorInputs = {
  idPrefix: string;
  field?: FormField;
  /** What a refused post sent, shown instead of the field's own values. */
  values: Record<string, string> | undefined;
  errors: Record<string, string>;
};

/** Which of the type-specific inputs show. */
type Shown = ReturnType<typeof rulesFor>;

export function FieldEditor(props: FieldEditorProps) {
  const { mode, field, idPrefix } = props;
  const { fetcher, formProps, hydrated, values, type, errors, general, onChange, onSubmit } = useFieldEditor(props);
  const inputs: EditorInputs = { idPrefix, field, values, errors };
  const shown = shownInputs(type, hydrated);
  const busy = fetcher.state !== "idle";

  return (
    <fetcher.Form
      // A refusal re-creates the inputs, so they show what was sent.
      key={values ? JSON.stringify(values) : "form"}
      method="post"
      {...formProps}
      onChange={onChange}
      onSubmit={onSubmit}
      aria-label={mode === "add" ? "Add a field" : `Edit field ${field!.label}`}
      noValidate
    >
      <input type="hidden" name="intent" value={mode === "add" ? "add-field" : "update-field"} />
      {mode === "edit" ? <input type="hidden" name="fieldKey" value={field!.key} /> : null}
      <BasicInputs mode={mode} inputs={inputs} />
      <RuleInputs inputs={inputs} shown={shown} />
      {shown.file ? <FileInputs inputs={inputs} /> : null}
      <HintInputs inputs={inputs} shown={shown} />
      <FieldPlacement idPrefix={idPrefix} field={field} fields={props.fields} values={values} errors={errors} />
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

/** The editor's state: the type chosen, the refusal to show, and the draft the preview follows. */
function useFieldEditor({ mode, field, fields, idPrefix, actionData, onDraft }: FieldEditorProps) {
  const fetcher = useFetcher<ActionResult>();
  useSayWhenSaved(fetcher);
  const hydrated = useHydrated();
  const target = mode === "edit" ? field!.key : null;
  const serverResult = fetcher.state === "idle" ? (fetcher.data ?? actionData) : undefined;
  const values = serverResult && !serverResult.ok ? serverResult.values : undefined;
  const [type, setType] = useState<string>(values?.type ?? field?.type ?? "text");
  useEffect(() => {
    if (values?.type) setType(values.type);
  }, [values?.type]);
  const check = (formData: FormData): BuilderResult =>
    target === null
      ? addFieldTo(fields, fieldInputFromFormData(formData, fields))
      : updateFieldIn(fields, target, fieldInputFromFormData(formData, fields));
  // Inline errors before the round trip, and again as the inputs change; the server checks the same again.
  const [form] = useForm({
    // By the field, not its place: a move must not hand one row's form state to another.
    id: target === null ? `${idPrefix}-editor` : `field-${target}-editor`,
    lastResult: serverResult && !serverResult.ok ? serverResult.reply : undefined,
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) =>
      parse(formData, {
        resolve: () => {
          const result = check(formData);
          return result.ok ? { value: {} } : { error: editorErrors(result) };
        },
      }),
  });
  const errors = Object.fromEntries(
    Object.entries(form.allErrors)
      .filter(([name]) => name !== "")
      .map(([name, messages]) => [name, messages.join(" ")]),
  );
  // A new field's key is made from its label: with no label, the key's refusal is only
  // the label's again, so it is not shown.
  if (mode === "add" && errors.label && errors.key) delete errors.key;
  // A refusal that names no input of this editor (a missing field, too many fields).
  const general = form.errors?.join(" ");
  const formProps = getFormProps(form);

  useEffect(() => {
    if (mode === "add" && fetcher.state === "idle" && fetcher.data?.ok) onDraft(null);
  }, [fetcher.state, fetcher.data, mode, onDraft]);

  function onChange(event: FormEvent<HTMLFormElement>) {
    const formData = new FormData(event.currentTarget);
    setType(String(formData.get("type") ?? "text"));
    const result = check(formData);
    if (result.ok) {
      const input = fieldInputFromFormData(formData, fields);
      const key = target === null ? result.fields[result.fields.length - 1].key : (input.key as string) || target;
      const drafted = result.fields.find((candidate) => candidate.key === key);
      onDraft(drafted ? { target, field: drafted } : null);
    } else {
      // A draft that is no field any more (its label cleared) leaves the preview.
      onDraft(null);
    }
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    formProps.onSubmit(event);
    if (event.defaultPrevented) return;
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

  return { fetcher, formProps, hydrated, values, type, errors, general, onChange, onSubmit };
}

function shownInputs(type: string, hydrated: boolean): Shown {
  // Without JavaScript nothing hides an input when the type changes, so all of them show.
  if (!hydrated) {
    return { length: true, pattern: true, range: true, options: true, placeholder: true, text: true, file: true };
  }
  return rulesFor(type);
}

function idOf({ idPrefix }: EditorInputs, name: string): string {
  return `${idPrefix}-${name}`;
}

function valueOf({ values, field }: EditorInputs, name: keyof FormField): string | undefined {
  if (values) return values[name];
  const current = field?.[name];
  if (current === undefined) return undefined;
  if (Array.isArray(current)) return name === "options" || name === "accept" ? current.join("\n") : current.join(", ");
  return String(current);
}

function EditorInput({
  inputs,
  name,
  label,
  ...props
}: { inputs: EditorInputs; name: keyof FormField; label: string } & InputHTMLAttributes<HTMLInputElement>) {
  const error = inputs.errors[name];
  return (
    <div>
      <label htmlFor={idOf(inputs, name)}>{label}</label>
      <input
        id={idOf(inputs, name)}
        name={name}
        defaultValue={valueOf(inputs, name)}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? idOf(inputs, `${name}-error`) : undefined}
        {...props}
      />
      <FieldError id={idOf(inputs, `${name}-error`)} message={error} />
    </div>
  );
}

/** What every field has: a label, a key, a type, and whether it is required. */
function BasicInputs({ mode, inputs }: { mode: "add" | "edit"; inputs: EditorInputs }) {
  const { field, values, errors } = inputs;
  return (
    <>
      <div className="row">
        <EditorInput inputs={inputs} name="label" label="Label" required maxLength={200} />
        <div>
          <label htmlFor={idOf(inputs, "type")}>Type</label>
          <select id={idOf(inputs, "type")} name="type" defaultValue={valueOf(inputs, "type") ?? "text"}>
            {FIELD_TYPES.map((option) => (
              <option key={option} value={option}>
                {option}
              </option>
            ))}
          </select>
          <FieldError id={idOf(inputs, "type-error")} message={errors.type} />
        </div>
      </div>
      <label className="choice">
        <input type="checkbox" name="required" defaultChecked={values ? values.required === "on" : field?.required} />{" "}
        Required
      </label>
      {/* The key is technical (the name in the API, the exports and a site's own HTML): out of the way until needed. */}
      <details className="advanced" open={errors.key ? true : undefined}>
        <summary>Advanced: the field&apos;s key</summary>
        <p className="muted">Its name in the API, the exports and your own HTML.</p>
        <EditorInput
          inputs={inputs}
          name="key"
          label="Key"
          pattern="[A-Za-z][A-Za-z0-9_]*"
          maxLength={64}
          placeholder={mode === "add" ? "made from the label when left empty" : undefined}
        />
      </details>
    </>
  );
}

/** The rules a value must follow: lengths, a range, a pattern, the options to choose from. */
function RuleInputs({ inputs, shown }: { inputs: EditorInputs; shown: Shown }) {
  const error = inputs.errors.options;
  return (
    <>
      <div className="row">
        {shown.length ? (
          <EditorInput inputs={inputs} name="minLength" label="Min length (text)" type="number" min={0} />
        ) : null}
        {shown.length ? (
          <EditorInput inputs={inputs} name="maxLength" label="Max length (text)" type="number" min={1} />
        ) : null}
        {shown.range ? <EditorInput inputs={inputs} name="min" label="Min (number)" type="number" step="any" /> : null}
        {shown.range ? <EditorInput inputs={inputs} name="max" label="Max (number)" type="number" step="any" /> : null}
      </div>
      {shown.pattern ? (
        <EditorInput inputs={inputs} name="pattern" label="Pattern (text, a regular expression)" maxLength={500} />
      ) : null}
      {shown.options ? (
        <div>
          <label htmlFor={idOf(inputs, "options")}>Options (select and multiselect, one per line)</label>
          <textarea
            id={idOf(inputs, "options")}
            name="options"
            rows={4}
            defaultValue={valueOf(inputs, "options")}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? idOf(inputs, "options-error") : undefined}
          />
          <FieldError id={idOf(inputs, "options-error")} message={error} />
        </div>
      ) : null}
      {shown.text ? <ConsentTextInput inputs={inputs} /> : null}
    </>
  );
}

/** A consent field's exact wording (decision 065): links as `[label](https://…)`, nothing else is markup. */
function ConsentTextInput({ inputs }: { inputs: EditorInputs }) {
  const error = inputs.errors.text;
  return (
    <div>
      <label htmlFor={idOf(inputs, "text")}>Consent text (consent fields: exactly what the visitor agrees to)</label>
      <textarea
        id={idOf(inputs, "text")}
        name="text"
        rows={3}
        maxLength={CONSENT_TEXT_MAX}
        defaultValue={valueOf(inputs, "text")}
        aria-invalid={error ? true : undefined}
        aria-describedby={[idOf(inputs, "text-help"), error ? idOf(inputs, "text-error") : ""].join(" ").trim()}
      />
      <small id={idOf(inputs, "text-help")} className="muted">
        Links as [privacy policy](https://example.com/privacy). Changing the text makes a new version; earlier leads
        keep the text they agreed to.
      </small>
      <FieldError id={idOf(inputs, "text-error")} message={error} />
    </div>
  );
}

/**
 * A file field's rules (decision 064): the types it takes, one per line, how large a file may be
 * and how many it takes. Left empty, the defaults apply; the schema the API uses checks them.
 */
function FileInputs({ inputs }: { inputs: EditorInputs }) {
  const error = inputs.errors.accept;
  const describedBy = [idOf(inputs, "accept-help"), error ? idOf(inputs, "accept-error") : ""].join(" ").trim();
  return (
    <>
      <div>
        <label htmlFor={idOf(inputs, "accept")}>Accepted types (file fields, one per line)</label>
        <textarea
          id={idOf(inputs, "accept")}
          name="accept"
          rows={3}
          defaultValue={valueOf(inputs, "accept")}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy}
        />
        <small id={idOf(inputs, "accept-help")} className="muted">
          An extension (.pdf), a type (image/png) or a family (image/*). Empty: {DEFAULT_ACCEPT.join(" ")}. Each
          file&apos;s contents are checked against its name.
        </small>
        <FieldError id={idOf(inputs, "accept-error")} message={error} />
      </div>
      <div className="row">
        <EditorInput
          inputs={inputs}
          name="maxSizeMb"
          label={`Largest file, MB (file fields; ${DEFAULT_FILE_SIZE_MB} when empty)`}
          type="number"
          min={0}
          max={FILE_MAX_SIZE_MB}
          step="any"
        />
        <EditorInput
          inputs={inputs}
          name="maxFiles"
          label="Files at most (file fields; 1 when empty)"
          type="number"
          min={1}
          max={MAX_FILES_PER_FIELD}
        />
      </div>
    </>
  );
}

/** What helps a visitor fill the field in: a placeholder, help text, a default value. */
function HintInputs({ inputs, shown }: { inputs: EditorInputs; shown: Shown }) {
  return (
    <div className="row">
      {shown.placeholder ? (
        <EditorInput inputs={inputs} name="placeholder" label="Placeholder" maxLength={200} />
      ) : null}
      <EditorInput inputs={inputs} name="helpText" label="Help text" maxLength={500} />
      <EditorInput inputs={inputs} name="defaultValue" label="Default value" />
    </div>
  );
}
