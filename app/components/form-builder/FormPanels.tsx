// The form's own settings beside its fields: details, settings and notifications
// (archiving and deleting: DangerForms.tsx).
import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { useFetcher } from "@remix-run/react";
import { CAPTCHA_PROVIDERS } from "~/forms/captcha-widgets";
import {
  CaptchaFormSchema,
  FormDetailsSchema,
  NotificationsFormSchema,
  SettingsFormSchema,
} from "~/forms/schema/form-schema";
import { plural } from "~/utils/plural";
import { FieldError, type ActionResult } from "./shared";
import type { z } from "zod";

/**
 * A builder panel's Conform form: validated in the browser with the schema the action
 * parses with (decision 022), posted through a fetcher with JavaScript and as a plain
 * form post without; the last reply comes from the fetcher or the page's action.
 */
export function usePanelForm<Schema extends z.ZodType<Record<string, unknown>>>(
  id: string,
  schema: Schema,
  defaultValue: Record<string, string>,
  actionData: ActionResult | undefined,
) {
  const fetcher = useFetcher<ActionResult>();
  const [form, fields] = useForm({
    id,
    lastResult: fetcher.state === "idle" ? (fetcher.data?.reply ?? actionData?.reply) : undefined,
    defaultValue,
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
  });
  /** A field's errors, with those of its lines (`name[i]`) as "Line i + 1: ...". */
  const errorOf = (name: string): string | undefined => {
    const messages: string[] = [];
    for (const [key, errors] of Object.entries(form.allErrors)) {
      const line = key === name ? null : key.match(new RegExp(`^${name}\\[(\\d+)\\]$`))?.[1];
      if (line === undefined) continue;
      for (const message of errors) messages.push(line === null ? message : `Line ${Number(line) + 1}: ${message}`);
    }
    return messages.length ? messages.join(" ") : undefined;
  };
  const described = (name: string, errorId: string) =>
    errorOf(name) ? { "aria-invalid": true as const, "aria-describedby": errorId } : {};
  const saved = fetcher.state === "idle" && fetcher.data?.ok;
  return { fetcher, form, fields, errorOf, described, saved };
}

export function DetailsForm({
  name,
  description,
  actionData,
}: {
  name: string;
  description: string;
  actionData: ActionResult | undefined;
}) {
  const { fetcher, form, errorOf, described, saved } = usePanelForm(
    "form-details",
    FormDetailsSchema,
    { name, description },
    actionData,
  );
  const pendingName = fetcher.formData?.get("name");
  const initial = form.initialValue as Record<string, string | undefined> | undefined;
  return (
    <section className="card" aria-labelledby="details-heading">
      <h2 id="details-heading">Name and description</h2>
      <fetcher.Form method="post" aria-label="Form details" {...getFormProps(form)}>
        <input type="hidden" name="intent" value="update-details" />
        <label htmlFor="form-name">Name</label>
        <input
          id="form-name"
          name="name"
          required
          maxLength={200}
          defaultValue={initial?.name ?? ""}
          {...described("name", "form-name-error")}
        />
        <FieldError id="form-name-error" message={errorOf("name")} />
        <label htmlFor="form-description">Description</label>
        <textarea
          id="form-description"
          name="description"
          rows={2}
          maxLength={2000}
          defaultValue={initial?.description ?? ""}
          {...described("description", "form-description-error")}
        />
        <FieldError id="form-description-error" message={errorOf("description")} />
        <PanelError errors={form.errors} />
        <p className="actions">
          <button type="submit" disabled={fetcher.state !== "idle"}>
            {fetcher.state !== "idle" ? `Saving “${String(pendingName ?? "")}”…` : "Save name and description"}
          </button>
          {saved ? <span role="status">Saved.</span> : null}
        </p>
      </fetcher.Form>
    </section>
  );
}

