// The form's own settings beside its fields: details, settings, status, and deletion.
import { Form, Link, useFetcher, useNavigation } from "@remix-run/react";
import { FieldError, errorsByName, type ActionResult } from "./shared";

export function DetailsForm({
  name,
  description,
  actionData,
}: {
  name: string;
  description: string;
  actionData: ActionResult | undefined;
}) {
  const fetcher = useFetcher<ActionResult>();
  const result = fetcher.state === "idle" ? (fetcher.data ?? actionData) : undefined;
  const errors =
    result && !result.ok
      ? errorsByName(
          result.details?.map((d) => ({ ...d, path: `form.${d.path}` })),
          "form",
        )
      : {};
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
        <textarea
          id="form-description"
          name="description"
          rows={2}
          maxLength={2000}
          defaultValue={result?.values?.description ?? description}
        />
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

export function SettingsForm({
  settings,
  actionData,
}: {
  settings: { allowedOrigins: string[]; redirectUrl?: string | null; successMessage: string };
  actionData: ActionResult | undefined;
}) {
  const fetcher = useFetcher<ActionResult>();
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

export function StatusForm({ status }: { status: string }) {
  const fetcher = useFetcher<ActionResult>();
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

export function DeleteConfirmation({
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
