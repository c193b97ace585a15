// /forms/:id: the form builder. Every change is a real form post with an `intent`
// (it works without JavaScript); with JavaScript each one goes through a fetcher, and
// the field list and preview show pending changes at once, computed by the same
// functions the server applies (app/models/form-builder.ts).
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data, redirect } from "@remix-run/node";
import {
  Form,
  Link,
  useActionData,
  useFetcher,
  useFetchers,
  useLoaderData,
  useNavigation,
  useSearchParams,
} from "@remix-run/react";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { EmbedSnippet } from "~/components/EmbedSnippet";
import { FormFields } from "~/components/FormFields";
import { RouteError } from "~/components/RouteError";
import {
  BUILDER_INTENTS,
  addFieldTo,
  applyBuilderSubmission,
  fieldInputFromFormData,
  rulesFor,
  updateFieldIn,
  type BuilderResult,
} from "~/models/form-builder";
import { DEFAULT_SUCCESS_MESSAGE, FIELD_TYPES, type FormField } from "~/models/form-schema";
import {
  addField,
  deleteForm,
  formJson,
  getFormWithCounts,
  moveField,
  removeField,
  setFormStatus,
  updateField,
  updateForm,
} from "~/models/form.server";
import { requireUser } from "~/utils/auth.server";
import { env } from "~/utils/env.server";

export const meta: MetaFunction<typeof loader> = ({ data: loaded }) => [
  { title: `${loaded?.form.name ?? "Form"} · Forms · Lead Capture` },
];

type Detail = { path: string; message: string };
type ActionResult = {
  ok: boolean;
  intent: string;
  fieldKey: string;
  message?: string;
  details?: Detail[];
  /** What was posted, to fill the form again after a refusal without JavaScript. */
  values?: Record<string, string>;
};

export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireUser(request);
  const form = await getFormWithCounts(params.id!);
  return { form: formJson(form), appUrl: env.APP_URL };
}

function lines(value: FormDataEntryValue | null): string[] {
  return String(value ?? "")
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
}

function optionalText(value: FormDataEntryValue | null): string | undefined {
  const text = String(value ?? "").trim();
  return text === "" ? undefined : text;
}

export async function action({ request, params }: ActionFunctionArgs) {
  await requireUser(request);
  const id = params.id!;
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const fieldKey = String(form.get("fieldKey") ?? "");
  try {
    switch (intent) {
      case "add-field":
        await addField(id, fieldInputFromFormData(form));
        break;
      case "update-field":
        await updateField(id, fieldKey, fieldInputFromFormData(form));
        break;
      case "move-field":
        await moveField(id, fieldKey, form.get("direction") === "up" ? "up" : "down");
        break;
      case "remove-field":
        await removeField(id, fieldKey);
        break;
      case "update-details":
        await updateForm(id, { name: String(form.get("name") ?? ""), description: String(form.get("description") ?? "") });
        break;
      case "update-settings":
        await updateForm(id, {
          settings: {
            allowedOrigins: lines(form.get("allowedOrigins")),
            redirectUrl: optionalText(form.get("redirectUrl")) ?? null,
            successMessage: optionalText(form.get("successMessage")) ?? DEFAULT_SUCCESS_MESSAGE,
          },
        });
        break;
      case "archive":
      case "unarchive":
        await setFormStatus(id, intent === "archive" ? "archived" : "active");
        break;
      case "delete":
        await deleteForm(id, { deleteLeads: form.get("deleteLeads") === "on" });
        return redirect("/forms");
      default:
        return data<ActionResult>({ ok: false, intent, fieldKey, message: "Unknown action." }, { status: 400 });
    }
    return data<ActionResult>({ ok: true, intent, fieldKey });
  } catch (thrown) {
    // Refusals show next to the form that caused them; a missing form is the page's 404.
    if (!(thrown instanceof Response) || thrown.status >= 500) throw thrown;
    const body = (await thrown.clone().json().catch(() => null)) as {
      error?: { code: string; message: string; details?: Detail[] };
    } | null;
    if (!body?.error || body.error.code === "not_found") throw thrown;
    const values = Object.fromEntries(
      [...form.entries()].filter((entry): entry is [string, string] => typeof entry[1] === "string"),
    );
    return data<ActionResult>(
      { ok: false, intent, fieldKey, message: body.error.message, details: body.error.details, values },
      { status: thrown.status },
    );
  }
}