const THANK_YOU_INPUTS = [
  { name: "thankYouMessage", label: "Message (optional; otherwise the success message)", type: "text" },
  { name: "thankYouLinkUrl", label: "Link back to your site (optional)", type: "url" },
  { name: "thankYouLinkText", label: "Link text (optional)", type: "text" },
] as const;

/** The thank-you page's message and link back (settings.thankYou), in the settings form. */
function ThankYouFieldset({
  initial,
  errorOf,
  described,
}: {
  initial: Record<string, string | undefined> | undefined;
  errorOf: (name: string) => string | undefined;
  described: (name: string, errorId: string) => Record<string, unknown>;
}) {
  return (
    <fieldset>
      <legend>Hosted thank-you page</legend>
      {THANK_YOU_INPUTS.map(({ name, label, type }) => (
        <p key={name}>
          <label htmlFor={`settings-${name}`}>{label}</label>
          <input
            id={`settings-${name}`}
            name={name}
            type={type}
            defaultValue={initial?.[name] ?? ""}
            {...described(name, `settings-${name}-error`)}
          />
          <FieldError id={`settings-${name}-error`} message={errorOf(name)} />
        </p>
      ))}
    </fieldset>
  );
}

/** The names of a form's steps, one per line (the field editor puts a field on its step). */
function StepTitlesInput({ initial, errorOf, described }: Parameters<typeof ThankYouFieldset>[0]) {
  return (
    <>
      <label htmlFor="settings-stepTitles">
        Step titles (one per line, step 1 first; a field&apos;s step is set in its editor)
      </label>
      <textarea
        id="settings-stepTitles"
        name="stepTitles"
        rows={3}
        placeholder={"You\nYour company"}
        defaultValue={initial?.stepTitles ?? ""}
        {...described("stepTitles", "settings-stepTitles-error")}
      />
      <FieldError id="settings-stepTitles-error" message={errorOf("stepTitles")} />
    </>
  );
}

/** The form's privacy notice (settings.privacyUrl, decision 065): an https:// address, or none. */
function PrivacyUrlInput({ initial, errorOf, described }: Parameters<typeof ThankYouFieldset>[0]) {
  return (
    <>
      <label htmlFor="settings-privacyUrl">Privacy notice (optional; linked beside the Send button)</label>
      <input
        id="settings-privacyUrl"
        name="privacyUrl"
        type="url"
        placeholder="https://www.example.com/privacy"
        defaultValue={initial?.privacyUrl ?? ""}
        {...described("privacyUrl", "settings-privacyUrl-error")}
      />
      <FieldError id="settings-privacyUrl-error" message={errorOf("privacyUrl")} />
    </>
  );
}

