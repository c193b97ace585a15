// /forms/:id: the form builder. Every change is a real form post with an `intent`
// (it works without JavaScript); with JavaScript each one goes through a fetcher, and
// the field list and preview show pending changes at once, computed by the same
// functions the server applies (app/models/form-builder.ts).
import { type Submission, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "@remix-run/node";
import { Link, useActionData, useFetchers, useLoaderData, useSearchParams } from "@remix-run/react";
import { useState } from "react";
import { EmbedSnippet } from "~/components/EmbedSnippet";
import { FieldEditor } from "~/components/form-builder/FieldEditor";
import { FieldRow } from "~/components/form-builder/FieldRow";
import {
  DeleteConfirmation,
  DetailsForm,
  NotificationsForm,
  SettingsForm,
  StatusForm,
} from "~/components/form-builder/FormPanels";
import { resultFor, shownInPlace, type ActionResult, type Draft } from "~/components/form-builder/shared";
import { FormFields } from "~/components/FormFields";
import { RouteError } from "~/components/RouteError";
import { auditor } from "~/models/audit.server";
import {
  BUILDER_INTENTS,
  addFieldTo,
  applyBuilderSubmission,
  fieldInputFromFormData,
  updateFieldIn,
} from "~/models/form-builder";
import { FormDetailsSchema, NotificationsFormSchema, SettingsFormSchema, type FormField } from "~/models/form-schema";
import { addField, moveField, removeField, updateField } from "~/models/form-schema-changes.server";
import { deleteForm, formJson, getFormWithCounts, setFormStatus, updateForm } from "~/models/form.server";
import { listStaffEmails } from "~/models/user.server";
import { statusOf } from "~/utils/api.server";
import { authorize, requireUser } from "~/utils/auth.server";
import { DomainError } from "~/utils/domain-error";
import { env } from "~/utils/env.server";
import { page } from "~/utils/page.server";
import { plural } from "~/utils/plural";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const loader = page(async function loader({ request, params }: LoaderFunctionArgs) {
  await authorize(request, "forms.read");
  const [form, staffEmails] = await Promise.all([getFormWithCounts(params.id!), listStaffEmails()]);
  return { form: formJson(form), appUrl: env.APP_URL, staffEmails };
});

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `${data.form.name} · Forms · Lead Capture` : "Form · Lead Capture" },
];

/**
 * "Name and description" and "Settings": parsed with the schema the browser checked with
 * (Conform, decision 022) and answered with Conform's reply, refusals by field.
 */
async function savePanel<Value>(
  intent: "update-details" | "update-settings" | "update-notifications",
  submission: Submission<unknown, string[], Value>,
  save: (value: Value) => Promise<unknown>,
) {
  const answer = (ok: boolean, reply: SubmissionResult<string[]>, status = 200) =>
    data<ActionResult>({ ok, intent, fieldKey: "", reply }, { status });
  if (submission.status !== "success") return answer(false, submission.reply(), 422);
  try {
    await save(submission.value);
    return answer(true, submission.reply());
  } catch (thrown) {
    if (!(thrown instanceof DomainError) || thrown.code === "not_found") throw thrown;
    // The API's paths (`settings.allowedOrigins.1`) named as the form's inputs.
    const fieldErrors: Record<string, string[]> = {};
    for (const detail of thrown.details ?? []) {
      const name = detail.path.replace(/^settings\.(notifications\.)?/, "").replace(/\.(\d+)/g, "[$1]");
      (fieldErrors[name] ??= []).push(detail.message);
    }
    return answer(false, submission.reply({ formErrors: [thrown.message], fieldErrors }), statusOf(thrown));
  }
}

// Archiving stops a form's submissions, so it counts as removing the form.
const REMOVING = new Set(["archive", "unarchive", "delete"]);

export const action = page(async function action({ request, params, context }: ActionFunctionArgs) {
  await requireUser(request);
  const id = params.id!;
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const user = await authorize(request, REMOVING.has(intent) ? "forms.delete" : "forms.write");
  const audit = auditor(context, user);
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
        return await savePanel(intent, parseWithZod(form, { schema: FormDetailsSchema }), (details) =>
          updateForm(id, details),
        );
      case "update-notifications":
        return await savePanel(intent, parseWithZod(form, { schema: NotificationsFormSchema }), (notifications) =>
          updateForm(id, { settings: { notifications } }),
        );
      case "update-settings":
        return await savePanel(intent, parseWithZod(form, { schema: SettingsFormSchema }), (settings) =>
          updateForm(id, { settings: { ...settings, redirectUrl: settings.redirectUrl ?? null } }),
        );
      case "archive":
      case "unarchive":
        await setFormStatus(id, intent === "archive" ? "archived" : "active");
        await audit(intent === "archive" ? "form.archive" : "form.unarchive", `form:${id}`);
        break;
      case "delete":
        await deleteForm(id, { deleteLeads: form.get("deleteLeads") === "on" });
        await audit("form.delete", `form:${id}`, { deleteLeads: form.get("deleteLeads") === "on" });
        return redirect("/forms");
      default:
        return data<ActionResult>({ ok: false, intent, fieldKey, message: "Unknown action." }, { status: 400 });
    }
    return data<ActionResult>({ ok: true, intent, fieldKey });
  } catch (thrown) {
    // Refusals show next to the form that caused them; a missing form is the page's 404.
    if (!(thrown instanceof DomainError) || thrown.code === "not_found") throw thrown;
    const values = Object.fromEntries(
      [...form.entries()].filter((entry): entry is [string, string] => typeof entry[1] === "string"),
    );
    return data<ActionResult>(
      { ok: false, intent, fieldKey, message: thrown.message, details: thrown.details, values },
      { status: statusOf(thrown) },
    );
  }
});

