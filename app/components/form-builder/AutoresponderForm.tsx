// The builder's autoresponder (issue 32, item 1; decision 066): the email a visitor gets
// after a submission, with a preview drawn by the server's own renderer. With JavaScript the
// preview follows the inputs as they are typed; without it, it shows what is saved.
import { getFormProps } from "@conform-to/react";
import { useState, type FormEvent } from "react";
import { AutoresponderFormSchema, renderAutoresponse, type AutoresponderSettings } from "~/forms/autoresponder";
import type { FormField } from "~/forms/schema/form-schema";
import { usePanelForm } from "./FormPanels";
import { FieldError, type ActionResult } from "./shared";

/** The visitor the preview is written to. */
const SAMPLE_NAME = "Ada Lovelace";

type Draft = Pick<AutoresponderSettings, "subject" | "body" | "allowFields">;

/** An example answer per field, as a visitor might give it. */
function sampleData(fields: readonly FormField[]): Record<string, string> {
  const data: Record<string, string> = {};
  for (const field of fields) {
    data[field.key] = field.type === "email" ? "ada@example.com" : (field.options?.[0] ?? `(${field.label})`);
  }
  return data;
}

function draftOf(form: HTMLFormElement): Draft {
  const values = new FormData(form);
  return {
    subject: String(values.get("subject") ?? ""),
    body: String(values.get("body") ?? ""),
    allowFields: values.getAll("allowFields").map(String),
  };
}

export function AutoresponderForm({
  settings,
  formName,
  fields,
  actionData,
}: {
  settings: AutoresponderSettings | undefined;
  formName: string;
  fields: readonly FormField[];
  actionData: ActionResult | undefined;
}) {
  const { fetcher, form, errorOf, described, saved } = usePanelForm(
    "form-autoresponder",
    AutoresponderFormSchema,
    {
      subject: settings?.subject ?? "",
      body: settings?.body ?? "",
      replyTo: settings?.replyTo ?? "",
    },
    actionData,
  );
  const [draft, setDraft] = useState<Draft>({
    subject: settings?.subject ?? "",
    body: settings?.body ?? "",
    allowFields: settings?.allowFields ?? [],
  });
  // A long answer is never allowed into the email (decision 066), so it is not offered; a
  // field keyed "name" is {{name}} already.
  const offered = fields.filter((field) => field.type !== "textarea" && field.key !== "name");
  const onInput = (event: FormEvent<HTMLFormElement>) => setDraft(draftOf(event.currentTarget));
  return (
    <section className="card" aria-labelledby="autoresponder-heading">
      <h2 id="autoresponder-heading">Autoresponder</h2>
      <fetcher.Form method="post" aria-label="Autoresponder" {...getFormProps(form)} onInput={onInput}>
        <input type="hidden" name="intent" value="update-autoresponder" />
        <EnabledSwitch on={settings?.enabled === true} />
        <label htmlFor="autoresponder-subject">Subject</label>
        <input
          id="autoresponder-subject"
          name="subject"
          maxLength={200}
          defaultValue={settings?.subject ?? ""}
          {...described("subject", "autoresponder-subject-error")}
        />
        <FieldError id="autoresponder-subject-error" message={errorOf("subject")} />
        <label htmlFor="autoresponder-body">Text</label>
        <textarea
          id="autoresponder-body"
          name="body"
          rows={6}
          maxLength={5000}
          defaultValue={settings?.body ?? ""}
          {...described("body", "autoresponder-body-error")}
        />
        <FieldError id="autoresponder-body-error" message={errorOf("body")} />
        <label htmlFor="autoresponder-replyTo">Replies go to (optional)</label>
        <input
          id="autoresponder-replyTo"
          name="replyTo"
          type="email"
          defaultValue={settings?.replyTo ?? ""}
          {...described("replyTo", "autoresponder-replyTo-error")}
        />
        <FieldError id="autoresponder-replyTo-error" message={errorOf("replyTo")} />
        <AllowedFields
          fields={offered}
          allowed={settings?.allowFields ?? []}
          invalid={described("allowFields", "autoresponder-allowFields-error")}
        />
        <FieldError id="autoresponder-allowFields-error" message={errorOf("allowFields")} />
        <FieldError id="autoresponder-form-error" message={form.errors?.join(" ")} />
        {saved ? <p role="status">Saved.</p> : null}
        <p className="actions">
          <button type="submit">Save autoresponder</button>
        </p>
      </fetcher.Form>
      <AutoresponderPreview draft={draft} formName={formName} fields={fields} />
    </section>
  );
}

/** The fields whose answers the email may quote, as checkboxes. */
function AllowedFields({
  fields,
  allowed,
  invalid,
}: {
  fields: readonly FormField[];
  allowed: readonly string[];
  invalid: object;
}) {
  if (fields.length === 0) return null;
  return (
    <fieldset {...invalid}>
      <legend>Answers the email may quote</legend>
      {fields.map((field) => (
        <label key={field.key} className="choice">
          <input type="checkbox" name="allowFields" value={field.key} defaultChecked={allowed.includes(field.key)} />{" "}
          {field.label} <code>{`{{${field.key}}}`}</code>
        </label>
      ))}
    </fieldset>
  );
}

/** The email as SAMPLE_NAME would get it, drawn by the server's renderer. */
function AutoresponderPreview({
  draft,
  formName,
  fields,
}: {
  draft: Draft;
  formName: string;
  fields: readonly FormField[];
}) {
  const preview = renderAutoresponse(
    { enabled: true, replyTo: undefined, ...draft },
    { formName, personName: SAMPLE_NAME, data: sampleData(fields) },
  );
  return (
    <section aria-labelledby="autoresponder-preview-heading">
      <h3 id="autoresponder-preview-heading">Preview, for {SAMPLE_NAME}</h3>
      {draft.subject || draft.body ? (
        <div className="email-preview" data-testid="autoresponder-preview">
          <p>
            <strong>Subject:</strong> {preview.subject}
          </p>
          <p className="email-text">
            {preview.text}
            {"\n\n--\nTo get no more emails like this one: (a link for this address)"}
          </p>
        </div>
      ) : (
        <p className="hint">Write a subject and a text to see the email.</p>
      )}
    </section>
  );
}

/** The switch, and what the visitor's email is and is not. */
function EnabledSwitch({ on }: { on: boolean }) {
  return (
    <>
      <label className="choice">
        <input type="checkbox" name="enabled" defaultChecked={on} /> Email each visitor after they send the form
      </label>
      <p className="hint">
        Sent to the address in the form&rsquo;s email field: not for spam, not to an address that unsubscribed, and at
        most AUTORESPONDER_MAX_PER_DAY (3 unless set otherwise) a day to one address. Use {"{{name}}"},{" "}
        {"{{form.name}}"} and the fields ticked below; a visitor&rsquo;s words are cut short and links taken out.
      </p>
    </>
  );
}
