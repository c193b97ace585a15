// Renders a form's fields from its schema: the builder's live preview and the hosted
// form page both use this, so what staff preview is what visitors get.
import type { FormField, LeadValue } from "~/models/form-schema";

type Props = {
  fields: FormField[];
  /** Values to show instead of each field's defaultValue (for example after a refused post). */
  values?: Record<string, LeadValue | undefined>;
  /** Messages keyed by field key. */
  errors?: Record<string, string | undefined>;
  /** Prefix for element ids, so two renderings on one page do not collide. */
  idPrefix?: string;
  disabled?: boolean;
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

export function FormFields({ fields, values = {}, errors = {}, idPrefix = "field", disabled }: Props) {
  return (
    <>
      {fields.map((field) => {
        const id = `${idPrefix}-${field.key}`;
        const value = values[field.key] ?? field.defaultValue;
        const error = errors[field.key];
        const describedBy =
          [field.helpText ? `${id}-help` : null, error ? `${id}-error` : null].filter(Boolean).join(" ") || undefined;
        const common = {
          id,
          name: field.key,
          required: field.required,
          disabled,
          "aria-invalid": error ? true : undefined,
          "aria-describedby": describedBy,
        } as const;

        if (field.type === "hidden") {
          return <input key={field.key} type="hidden" name={field.key} defaultValue={asText(value)} />;
        }

        let control: JSX.Element;
        switch (field.type) {
          case "textarea":
            control = (
              <textarea
                {...common}
                rows={4}
                placeholder={field.placeholder}
                minLength={field.minLength}
                maxLength={field.maxLength}
                defaultValue={asText(value)}
              />
            );
            break;
          case "select":
            control = (
              <select {...common} defaultValue={asText(value) ?? ""}>
                <option value="">{field.placeholder ?? "Choose…"}</option>
                {field.options?.map((option) => (
                  <option key={option} value={option}>
                    {option}
                  </option>
                ))}
              </select>
            );
            break;
          case "multiselect": {
            const selected = new Set(Array.isArray(value) ? value : value !== undefined ? [String(value)] : []);
            control = (
              <fieldset className="choices" id={id} aria-describedby={describedBy}>
                <legend className="sr-only">{field.label}</legend>
                {field.options?.map((option) => (
                  <label key={option} className="choice">
                    <input
                      type="checkbox"
                      name={field.key}
                      value={option}
                      disabled={disabled}
                      defaultChecked={selected.has(option)}
                    />{" "}
                    {option}
                  </label>
                ))}
              </fieldset>
            );
            break;
          }
          case "checkbox":
            return (
              <div key={field.key} className="form-field checkbox-field">
                <label htmlFor={id} className="choice">
                  <input
                    {...common}
                    type="checkbox"
                    value="on"
                    defaultChecked={value === true || value === "on" || value === "true"}
                  />{" "}
                  {field.label}
                  {field.required ? <span aria-hidden="true"> *</span> : null}
                </label>
                <FieldNotes id={id} helpText={field.helpText} error={error} />
              </div>
            );
          default:
            control = (
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

        return (
          <div key={field.key} className="form-field">
            <label htmlFor={id}>
              {field.label}
              {field.required ? <span aria-hidden="true"> *</span> : null}
            </label>
            {control}
            <FieldNotes id={id} helpText={field.helpText} error={error} />
          </div>
        );
      })}
    </>
  );
}
