// Renders a form's fields from its schema: the builder's live preview and the hosted
// form page both use this, so what staff preview is what visitors get.
import { consentParts } from "~/forms/schema/consent-text";
import { acceptAttribute, fileRules } from "~/forms/schema/file-field";
import type { FormField, LeadValue } from "~/forms/schema/form-schema";

type Props = {
  fields: FormField[];
  /** Values to show instead of each field's defaultValue (for example after a refused post). */
  values?: Record<string, LeadValue | undefined>;
  /** Messages keyed by field key. */
  errors?: Record<string, string | undefined>;
  /** Prefix for element ids, so two renderings on one page do not collide. */
  idPrefix?: string;
  disabled?: boolean;
  /**
   * The keys of the fields shown (field-conditions.ts): a field with a condition outside it is
   * hidden and not sent. Unset: every field shows, as without JavaScript.
   */
  shown?: ReadonlySet<string>;
};

function asText(value: LeadValue | undefined): string | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.join(", ") : String(value);
}

/** A field's help text and error, with the ids its control's aria-describedby names. */
function FieldNotes({ id, helpText, error }: { id: string; helpText?: string; error?: string }) {
  return (
    <>
      {helpText ? (
        <small id={`${id}-help`} className="muted">
          {helpText}
        </small>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      ) : null}
    </>
  );
}

/** The attributes every control of a field carries, whatever its type. */
type ControlProps = {
  id: string;
  name: string;
  required: boolean;
  disabled?: boolean;
  "aria-invalid"?: true;
  "aria-describedby"?: string;
};

/** What a field's control is made from: the field, those attributes, and the value to show. */
type ControlArgs = { field: FormField; common: ControlProps; value: LeadValue | undefined };

type FieldProps = {
  field: FormField;
  /** The element id of the field's control. */
  id: string;
  value: LeadValue | undefined;
  error?: string;
  disabled?: boolean;
};

export function FormFields({ fields, values = {}, errors = {}, idPrefix = "field", disabled, shown }: Props) {
  return (
    <>
      {fields.map((field) => {
        const control = (
          <Field
            key={field.key}
            field={field}
            id={`${idPrefix}-${field.key}`}
            value={values[field.key] ?? field.defaultValue}
            error={errors[field.key]}
            disabled={disabled}
          />
        );
        if (!field.showIf) return control;
        // A field its condition hides is neither shown nor sent (a disabled fieldset's controls are not).
        const hidden = shown !== undefined && !shown.has(field.key);
        return (
          <fieldset key={field.key} className="lc-conditional" hidden={hidden} disabled={hidden}>
            {control}
          </fieldset>
        );
      })}
    </>
  );
}

/** One field: a hidden input, a checkbox inside its label, or a label above its control. */
function Field({ field, id, value, error, disabled }: FieldProps) {
  const describedBy =
    [field.helpText ? `${id}-help` : null, error ? `${id}-error` : null].filter(Boolean).join(" ") || undefined;
  const common: ControlProps = {
    id,
    name: field.key,
    // A conditional field is required only when shown, which the server decides: without
    // JavaScript it shows whatever the answers, and the browser must not hold the post for it.
    required: field.required && !field.showIf,
    disabled,
    "aria-invalid": error ? true : undefined,
    "aria-describedby": describedBy,
  };

  if (field.type === "hidden") {
    return <input type="hidden" name={field.key} defaultValue={asText(value)} />;
  }
  if (field.type === "checkbox" || field.type === "consent") {
    return <CheckboxField field={field} common={common} value={value} error={error} />;
  }
  return (
    <div className="form-field">
      <label htmlFor={id}>
        {field.label}
        {field.required ? <span aria-hidden="true"> *</span> : null}
      </label>
      <FieldControl field={field} common={common} value={value} />
      <FieldNotes id={id} helpText={field.helpText} error={error} />
    </div>
  );
}

/**
 * A single checkbox sits inside its label, so the label is the text beside the box. A consent's
 * text (decision 065) is the exact wording agreed to, its links opening in a new tab.
 */
function CheckboxField({ field, common, value, error }: ControlArgs & { error?: string }) {
  return (
    <div className={field.type === "consent" ? "form-field checkbox-field consent-field" : "form-field checkbox-field"}>
      <label htmlFor={common.id} className="choice">
        <input
          {...common}
          type="checkbox"
          value="on"
          defaultChecked={value === true || value === "on" || value === "true"}
        />{" "}
        {field.type === "consent" && field.text ? <ConsentText text={field.text} /> : field.label}
        {field.required ? <span aria-hidden="true"> *</span> : null}
      </label>
      <FieldNotes id={common.id} helpText={field.helpText} error={error} />
    </div>
  );
}

/** A consent's text: plain text, and its links (only ever http(s): consent-text.ts). */
export function ConsentText({ text }: { text: string }) {
  return (
    <>
      {consentParts(text).map((part, i) =>
        "href" in part ? (
          <a key={i} href={part.href} target="_blank" rel="noopener noreferrer">
            {part.text}
          </a>
        ) : (
          <span key={i}>{part.text}</span>
        ),
      )}
    </>
  );
}

/** The control under a field's label. */
function FieldControl({ field, common, value }: ControlArgs) {
  switch (field.type) {
    case "textarea":
      return (
        <textarea
          {...common}
          rows={4}
          placeholder={field.placeholder}
          minLength={field.minLength}
          maxLength={field.maxLength}
          defaultValue={asText(value)}
        />
      );
    case "select":
      return (
        <select {...common} defaultValue={asText(value) ?? ""}>
          <option value="">{field.placeholder ?? "Choose…"}</option>
          {field.options?.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
      );
    case "multiselect":
      return <MultiselectControl field={field} common={common} value={value} />;
    case "file": {
      // A browser cannot be given a file back: after a refusal the visitor chooses it again.
      const rules = fileRules(field);
      return (
        <input {...common} type="file" accept={acceptAttribute(field)} multiple={rules.maxFiles > 1 || undefined} />
      );
    }
    default:
      return (
        <input
          {...common}
          type={field.type}
          placeholder={field.placeholder}
          minLength={field.minLength}
          maxLength={field.maxLength}
          min={field.min}
          max={field.max}
          step={field.type === "number" ? "any" : undefined}
          pattern={field.pattern}
          defaultValue={asText(value)}
        />
      );
  }
}

/** One checkbox per option, all with the field's name, so the post carries every choice. */
function MultiselectControl({ field, common, value }: ControlArgs) {
  const selected = new Set(Array.isArray(value) ? value : value !== undefined ? [String(value)] : []);
  return (
    <fieldset className="choices" id={common.id} aria-describedby={common["aria-describedby"]}>
      <legend className="sr-only">{field.label}</legend>
      {field.options?.map((option) => (
        <label key={option} className="choice">
          <input
            type="checkbox"
            name={field.key}
            value={option}
            disabled={common.disabled}
            defaultChecked={selected.has(option)}
          />{" "}
          {option}
        </label>
      ))}
    </fieldset>
  );
}