export function SettingsForm({
  settings,
  actionData,
}: {
  settings: {
    allowedOrigins: string[];
    redirectUrl?: string | null;
    successMessage: string;
    thankYou?: { message?: string; linkUrl?: string; linkText?: string } | null;
    stepTitles?: string[];
    privacyUrl?: string | null;
  };
  actionData: ActionResult | undefined;
}) {
  const { fetcher, form, errorOf, described, saved } = usePanelForm(
    "form-settings",
    SettingsFormSchema,
    {
      allowedOrigins: settings.allowedOrigins.join("\n"),
      redirectUrl: settings.redirectUrl ?? "",
      successMessage: settings.successMessage,
      thankYouMessage: settings.thankYou?.message ?? "",
      thankYouLinkUrl: settings.thankYou?.linkUrl ?? "",
      thankYouLinkText: settings.thankYou?.linkText ?? "",
      stepTitles: (settings.stepTitles ?? []).join("\n"),
      privacyUrl: settings.privacyUrl ?? "",
    },
    actionData,
  );
  const initial = form.initialValue as Record<string, string | undefined> | undefined;
  return (
    <section className="card" aria-labelledby="settings-heading">
      <h2 id="settings-heading">Settings</h2>
      <fetcher.Form method="post" aria-label="Settings" {...getFormProps(form)}>
        <input type="hidden" name="intent" value="update-settings" />
        <label htmlFor="settings-allowedOrigins">Allowed origins (one per line; empty: any site)</label>
        <textarea
          id="settings-allowedOrigins"
          name="allowedOrigins"
          rows={3}
          placeholder="https://www.example.com"
          defaultValue={initial?.allowedOrigins ?? ""}
          {...described("allowedOrigins", "settings-allowedOrigins-error")}
        />
        <FieldError id="settings-allowedOrigins-error" message={errorOf("allowedOrigins")} />
        <label htmlFor="settings-redirectUrl">Redirect after a plain HTML post (optional)</label>
        <input
          id="settings-redirectUrl"
          name="redirectUrl"
          type="url"
          placeholder="https://www.example.com/thanks"
          defaultValue={initial?.redirectUrl ?? ""}
          {...described("redirectUrl", "settings-redirectUrl-error")}
        />
        <FieldError id="settings-redirectUrl-error" message={errorOf("redirectUrl")} />
        <label htmlFor="settings-successMessage">Success message</label>
        <input
          id="settings-successMessage"
          name="successMessage"
          maxLength={500}
          defaultValue={initial?.successMessage ?? ""}
          {...described("successMessage", "settings-successMessage-error")}
        />
        <FieldError id="settings-successMessage-error" message={errorOf("successMessage")} />
        <PrivacyUrlInput initial={initial} errorOf={errorOf} described={described} />
        <ThankYouFieldset initial={initial} errorOf={errorOf} described={described} />
        <StepTitlesInput initial={initial} errorOf={errorOf} described={described} />
        <PanelError errors={form.errors} />
        <p className="actions">
          <button type="submit" disabled={fetcher.state !== "idle"}>
            {fetcher.state !== "idle" ? "Saving…" : "Save settings"}
          </button>
          {saved ? <span role="status">Saved.</span> : null}
        </p>
      </fetcher.Form>
    </section>
  );
}

export function NotificationsForm({
  notifications,
  staffEmails,
  actionData,
}: {
  notifications: { recipients: string[]; mode: "instant" | "digest" };
  staffEmails: string[];
  actionData: ActionResult | undefined;
}) {
  const { fetcher, form, errorOf, described, saved } = usePanelForm(
    "form-notifications",
    NotificationsFormSchema,
    { recipients: notifications.recipients.join("\n"), mode: notifications.mode },
    actionData,
  );
  const initial = form.initialValue as Record<string, string | undefined> | undefined;
  const mode = initial?.mode ?? "instant";
  return (
    <section className="card" aria-labelledby="notifications-heading">
      <h2 id="notifications-heading">Notifications</h2>
      <fetcher.Form method="post" aria-label="Notifications" {...getFormProps(form)}>
        <input type="hidden" name="intent" value="update-notifications" />
        <label htmlFor="notifications-recipients">Email each lead to (one address per line; empty: nobody)</label>
        <textarea
          id="notifications-recipients"
          name="recipients"
          rows={3}
          defaultValue={initial?.recipients ?? ""}
          {...described("recipients", "notifications-recipients-error")}
        />
        <FieldError id="notifications-recipients-error" message={errorOf("recipients")} />
        <p className="hint" id="notifications-recipients-now">
          {notifications.recipients.length === 0
            ? "Nobody is told of this form's leads yet: add an address to email them."
            : `${plural(notifications.recipients.length, "address", "addresses")} ${notifications.recipients.length === 1 ? "is" : "are"} emailed about its leads.`}
        </p>
        {staffEmails.length > 0 ? <p className="hint">Staff: {staffEmails.join(", ")}</p> : null}
        <fieldset>
          <legend>When</legend>
          <label>
            <input type="radio" name="mode" value="instant" defaultChecked={mode === "instant"} /> At once, one email
            per lead
          </label>
          <label>
            <input type="radio" name="mode" value="digest" defaultChecked={mode === "digest"} /> One daily digest
          </label>
        </fieldset>
        <FieldError id="notifications-mode-error" message={errorOf("mode")} />
        <p className="hint">Leads marked as spam are never emailed. Replying to an instant email answers the lead.</p>
        <PanelError errors={form.errors} />
        <p className="actions">
          <button type="submit" disabled={fetcher.state !== "idle"}>
            {fetcher.state !== "idle" ? "Saving…" : "Save notifications"}
          </button>
          {saved ? <span role="status">Saved.</span> : null}
        </p>
      </fetcher.Form>
    </section>
  );
}