// ---------------------------------------------------------------------------- helpers

function useHydrated() {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated;
}

/** `{label: "..."}` from details like `field.label` or `settings.redirectUrl`. */
function errorsByName(details: Detail[] | undefined, prefix: string): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const detail of details ?? []) {
    if (!detail.path.startsWith(`${prefix}.`)) continue;
    const [name, index] = detail.path.slice(prefix.length + 1).split(".");
    const message = index !== undefined && /^\d+$/.test(index) ? `Line ${Number(index) + 1}: ${detail.message}` : detail.message;
    errors[name] = errors[name] ? `${errors[name]} ${message}` : message;
  }
  return errors;
}

function resultFor(
  actionData: ActionResult | undefined,
  intent: string | string[],
  fieldKey = "",
): ActionResult | undefined {
  const intents = Array.isArray(intent) ? intent : [intent];
  if (!actionData || !intents.includes(actionData.intent) || actionData.fieldKey !== fieldKey) return undefined;
  return actionData;
}

function FieldError({ id, message }: { id: string; message?: string }) {
  return message ? (
    <p id={id} className="field-error">
      {message}
    </p>
  ) : null;
}

type Draft = { target: string | null; field: FormField } | null;

const IN_PLACE_INTENTS = ["add-field", "update-details", "update-settings", "delete"];

/** Whether a refusal has a form on the page to show it (a field edit needs its field). */
function shownInPlace(result: ActionResult, fields: FormField[]): boolean {
  if (IN_PLACE_INTENTS.includes(result.intent)) return true;
  if (["update-field", "move-field", "remove-field"].includes(result.intent)) {
    return fields.some((field) => field.key === result.fieldKey);
  }
  return false;
}

// ---------------------------------------------------------------------------- page

