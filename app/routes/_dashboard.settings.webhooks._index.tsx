// /settings/webhooks: the outbound webhook endpoints with their health, and a new one.
// The new endpoint's signing secret comes back in the action's answer and shows on this
// page once: never in a URL, the session or a log (docs/api/webhooks.md, "Dashboard").
import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { auditor } from "~/audit/audit.server";
import { Breakable } from "~/components/Breakable";
import { RouteError } from "~/components/RouteError";
import {
  EndpointFields,
  Health,
  KIND_LABELS,
  LastSuccess,
  SecretNotice,
  endpointErrors,
  endpointValues,
  fieldErrorsFrom,
  type FormChoice,
} from "~/components/webhooks/EndpointFields";
import { listFormChoices } from "~/leads/lead.server";
import { authorize } from "~/staff/auth.server";
import { DomainError } from "~/utils/domain-error";
import { statusOf } from "~/utils/http/api.server";
import { page } from "~/utils/http/page.server";
import { NewEndpointFormSchema } from "~/webhooks/webhook-schemas";
import { createWebhook, listWebhooks, type WebhookJson } from "~/webhooks/webhooks.server";
import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction = () => [{ title: "Webhooks · Lead Capture" }];

// The answer to a creation carries the secret: no cache, no back-button copy of it.
export const headers: HeadersFunction = () => ({ "Cache-Control": "no-store" });

export const loader = page(async function loader({ request }: LoaderFunctionArgs) {
  await authorize(request, "webhooks.manage");
  const [endpoints, forms] = await Promise.all([listWebhooks(), listFormChoices()]);
  return { endpoints, forms, deleted: new URL(request.url).searchParams.get("deleted") === "1" };
});

type CreateAnswer = {
  reply: SubmissionResult<string[]>;
  created?: { id: string; url: string; secret: string; formId: string | null };
};

export const action = page(async function action({ request, context }: ActionFunctionArgs) {
  const user = await authorize(request, "webhooks.manage");
  const form = await request.formData();
  if (form.get("intent") !== "create") throw new Response("Unknown action.", { status: 400 });
  // The schema the browser already checked with (Conform); createWebhook checks the rest
  // (the destination, the form, the text policy) and its refusals come back by field.
  const submission = parseWithZod(form, { schema: NewEndpointFormSchema });
  if (submission.status !== "success") return data<CreateAnswer>({ reply: submission.reply() }, { status: 422 });
  try {
    const { id, url, secret, formId } = await createWebhook(submission.value, auditor(context, user));
    return data<CreateAnswer>({ reply: submission.reply({ resetForm: true }), created: { id, url, secret, formId } });
  } catch (thrown) {
    if (!(thrown instanceof DomainError)) throw thrown;
    const reply = submission.reply({ formErrors: [thrown.message], fieldErrors: fieldErrorsFrom(thrown.details) });
    return data<CreateAnswer>({ reply }, { status: statusOf(thrown) });
  }
});

export default function WebhooksPage() {
  const { endpoints, forms, deleted } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>() as CreateAnswer | undefined;
  return (
    <>
      <h1>Webhooks</h1>
      <p className="muted">
        Endpoints receive signed events about leads and support requests as they happen, with retries for about a day.
      </p>
      {deleted ? (
        <p className="notice" role="status">
          The endpoint was deleted.
        </p>
      ) : null}
      {answer?.created ? (
        <SecretNotice heading={`Endpoint created: ${answer.created.url}`} secret={answer.created.secret}>
          <p>
            Give it to the receiver to verify the <code>webhook-signature</code> header.{" "}
            <Link to={`/settings/webhooks/${answer.created.id}`}>Open the endpoint</Link>
          </p>
        </SecretNotice>
      ) : null}
      <NewEndpointSection forms={forms} lastResult={answer?.reply} lastFormId={answer?.created?.formId} />
      <h2>Endpoints</h2>
      {endpoints.length === 0 ? (
        <p className="muted">No endpoints yet. Add one above.</p>
      ) : (
        <EndpointsTable endpoints={endpoints} forms={forms} />
      )}
    </>
  );
}

type NewEndpointProps = { forms: FormChoice[]; lastResult?: SubmissionResult<string[]>; lastFormId?: string | null };

function NewEndpointSection({ forms, lastResult, lastFormId }: NewEndpointProps) {
  const navigation = useNavigation();
  const creating = navigation.state !== "idle" && navigation.formData?.get("intent") === "create";
  const [form, fields] = useForm({
    id: "new-endpoint",
    lastResult,
    // After a create the next endpoint most likely serves the same form: the choice stays
    // (and the select is never left showing no option at all).
    defaultValue: { events: ["lead.created"], kind: "standard", formId: lastFormId ?? "" },
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: NewEndpointFormSchema }),
  });
  const errors = endpointErrors(fields);
  const formError = form.errors?.[0];
  return (
    <section className="card" aria-labelledby="new-endpoint-heading">
      <h2 id="new-endpoint-heading">New endpoint</h2>
      <Form method="post" aria-label="New endpoint" {...getFormProps(form)}>
        <input type="hidden" name="intent" value="create" />
        <EndpointFields
          idPrefix="new-endpoint"
          values={endpointValues(fields)}
          errors={errors}
          forms={forms}
          withKind
        />
        {formError && !Object.values(errors).some(Boolean) ? (
          <p className="error" role="alert">
            {formError}
          </p>
        ) : null}
        <p>
          <button type="submit" disabled={creating}>
            {creating ? "Adding…" : "Add endpoint"}
          </button>
        </p>
      </Form>
    </section>
  );
}

function EndpointsTable({ endpoints, forms }: { endpoints: WebhookJson[]; forms: FormChoice[] }) {
  const formName = (id: string | null) =>
    id ? (forms.find((form) => form.id === id)?.name ?? `Form ${id}`) : "All forms";
  return (
    <table aria-label="Endpoints">
      <thead>
        <tr>
          <th>Endpoint</th>
          <th>Kind</th>
          <th>Events</th>
          <th>Form</th>
          <th>Health</th>
          <th>Last success</th>
        </tr>
      </thead>
      <tbody>
        {endpoints.map((endpoint) => (
          <tr key={endpoint.id} data-testid="endpoint">
            <td data-label="Endpoint">
              <Link to={`/settings/webhooks/${endpoint.id}`}>
                <Breakable text={endpoint.url} />
              </Link>
              {endpoint.description ? <div className="muted">{endpoint.description}</div> : null}
            </td>
            <td data-label="Kind">{KIND_LABELS[endpoint.kind as keyof typeof KIND_LABELS] ?? endpoint.kind}</td>
            <td data-label="Events">
              {endpoint.events.map((event) => (
                <div key={event}>
                  <code>
                    <Breakable text={event} />
                  </code>
                </div>
              ))}
            </td>
            <td data-label="Form">{formName(endpoint.formId)}</td>
            <td data-label="Health">
              <Health endpoint={endpoint} />
            </td>
            <td data-label="Last success">
              <LastSuccess at={endpoint.lastSuccessAt} />
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