// ---------------------------------------------------------------------------- page

export default function FormBuilderPage() {
  const { form, appUrl, staffEmails } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const fetchers = useFetchers();
  const [searchParams] = useSearchParams();
  const [draft, setDraft] = useState<Draft>(null);
  const fields = withPendingEdits(form.fields as FormField[], fetchers);
  const previewFields = withDraft(fields, draft);

  return (
    <>
      <BuilderHeader form={form} hostedUrl={`${appUrl}/f/${form.id}`} />
      <ActionNotice actionData={actionData} fields={fields} />

      <div
        style={{
          display: "grid",
          gridTemplateColumns: "minmax(0, 3fr) minmax(0, 2fr)",
          gap: "1.5rem",
          alignItems: "start",
        }}
      >
        <div>
          <FieldList fields={fields} actionData={actionData} onDraft={setDraft} />

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

          <DetailsForm
            name={form.name}
            description={form.description}
            actionData={resultFor(actionData, "update-details")}
          />
          <SettingsForm settings={form.settings} actionData={resultFor(actionData, "update-settings")} />
          <NotificationsForm
            notifications={form.settings.notifications}
            staffEmails={staffEmails}
            actionData={resultFor(actionData, "update-notifications")}
          />
          <EmbedSnippet
            formId={form.id}
            appUrl={appUrl}
            fields={form.fields as FormField[]}
            successMessage={form.settings.successMessage}
          />

          <DangerZone
            name={form.name}
            status={form.status}
            totalLeads={(form.leadCount ?? 0) + (form.spamCount ?? 0)}
            confirmingDelete={searchParams.get("delete") === "confirm"}
            actionData={resultFor(actionData, "delete")}
          />
        </div>

        <FormPreview fields={previewFields} />
      </div>
    </>
  );
}

/** Pending field edits, applied in order by the server's own functions. */
function withPendingEdits(saved: FormField[], fetchers: ReturnType<typeof useFetchers>): FormField[] {
  let fields = saved;
  for (const fetcher of fetchers) {
    if (!fetcher.formData || !BUILDER_INTENTS.includes(fetcher.formData.get("intent") as never)) continue;
    const result = applyBuilderSubmission(fields, fetcher.formData);
    if (result?.ok) fields = result.fields;
  }
  return fields;
}

/** The fields with the one being edited as it stands, while it is valid. */
function withDraft(fields: FormField[], draft: Draft): FormField[] {
  if (!draft) return fields;
  const result =
    draft.target === null ? addFieldTo(fields, draft.field) : updateFieldIn(fields, draft.target, draft.field);
  return result.ok ? result.fields : fields;
}

function BuilderHeader({
  form,
  hostedUrl,
}: {
  form: { id: string; name: string; status: string; schemaVersion: number; leadCount?: number; spamCount?: number };
  hostedUrl: string;
}) {
  return (
    <>
      <p>
        <Link to="/forms">← All forms</Link>
      </p>
      <h1>
        {form.name} <span className={`badge ${form.status}`}>{form.status}</span>
      </h1>
      <p className="muted">
        <Link to={`/leads?formId=${form.id}`}>{plural(form.leadCount ?? 0, "lead")}</Link>
        {form.spamCount ? ` (+${form.spamCount} spam)` : ""} · Hosted form:{" "}
        <a href={hostedUrl} target="_blank" rel="noreferrer">
          {hostedUrl}
        </a>
      </p>
    </>
  );
}

/** The answer to a post made without JavaScript, unless a form on the page shows it in place. */
function ActionNotice({ actionData, fields }: { actionData: ActionResult | undefined; fields: FormField[] }) {
  if (actionData?.ok) {
    return (
      <p className="notice" role="status">
        Saved.
      </p>
    );
  }
  if (actionData && !shownInPlace(actionData, fields)) {
    return (
      <p className="error" role="alert">
        {actionData.message}
      </p>
    );
  }
  return null;
}

function FieldList({
  fields,
  actionData,
  onDraft,
}: {
  fields: FormField[];
  actionData: ActionResult | undefined;
  onDraft: (draft: Draft) => void;
}) {
  return (
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
            onDraft={onDraft}
          />
        ))}
      </ol>
    </section>
  );
}

function DangerZone({
  name,
  status,
  totalLeads,
  confirmingDelete,
  actionData,
}: {
  name: string;
  status: string;
  totalLeads: number;
  confirmingDelete: boolean;
  actionData: ActionResult | undefined;
}) {
  return (
    <section className="card" aria-labelledby="danger-heading">
      <h2 id="danger-heading">Archive or delete</h2>
      <StatusForm status={status} />
      {confirmingDelete ? (
        <DeleteConfirmation name={name} totalLeads={totalLeads} actionData={actionData} />
      ) : (
        <p>
          <Link to="?delete=confirm#delete-heading" className="button secondary">
            Delete form…
          </Link>
        </p>
      )}
    </section>
  );
}

/** The form as visitors will see it, drafts included; it never posts. */
function FormPreview({ fields }: { fields: FormField[] }) {
  return (
    <aside className="card" aria-labelledby="preview-heading" style={{ position: "sticky", top: "1rem" }}>
      <h2 id="preview-heading">Preview</h2>
      <div role="region" aria-label="Form preview">
        {fields.length === 0 ? (
          <p className="muted">The form has no fields yet.</p>
        ) : (
          <form onSubmit={(event) => event.preventDefault()} aria-label="Preview of the form">
            <FormFields fields={fields} idPrefix="preview" />
            <button type="button" disabled>
              Send
            </button>
          </form>
        )}
      </div>
    </aside>
  );
}

export function ErrorBoundary() {
  return <RouteError notFound="There is no form with this id." />;
}
