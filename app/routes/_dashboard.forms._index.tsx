// /forms: every form with its lead counts, and a new form.
import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { TemplatePicker } from "~/components/form-builder/TemplatePicker";
import { LocalTime } from "~/components/LocalTime";
import { RouteError } from "~/components/RouteError";
import { NewFormSchema } from "~/forms/form-templates";
import { createForm, listForms } from "~/forms/form.server";
import { authorize } from "~/staff/auth.server";
import { DomainError } from "~/utils/domain-error";
import { statusOf } from "~/utils/http/api.server";
import { page } from "~/utils/http/page.server";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction, SerializeFrom } from "@remix-run/node";

export const meta: MetaFunction = () => [{ title: "Forms · Lead Capture" }];

export const loader = page(async function loader({ request }: LoaderFunctionArgs) {
  await authorize(request, "forms.read");
  const url = new URL(request.url);
  const status = url.searchParams.get("status");
  const page = await listForms({
    cursor: url.searchParams.get("cursor") ?? undefined,
    status: status === "active" || status === "archived" ? status : undefined,
    limit: 50,
  });
  return page;
});

export const action = page(async function action({ request }: ActionFunctionArgs) {
  await authorize(request, "forms.write");
  const form = await request.formData();
  if (form.get("intent") !== "create") throw new Response("Unknown action.", { status: 400 });
  // The schema the browser already checked with (Conform); createForm checks the rest
  // (the text policy) and its refusals come back as the same reply.
  const submission = parseWithZod(form, { schema: NewFormSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 422 });
  try {
    const created = await createForm(submission.value);
    return redirect(`/forms/${created.id}/fields`);
  } catch (thrown) {
    if (!(thrown instanceof DomainError)) throw thrown;
    const fieldErrors = Object.fromEntries(thrown.details.map((detail) => [detail.path, [detail.message]]));
    return data(submission.reply({ fieldErrors, formErrors: [thrown.message] }), { status: statusOf(thrown) });
  }
});

export default function FormsPage() {
  const { items, nextCursor } = useLoaderData<typeof loader>();
  const navigation = useNavigation();
  const [searchParams] = useSearchParams();
  const creating = navigation.state !== "idle" && navigation.formData?.get("intent") === "create";
  const status = searchParams.get("status");

  return (
    <>
      <h1>Forms</h1>
      <NewFormSection creating={creating} />
      <StatusFilter status={status} />
      {items.length === 0 ? <p className="muted">No forms yet. Create one above.</p> : <FormsTable items={items} />}
      {nextCursor ? (
        <p>
          <Link to={`/forms?${new URLSearchParams({ ...(status ? { status } : {}), cursor: nextCursor })}`}>
            Next page
          </Link>
        </p>
      ) : null}
    </>
  );
}

function NewFormSection({ creating }: { creating: boolean }) {
  const lastResult = useActionData<typeof action>() as SubmissionResult<string[]> | undefined;
  const [form, fields] = useForm({
    lastResult,
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: NewFormSchema }),
  });
  const nameError = fields.name.errors?.[0];
  const templateError = fields.template.errors?.[0];
  const formError = form.errors?.[0];
  return (
    <section className="card" aria-labelledby="new-form-heading">
      <h2 id="new-form-heading">New form</h2>
      <Form method="post" aria-label="New form" {...getFormProps(form)}>
        <input type="hidden" name="intent" value="create" />
        <div className="row">
          <div>
            <label htmlFor="new-form-name">Name</label>
            <input
              id="new-form-name"
              name="name"
              required
              maxLength={200}
              defaultValue={fields.name.initialValue as string | undefined}
              aria-invalid={nameError ? true : undefined}
              aria-describedby={nameError ? "new-form-name-error" : undefined}
            />
            {nameError ? (
              <p id="new-form-name-error" className="field-error">
                {nameError}
              </p>
            ) : null}
          </div>
          <div>
            <label htmlFor="new-form-description">Description (optional)</label>
            <input
              id="new-form-description"
              name="description"
              maxLength={2000}
              defaultValue={fields.description.initialValue as string | undefined}
            />
          </div>
        </div>
        <TemplatePicker initial={fields.template.initialValue as string | undefined} error={templateError} />
        <p className="actions">
          <button type="submit" disabled={creating}>
            {creating ? "Creating…" : "Create form"}
          </button>
        </p>
        {formError && !nameError && !templateError ? (
          <p className="error" role="alert">
            {formError}
          </p>
        ) : null}
      </Form>
    </section>
  );
}

function StatusFilter({ status }: { status: string | null }) {
  const filterLink = (value: string | null) => (value ? `/forms?status=${value}` : "/forms");
  return (
    <p className="actions">
      Show:
      {[null, "active", "archived"].map((value) => (
        <Link key={value ?? "all"} to={filterLink(value)} aria-current={status === value ? "page" : undefined}>
          {value ?? "all"}
        </Link>
      ))}
    </p>
  );
}

function FormsTable({ items }: { items: SerializeFrom<typeof loader>["items"] }) {
  return (
    <table>
      <thead>
        <tr>
          <th>Name</th>
          <th>Status</th>
          <th>Fields</th>
          <th>Leads</th>
          <th>Updated</th>
        </tr>
      </thead>
      <tbody>
        {items.map((form) => (
          <tr key={form.id}>
            <td data-label="Name">
              <Link to={`/forms/${form.id}/fields`}>{form.name}</Link>
            </td>
            <td data-label="Status">
              <span className={`badge ${form.status}`}>{form.status}</span>
            </td>
            <td data-label="Fields">{form.fieldCount}</td>
            <td data-label="Leads">
              <Link to={`/leads?formId=${form.id}`}>{form.leadCount}</Link>
              {form.spamCount > 0 ? <span className="muted"> (+{form.spamCount} spam)</span> : null}
            </td>
            <td data-label="Updated">
              <LocalTime iso={form.updatedAt} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function ErrorBoundary() {
  return <RouteError />;
}
