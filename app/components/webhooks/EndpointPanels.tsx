// One endpoint's page (/settings/webhooks/:id): its summary, its buttons (each a form post
// with an `intent`, so all of it works without JavaScript), its settings and delete forms.
import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Form } from "@remix-run/react";
import { LocalTime } from "~/components/LocalTime";
import {
  EndpointFields,
  Health,
  KIND_LABELS,
  LastSuccess,
  endpointErrors,
  endpointValues,
  type FormChoice,
} from "~/components/webhooks/EndpointFields";
import { EndpointFormSchema } from "~/webhooks/webhook-schemas";
import type { WebhookJson } from "~/webhooks/webhooks.server";

export function EndpointSummary({ endpoint }: { endpoint: WebhookJson }) {
  return (
    <dl className="summary">
      <dt>Health</dt>
      <dd data-testid="health">
        <Health endpoint={endpoint} />
      </dd>
      <dt>Last success</dt>
      <dd>
        <LastSuccess at={endpoint.lastSuccessAt} />
      </dd>
      <dt>Kind</dt>
      <dd>{KIND_LABELS[endpoint.kind as keyof typeof KIND_LABELS] ?? endpoint.kind}</dd>
      {endpoint.description ? (
        <>
          <dt>Description</dt>
          <dd>{endpoint.description}</dd>
        </>
      ) : null}
      {endpoint.previousSecretExpiresAt ? (
        <>
          <dt>Previous secret</dt>
          <dd>
            signs too until <LocalTime iso={endpoint.previousSecretExpiresAt} />
          </dd>
        </>
      ) : null}
      <dt>Created</dt>
      <dd>
        <LocalTime iso={endpoint.createdAt} />
      </dd>
    </dl>
  );
}

export function IntentButton({
  intent,
  label,
  busy,
  className = "secondary",
}: {
  intent: string;
  label: string;
  busy: string;
  className?: string;
}) {
  return (
    <Form method="post">
      <input type="hidden" name="intent" value={intent} />
      <button type="submit" className={className} disabled={busy === intent}>
        {label}
      </button>
    </Form>
  );
}

export function EndpointActions({ endpoint, busy }: { endpoint: WebhookJson; busy: string }) {
  return (
    <div className="actions" role="group" aria-label="Endpoint actions">
      <IntentButton intent="test" label="Send test event" busy={busy} />
      {endpoint.enabled ? (
        <IntentButton intent="disable" label="Disable" busy={busy} />
      ) : (
        <IntentButton intent="enable" label="Enable" busy={busy} />
      )}
      <IntentButton intent="rotate" label="Rotate secret" busy={busy} />
    </div>
  );
}

export function SettingsForm({
  endpoint,
  forms,
  lastResult,
  saved,
  busy,
}: {
  endpoint: WebhookJson;
  forms: FormChoice[];
  lastResult?: SubmissionResult<string[]>;
  saved: boolean;
  busy: boolean;
}) {
  const [form, fields] = useForm({
    id: "endpoint-settings",
    lastResult,
    defaultValue: {
      url: endpoint.url,
      description: endpoint.description,
      events: endpoint.events,
      formId: endpoint.formId ?? "",
    },
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: EndpointFormSchema }),
  });
  const errors = endpointErrors(fields);
  const formError = form.errors?.[0];
  return (
    <section className="card" aria-labelledby="settings-heading">
      <h2 id="settings-heading">Settings</h2>
      <Form method="post" aria-label="Endpoint settings" {...getFormProps(form)}>
        <input type="hidden" name="intent" value="update" />
        <EndpointFields idPrefix="settings" values={endpointValues(fields)} errors={errors} forms={forms} />
        {formError && !Object.values(errors).some(Boolean) ? (
          <p className="error" role="alert">
            {formError}
          </p>
        ) : null}
        <p className="actions">
          <button type="submit" disabled={busy}>
            {busy ? "Saving…" : "Save settings"}
          </button>
          {saved ? <span role="status">Saved.</span> : null}
        </p>
      </Form>
    </section>
  );
}

/** Two steps without JavaScript too: open the panel, tick the box, press delete. */
export function DeleteEndpoint({ refusal }: { refusal?: string }) {
  return (
    <details className="card danger-zone" open={refusal ? true : undefined}>
      <summary>Delete this endpoint…</summary>
      <Form method="post" aria-label="Delete endpoint">
        <input type="hidden" name="intent" value="delete" />
        <p>The endpoint and its deliveries log are deleted; nothing more is sent to it. This cannot be undone.</p>
        <label className="choice">
          <input type="checkbox" name="confirm" required /> I understand
        </label>
        {refusal ? (
          <p className="error" role="alert">
            {refusal}
          </p>
        ) : null}
        <p>
          <button type="submit" className="danger">
            Delete endpoint
          </button>
        </p>
      </Form>
    </details>
  );
}