export default function FormBuilderPage() {
  const { form, appUrl } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const fetchers = useFetchers();
  const [searchParams] = useSearchParams();
  const [draft, setDraft] = useState<Draft>(null);

  // Pending field edits, applied in order by the server's own functions.
  let fields = form.fields as FormField[];
  for (const fetcher of fetchers) {
    if (!fetcher.formData || !BUILDER_INTENTS.includes(fetcher.formData.get("intent") as never)) continue;
    const result = applyBuilderSubmission(fields, fetcher.formData);
    if (result?.ok) fields = result.fields;
  }
  let previewFields = fields;
  if (draft) {
    const result =
      draft.target === null
        ? addFieldTo(fields, draft.field)
        : updateFieldIn(fields, draft.target, draft.field);
    if (result.ok) previewFields = result.fields;
  }

  const confirmingDelete = searchParams.get("delete") === "confirm";
  const hostedUrl = `${appUrl}/f/${form.id}`;
  const totalLeads = (form.leadCount ?? 0) + (form.spamCount ?? 0);

  return (
    <>
      <p>
        <Link to="/forms">← All forms</Link>
      </p>
      <h1>
        {form.name} <span className={`badge ${form.status}`}>{form.status}</span>
      </h1>
      <p className="muted">
        Schema version {form.schemaVersion} ·{" "}
        <Link to={`/leads?formId=${form.id}`}>{form.leadCount ?? 0} leads</Link>
        {form.spamCount ? ` (+${form.spamCount} spam)` : ""} · Hosted form:{" "}
        <a href={hostedUrl} target="_blank" rel="noreferrer">
          {hostedUrl}
        </a>
      </p>
      {actionData?.ok ? (
        <p className="notice" role="status">
          Saved.
        </p>
      ) : null}
      {actionData && !actionData.ok && !shownInPlace(actionData, fields) ? (
        <p className="error" role="alert">
          {actionData.message}
        </p>
      ) : null}

      <div style={{ display: "grid", gridTemplateColumns: "minmax(0, 3fr) minmax(0, 2fr)", gap: "1.5rem", alignItems: "start" }}>
        <div>
          <section aria-labelledby="fields-heading">
            <h2 id="fields-heading">Fields</h2>
            {fields.length === 0 ? <p className="muted">No fields yet. Add the first one below.</p> : null}
            <ol style={{ listStyle: "none", padding: 0, margin: 0 }} aria-label="Fields">
              {fields.map((field, index) => (
                <FieldRow
                  key={field.key}
                  field={field}
                  fields={fields}
                  index={index}
                  count={fields.length}
                  actionData={actionData}
                  onDraft={setDraft}
                />
              ))}
            </ol>
          </section>

          <section className="card" aria-labelledby="add-field-heading">
            <h2 id="add-field-heading">Add a field</h2>
            <FieldEditor
              mode="add"
              fields={fields}
              idPrefix="new"
              actionData={resultFor(actionData, "add-field")}
              onDraft={setDraft}
            />
          </section>

          <DetailsForm name={form.name} description={form.description} actionData={resultFor(actionData, "update-details")} />
          <SettingsForm settings={form.settings} actionData={resultFor(actionData, "update-settings")} />
          <EmbedSnippet
            formId={form.id}
            appUrl={appUrl}
            fields={form.fields as FormField[]}
            successMessage={form.settings.successMessage}
          />

          <section className="card" aria-labelledby="danger-heading">
            <h2 id="danger-heading">Archive or delete</h2>
            <StatusForm status={form.status} />
            {confirmingDelete ? (
              <DeleteConfirmation
                name={form.name}
                totalLeads={totalLeads}
                actionData={resultFor(actionData, "delete")}
              />
            ) : (
              <p>
                <Link to="?delete=confirm#delete-heading" className="button secondary">
                  Delete form…
                </Link>
              </p>
            )}
          </section>
        </div>

        <aside className="card" aria-labelledby="preview-heading" style={{ position: "sticky", top: "1rem" }}>
          <h2 id="preview-heading">Preview</h2>
          <div role="region" aria-label="Form preview">
            {previewFields.length === 0 ? (
              <p className="muted">The form has no fields yet.</p>
            ) : (
              <form onSubmit={(event) => event.preventDefault()} aria-label="Preview of the form">
                <FormFields fields={previewFields} idPrefix="preview" />
                <button type="button" disabled>
                  Send
                </button>
              </form>
            )}
          </div>
        </aside>
      </div>
    </>
  );
}

// ---------------------------------------------------------------------------- fields

function FieldRow({
  field,
  fields,
  index,
  count,
  actionData,
  onDraft,
}: {
  field: FormField;
  fields: FormField[];
  index: number;
  count: number;
  actionData: ActionResult | undefined;
  onDraft: (draft: Draft) => void;
}) {
  const editResult = resultFor(actionData, "update-field", field.key);
  const rowResult = resultFor(actionData, ["move-field", "remove-field"], field.key);
  return (
    <li className="card" aria-label={`Field ${field.label}`}>
      <div className="actions" style={{ justifyContent: "space-between" }}>
        <div>
          <strong>{field.label}</strong> <code>{field.key}</code> <span className="badge">{field.type}</span>
          {field.required ? <span className="badge">required</span> : null}
        </div>
        <div className="actions">
          <RowAction intent="move-field" fieldKey={field.key} extra={{ direction: "up" }} disabled={index === 0} label={`Move ${field.label} up`} text="↑ Up" />
          <RowAction intent="move-field" fieldKey={field.key} extra={{ direction: "down" }} disabled={index === count - 1} label={`Move ${field.label} down`} text="↓ Down" />
          <RowAction intent="remove-field" fieldKey={field.key} label={`Remove ${field.label}`} text="Remove" danger />
        </div>
      </div>
      {rowResult && !rowResult.ok ? (
        <p className="error" role="alert">
          {rowResult.message}
        </p>
      ) : null}
      <details open={editResult ? !editResult.ok : undefined}>
        <summary>Edit {field.label}</summary>
        <FieldEditor mode="edit" field={field} fields={fields} idPrefix={`edit-${index}`} actionData={editResult} onDraft={onDraft} />
      </details>
    </li>
  );
}