/** A refusal of the whole panel (the form changed meanwhile, say). */
const PROVIDER_NAMES: Record<(typeof CAPTCHA_PROVIDERS)[number], string> = {
  turnstile: "Cloudflare Turnstile",
  hcaptcha: "hCaptcha",
  recaptcha: "Google reCAPTCHA (v2)",
};

/** settings.captcha: the provider and its keys; the stored secret is never shown. */
export function CaptchaForm({
  captcha,
  actionData,
}: {
  captcha?: { provider: string; siteKey: string } | null;
  actionData: ActionResult | undefined;
}) {
  const { fetcher, form, errorOf, described, saved } = usePanelForm(
    "form-captcha",
    CaptchaFormSchema,
    { provider: captcha?.provider ?? "none", siteKey: captcha?.siteKey ?? "", secretKey: "" },
    actionData,
  );
  const initial = form.initialValue as Record<string, string | undefined> | undefined;
  return (
    <section className="card" aria-labelledby="captcha-heading">
      <h2 id="captcha-heading">CAPTCHA</h2>
      <p className="hint">
        Asks each visitor to prove they are a person before the form is sent, with the provider&apos;s widget on the
        hosted form and the embed. The widget needs JavaScript. If the provider cannot be reached, leads are kept and
        marked as spam for you to review.
      </p>
      <fetcher.Form method="post" aria-label="CAPTCHA" {...getFormProps(form)}>
        <input type="hidden" name="intent" value="update-captcha" />
        <label htmlFor="captcha-provider">Provider</label>
        <select id="captcha-provider" name="provider" defaultValue={initial?.provider ?? "none"}>
          <option value="none">None</option>
          {CAPTCHA_PROVIDERS.map((provider) => (
            <option key={provider} value={provider}>
              {PROVIDER_NAMES[provider]}
            </option>
          ))}
        </select>
        <label htmlFor="captcha-site-key">Site key</label>
        <input
          id="captcha-site-key"
          name="siteKey"
          maxLength={200}
          autoComplete="off"
          defaultValue={initial?.siteKey ?? ""}
          {...described("siteKey", "captcha-site-key-error")}
        />
        <FieldError id="captcha-site-key-error" message={errorOf("siteKey")} />
        <label htmlFor="captcha-secret-key">Secret key</label>
        <input
          id="captcha-secret-key"
          name="secretKey"
          type="password"
          maxLength={500}
          autoComplete="off"
          aria-describedby={errorOf("secretKey") ? "captcha-secret-key-error" : "captcha-secret-key-hint"}
          aria-invalid={errorOf("secretKey") ? true : undefined}
        />
        <p className="hint" id="captcha-secret-key-hint">
          {captcha ? "A secret key is stored: leave this empty to keep it." : "From the provider's dashboard."}
        </p>
        <FieldError id="captcha-secret-key-error" message={errorOf("secretKey")} />
        <PanelError errors={form.errors} />
        <p className="actions">
          <button type="submit" disabled={fetcher.state !== "idle"}>
            {fetcher.state !== "idle" ? "Saving…" : "Save CAPTCHA"}
          </button>
          {saved ? <span role="status">Saved.</span> : null}
        </p>
      </fetcher.Form>
    </section>
  );
}

function PanelError({ errors }: { errors: string[] | undefined }) {
  return errors?.length ? (
    <p className="error" role="alert">
      {errors.join(" ")}
    </p>
  ) : null;
}
