// What the two webhook pages (/settings/webhooks and /settings/webhooks/:id) share: the
// endpoint's inputs, its health, times, the secret shown once, and how the domain code's
// refusals are named as the form's inputs.
import { LocalTime } from "~/components/LocalTime";
import type { ErrorDetail } from "~/utils/domain-error";
import { WEBHOOK_EVENTS, WEBHOOK_KINDS } from "~/webhooks/webhook-schemas";
import type { WebhookJson } from "~/webhooks/webhooks.server";
import type { ReactNode } from "react";

export type FormChoice = { id: string; name: string; status: string };
export type EndpointValues = { url?: string; description?: string; events: string[]; formId?: string; kind?: string };
export type EndpointErrors = Partial<Record<"url" | "description" | "events" | "formId" | "kind", string>>;

export const KIND_LABELS: Record<(typeof WEBHOOK_KINDS)[number], string> = {
  standard: "Standard Webhooks (signed JSON)",
  slack: "Slack message",
};

/** The API's paths (`url`, `events.0`) as Conform's field names (`url`, `events[0]`). */
export function fieldErrorsFrom(details: ErrorDetail[]): Record<string, string[]> {
  const fieldErrors: Record<string, string[]> = {};
  for (const detail of details) (fieldErrors[detail.path.replace(/\.(\d+)/g, "[$1]")] ??= []).push(detail.message);
  return fieldErrors;
}

type Field = { allErrors: Record<string, string[]>; initialValue?: unknown };
type EndpointFieldsMeta = Record<"url" | "description" | "events" | "formId", Field> & { kind?: Field };

/** The inputs' errors from Conform's fields: each input's first, its items' too (`events[1]`). */
export function endpointErrors(fields: EndpointFieldsMeta): EndpointErrors {
  const first = (field: Field | undefined) => (field ? Object.values(field.allErrors).flat()[0] : undefined);
  return {
    url: first(fields.url),
    description: first(fields.description),
    events: first(fields.events),
    formId: first(fields.formId),
    kind: first(fields.kind),
  };
}

/** What the inputs show: the values Conform kept from a refused post, else `defaults`. */
export function endpointValues(fields: EndpointFieldsMeta): EndpointValues {
  const text = (field: Field | undefined) => (typeof field?.initialValue === "string" ? field.initialValue : undefined);
  const events = fields.events.initialValue;
  return {
    url: text(fields.url),
    description: text(fields.description),
    events: Array.isArray(events)
      ? events.filter((item) => typeof item === "string")
      : text(fields.events)
        ? [text(fields.events)!]
        : [],
    formId: text(fields.formId),
    kind: text(fields.kind),
  };
}

export function Health({ endpoint }: { endpoint: Pick<WebhookJson, "enabled" | "disabledReason" | "failingSince"> }) {
  if (!endpoint.enabled) {
    return <span className="badge disabled">{`Disabled: ${endpoint.disabledReason ?? "no reason given"}`}</span>;
  }
  if (endpoint.failingSince) {
    return (
      <span className="badge failing">
        Failing since <LocalTime iso={endpoint.failingSince} />
      </span>
    );
  }
  return <span className="badge healthy">Healthy</span>;
}

export function LastSuccess({ at }: { at: string | null }) {
  return at ? <LocalTime iso={at} /> : <span className="muted">Never</span>;
}

/** A secret in the action's answer: on this page once, never in a URL, the session or a log. */
export function SecretNotice({ heading, secret, children }: { heading: string; secret: string; children?: ReactNode }) {
  return (
    <div className="notice warn" role="status" aria-label="Signing secret">
      <p>
        <strong>{heading}</strong>
      </p>
      <p>
        Signing secret:{" "}
        <code className="secret" data-testid="signing-secret">
          {secret}
        </code>
      </p>
      <p>Copy it now: it will not be shown again.</p>
      {children}
    </div>
  );
}

function FieldError({ id, message }: { id: string; message?: string }) {
  return message ? (
    <p id={id} className="field-error">
      {message}
    </p>
  ) : null;
}

const invalid = (id: string, message?: string) =>
  message ? { "aria-invalid": true as const, "aria-describedby": id } : {};

/** URL, description, events, form (and kind for a new endpoint), each with its error. */
export function EndpointFields({
  idPrefix,
  values,
  errors,
  forms,
  withKind = false,
}: {
  idPrefix: string;
  values: EndpointValues;
  errors: EndpointErrors;
  forms: FormChoice[];
  withKind?: boolean;
}) {
  const id = (name: string) => `${idPrefix}-${name}`;
  return (
    <>
      <label htmlFor={id("url")}>URL</label>
      <input
        id={id("url")}
        name="url"
        type="url"
        required
        maxLength={2048}
        placeholder="https://crm.example.com/hooks/leads"
        defaultValue={values.url}
        {...invalid(id("url-error"), errors.url)}
      />
      <FieldError id={id("url-error")} message={errors.url} />

      <label htmlFor={id("description")}>Description (optional)</label>
      <input
        id={id("description")}
        name="description"
        maxLength={500}
        defaultValue={values.description}
        {...invalid(id("description-error"), errors.description)}
      />
      <FieldError id={id("description-error")} message={errors.description} />

      <fieldset className="choices" aria-describedby={errors.events ? id("events-error") : undefined}>
        <legend>
          <strong>Events</strong>
        </legend>
        {WEBHOOK_EVENTS.map((event) => (
          <label key={event} className="choice">
            <input type="checkbox" name="events" value={event} defaultChecked={values.events.includes(event)} />
            <code>{event}</code>
          </label>
        ))}
      </fieldset>
      <FieldError id={id("events-error")} message={errors.events} />

      <FormSelect id={id("formId")} value={values.formId} error={errors.formId} forms={forms} />

      {withKind ? <KindSelect id={id("kind")} value={values.kind} error={errors.kind} /> : null}
    </>
  );
}

function FormSelect({ id, value, error, forms }: { id: string; value?: string; error?: string; forms: FormChoice[] }) {
  // An endpoint's form that is not among the choices (more forms than the list holds) stays selectable.
  const choices =
    value && !forms.some((form) => form.id === value)
      ? [...forms, { id: value, name: `Form ${value}`, status: "active" }]
      : forms;
  return (
    <>
      <label htmlFor={id}>Form</label>
      <select id={id} name="formId" defaultValue={value ?? ""} {...invalid(`${id}-error`, error)}>
        <option value="">All forms</option>
        {choices.map((form) => (
          <option key={form.id} value={form.id}>
            {form.name}
            {form.status === "archived" ? " (archived)" : ""}
          </option>
        ))}
      </select>
      <p className="muted">Lead events of this form only. Support request events go only to “All forms” endpoints.</p>
      <FieldError id={`${id}-error`} message={error} />
    </>
  );
}

function KindSelect({ id, value, error }: { id: string; value?: string; error?: string }) {
  return (
    <>
      <label htmlFor={id}>Kind</label>
      <select id={id} name="kind" defaultValue={value ?? "standard"} {...invalid(`${id}-error`, error)}>
        {WEBHOOK_KINDS.map((kind) => (
          <option key={kind} value={kind}>
            {KIND_LABELS[kind]}
          </option>
        ))}
      </select>
      <FieldError id={`${id}-error`} message={error} />
    </>
  );
}