function RowAction({
  intent,
  fieldKey,
  extra = {},
  disabled,
  label,
  text,
  danger,
}: {
  intent: string;
  fieldKey: string;
  extra?: Record<string, string>;
  disabled?: boolean;
  label: string;
  text: string;
  danger?: boolean;
}) {
  const fetcher = useFetcher<typeof action>();
  return (
    <fetcher.Form method="post" style={{ margin: 0 }}>
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="fieldKey" value={fieldKey} />
      {Object.entries(extra).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <button type="submit" className={danger ? "danger" : "secondary"} disabled={disabled} aria-label={label}>
        {text}
      </button>
      {fetcher.data && !fetcher.data.ok ? (
        <span className="error" role="alert">
          {" "}
          {fetcher.data.message}
        </span>
      ) : null}
    </fetcher.Form>
  );
}

function FieldEditor({
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
  const fetcher = useFetcher<typeof action>();
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
    clientResult && !clientResult.ok
      ? clientResult
      : serverResult && !serverResult.ok
        ? serverResult
        : undefined;
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
        <input
          type="checkbox"
          name="required"
          defaultChecked={values ? values.required === "on" : field?.required}
        />{" "}
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

// ---------------------------------------------------------------------------- form

function DetailsForm({
  name,
  description,
  actionData,
}: {
  name: string;
  description: string;
  actionData: ActionResult | undefined;
}) {
  const fetcher = useFetcher<typeof action>();
  const result = fetcher.state === "idle" ? (fetcher.data ?? actionData) : undefined;
  const errors = result && !result.ok ? errorsByName(result.details?.map((d) => ({ ...d, path: `form.${d.path}` })), "form") : {};
  const pendingName = fetcher.formData?.get("name");
  return (
    <section className="card" aria-labelledby="details-heading">
      <h2 id="details-heading">Name and description</h2>
      <fetcher.Form method="post" aria-label="Form details">
        <input type="hidden" name="intent" value="update-details" />
        <label htmlFor="form-name">Name</label>
        <input
          id="form-name"
          name="name"
          required
          maxLength={200}
          defaultValue={result?.values?.name ?? name}
          aria-invalid={errors.name ? true : undefined}
          aria-describedby={errors.name ? "form-name-error" : undefined}
        />
        <FieldError id="form-name-error" message={errors.name} />
        <label htmlFor="form-description">Description</label>
        <textarea id="form-description" name="description" rows={2} maxLength={2000} defaultValue={result?.values?.description ?? description} />
        <FieldError id="form-description-error" message={errors.description} />
        <p className="actions">
          <button type="submit" disabled={fetcher.state !== "idle"}>
            {fetcher.state !== "idle" ? `Saving “${String(pendingName ?? "")}”…` : "Save name and description"}
          </button>
          {fetcher.state === "idle" && fetcher.data?.ok ? <span role="status">Saved.</span> : null}
        </p>
      </fetcher.Form>
    </section>
  );
}

function SettingsForm({
  settings,
  actionData,
}: {
  settings: { allowedOrigins: string[]; redirectUrl?: string | null; successMessage: string };
  actionData: ActionResult | undefined;
}) {
  const fetcher = useFetcher<typeof action>();
  const result = fetcher.state === "idle" ? (fetcher.data ?? actionData) : undefined;
  const errors = result && !result.ok ? errorsByName(result.details, "settings") : {};
  const values = result && !result.ok ? result.values : undefined;
  const described = (name: string) =>
    errors[name] ? { "aria-invalid": true, "aria-describedby": `settings-${name}-error` } : {};
  return (
    <section className="card" aria-labelledby="settings-heading">
      <h2 id="settings-heading">Settings</h2>
      <fetcher.Form method="post" aria-label="Settings">
        <input type="hidden" name="intent" value="update-settings" />
        <label htmlFor="settings-allowedOrigins">Allowed origins (one per line; empty: any site)</label>
        <textarea
          id="settings-allowedOrigins"
          name="allowedOrigins"
          rows={3}
          placeholder="https://www.example.com"
          defaultValue={values?.allowedOrigins ?? settings.allowedOrigins.join("\n")}
          {...described("allowedOrigins")}
        />
        <FieldError id="settings-allowedOrigins-error" message={errors.allowedOrigins} />
        <label htmlFor="settings-redirectUrl">Redirect after a plain HTML post (optional)</label>
        <input
          id="settings-redirectUrl"
          name="redirectUrl"
          type="url"
          placeholder="https://www.example.com/thanks"
          defaultValue={values?.redirectUrl ?? settings.redirectUrl ?? ""}
          {...described("redirectUrl")}
        />
        <FieldError id="settings-redirectUrl-error" message={errors.redirectUrl} />
        <label htmlFor="settings-successMessage">Success message</label>
        <input
          id="settings-successMessage"
          name="successMessage"
          maxLength={500}
          defaultValue={values?.successMessage ?? settings.successMessage}
          {...described("successMessage")}
        />
        <FieldError id="settings-successMessage-error" message={errors.successMessage} />
        <p className="actions">
          <button type="submit" disabled={fetcher.state !== "idle"}>
            {fetcher.state !== "idle" ? "Saving…" : "Save settings"}
          </button>
          {fetcher.state === "idle" && fetcher.data?.ok ? <span role="status">Saved.</span> : null}
        </p>
      </fetcher.Form>
    </section>
  );
}

function StatusForm({ status }: { status: string }) {
  const fetcher = useFetcher<typeof action>();
  const pending = fetcher.formData?.get("intent");
  // Optimistic: the button flips while the change is saved.
  const shown = pending === "archive" ? "archived" : pending === "unarchive" ? "active" : status;
  return (
    <fetcher.Form method="post" aria-label="Status">
      {shown === "active" ? (
        <p className="actions">
          <input type="hidden" name="intent" value="archive" />
          <button type="submit" className="secondary">
            Archive form
          </button>
          <span className="muted">An archived form stays readable with its leads.</span>
        </p>
      ) : (
        <p className="actions">
          <input type="hidden" name="intent" value="unarchive" />
          <button type="submit" className="secondary">
            Unarchive form
          </button>
          <span className="muted">This form is archived.</span>
        </p>
      )}
    </fetcher.Form>
  );
}

function DeleteConfirmation({
  name,
  totalLeads,
  actionData,
}: {
  name: string;
  totalLeads: number;
  actionData: ActionResult | undefined;
}) {
  const navigation = useNavigation();
  const deleting = navigation.state !== "idle" && navigation.formData?.get("intent") === "delete";
  return (
    <div className="notice warn" role="group" aria-labelledby="delete-heading">
      <h3 id="delete-heading">Delete “{name}”?</h3>
      <Form method="post" aria-label="Delete form">
        <input type="hidden" name="intent" value="delete" />
        <p>The form and every version of its fields are deleted. This cannot be undone.</p>
        {totalLeads > 0 ? (
          <label className="choice">
            <input type="checkbox" name="deleteLeads" /> Also delete its {totalLeads} lead
            {totalLeads === 1 ? "" : "s"} (otherwise the form is not deleted)
          </label>
        ) : null}
        {actionData && !actionData.ok ? (
          <p className="error" role="alert">
            {actionData.message}
          </p>
        ) : null}
        <p className="actions">
          <button type="submit" className="danger" disabled={deleting}>
            {deleting ? "Deleting…" : "Delete permanently"}
          </button>
          <Link to=".">Cancel</Link>
        </p>
      </Form>
    </div>
  );
}

export function ErrorBoundary() {
  return <RouteError notFound="There is no form with this id." />;
}
