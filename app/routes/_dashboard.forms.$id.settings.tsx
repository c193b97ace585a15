// /forms/:id/settings: the form's name and description, and where it may be posted from,
// where a plain post goes after, what the visitor reads on success, the CAPTCHA, and
// whether completed steps are kept as a partial lead (decision 060), and whether each visitor
// confirms their address first (double opt-in, decision 067), the email each visitor gets
// after sending it (the autoresponder, decision 066), and how long leads are kept (retention,
// decision 069).
import { parseWithZod } from "@conform-to/zod/v4";
import { Form, useActionData } from "@remix-run/react";
import { AutoresponderForm } from "~/components/form-builder/AutoresponderForm";
import { CaptchaForm, DetailsForm, SettingsForm } from "~/components/form-builder/FormPanels";
import { BuilderNotice, resultFor, useBuilderData, type ActionResult } from "~/components/form-builder/shared";
import { AutoresponderFormSchema, autoresponderOfForm } from "~/forms/autoresponder";
import { builderAction, savePanel } from "~/forms/builder-action.server";
import { getForm, updateForm } from "~/forms/form.server";
import {
  CaptchaFormSchema,
  DoubleOptInFormSchema,
  FormDetailsSchema,
  PartialCaptureFormSchema,
  RetentionFormSchema,
  SettingsFormSchema,
} from "~/forms/schema/form-schema";
import { invalidFields } from "~/utils/domain-error";
import { plural } from "~/utils/plural";

export const action = builderAction({
  "update-details": {
    permission: "forms.write",
    run: ({ formId, form }) =>
      savePanel("update-details", parseWithZod(form, { schema: FormDetailsSchema }), (details) =>
        updateForm(formId, details),
      ),
  },
  "update-settings": {
    permission: "forms.write",
    run: ({ formId, form }) =>
      savePanel(
        "update-settings",
        parseWithZod(form, { schema: SettingsFormSchema }),
        ({ thankYouMessage, thankYouLinkUrl, thankYouLinkText, ...settings }) =>
          updateForm(formId, {
            settings: {
              ...settings,
              redirectUrl: settings.redirectUrl ?? null,
              // An emptied input removes the link; a post without the input keeps it.
              ...(form.has("privacyUrl") ? { privacyUrl: settings.privacyUrl ?? null } : {}),
              // An emptied list clears the titles; a post without the input keeps them.
              stepTitles: form.has("stepTitles") ? (settings.stepTitles ?? []) : undefined,
              thankYou:
                thankYouMessage || thankYouLinkUrl || thankYouLinkText
                  ? { message: thankYouMessage, linkUrl: thankYouLinkUrl, linkText: thankYouLinkText }
                  : null,
            },
          }),
      ),
  },
  "update-partial": {
    permission: "forms.write",
    run: ({ formId, form }) =>
      savePanel("update-partial", parseWithZod(form, { schema: PartialCaptureFormSchema }), ({ capturePartial }) =>
        updateForm(formId, { settings: { capturePartial } }),
      ),
  },
  "update-double-opt-in": {
    permission: "forms.write",
    run: ({ formId, form }) =>
      savePanel("update-double-opt-in", parseWithZod(form, { schema: DoubleOptInFormSchema }), ({ doubleOptIn }) =>
        updateForm(formId, { settings: { doubleOptIn } }),
      ),
  },
  "update-autoresponder": {
    permission: "forms.write",
    run: ({ formId, form }) =>
      savePanel("update-autoresponder", parseWithZod(form, { schema: AutoresponderFormSchema }), (value) =>
        updateForm(formId, { settings: { autoresponder: autoresponderOfForm(value) } }),
      ),
  },
  "update-retention": {
    permission: "forms.write",
    run: ({ formId, form }) =>
      savePanel("update-retention", parseWithZod(form, { schema: RetentionFormSchema }), ({ retentionDays }) =>
        updateForm(formId, { settings: { retentionDays: retentionDays ?? null } }),
      ),
  },
  "update-captcha": {
    permission: "forms.write",
    run: ({ formId, form }) =>
      savePanel("update-captcha", parseWithZod(form, { schema: CaptchaFormSchema }), async (captcha) => {
        if (captcha.provider === "none") return updateForm(formId, { settings: { captcha: null } });
        const stored = (await getForm(formId)).settings.captcha;
        // Another provider's secret would fail every check: a new provider needs its own.
        if (!captcha.secretKey && stored?.provider !== captcha.provider) {
          throw invalidFields([{ path: "secretKey", message: "Give this provider's secret key." }]);
        }
        const { provider, siteKey, secretKey } = captcha;
        return updateForm(formId, {
          settings: { captcha: { provider, siteKey, ...(secretKey ? { secretKey } : {}) } },
        });
      }),
  },
});

export default function SettingsSection() {
  const { form, fields } = useBuilderData();
  const actionData = useActionData<typeof action>();
  return (
    <>
      <BuilderNotice actionData={actionData} fields={fields} />
      <DetailsForm
        name={form.name}
        description={form.description}
        actionData={resultFor(actionData, "update-details")}
      />
      <SettingsForm settings={form.settings} actionData={resultFor(actionData, "update-settings")} />
      <CaptchaForm captcha={form.settings.captcha} actionData={resultFor(actionData, "update-captcha")} />
      <PartialCaptureForm
        on={form.settings.capturePartial === true}
        saved={resultFor(actionData, "update-partial")?.ok}
      />
      <DoubleOptInForm on={form.settings.doubleOptIn === true} result={resultFor(actionData, "update-double-opt-in")} />
      <AutoresponderForm
        settings={form.settings.autoresponder}
        formName={form.name}
        fields={fields}
        actionData={resultFor(actionData, "update-autoresponder")}
      />
      <RetentionForm days={form.settings.retentionDays} result={resultFor(actionData, "update-retention")} />
    </>
  );
}

/** A plain post (no Conform needed for one checkbox): works the same without JavaScript. */
function PartialCaptureForm({ on, saved }: { on: boolean; saved: boolean | undefined }) {
  return (
    <section className="card" aria-labelledby="partial-heading">
      <h2 id="partial-heading">Partial answers</h2>
      <Form method="post" aria-label="Partial answers">
        <input type="hidden" name="intent" value="update-partial" />
        <label className="choice">
          <input type="checkbox" name="capturePartial" defaultChecked={on} aria-describedby="partial-privacy" /> Keep
          the answers of a visitor who leaves after a step with their email
        </label>
        <p className="hint" id="partial-privacy">
          Privacy: a visitor who gives an email and then leaves has not sent the form. Their answers so far are kept as
          a partial lead, apart from your leads, counts and exports, with no notification or webhook, and deleted after{" "}
          PARTIAL_LEAD_RETENTION_DAYS (30 days unless set otherwise) if the form is never finished. Say so in your
          privacy notice, and turn this on only where you may contact someone who did not send the form.
        </p>
        {saved ? <p role="status">Saved.</p> : null}
        <p className="actions">
          <button type="submit">Save partial answers</button>
        </p>
      </Form>
    </section>
  );
}

/** Double opt-in (decision 067): one checkbox, a plain post. */
function DoubleOptInForm({ on, result }: { on: boolean; result: ActionResult | undefined }) {
  const refused = result && !result.ok ? (result.details?.[0]?.message ?? result.message) : undefined;
  return (
    <section className="card" aria-labelledby="double-opt-in-heading">
      <h2 id="double-opt-in-heading">Double opt-in</h2>
      <Form method="post" aria-label="Double opt-in">
        <input type="hidden" name="intent" value="update-double-opt-in" />
        <label className="choice">
          <input
            type="checkbox"
            name="doubleOptIn"
            defaultChecked={on}
            aria-describedby="double-opt-in-hint"
            aria-invalid={refused ? true : undefined}
          />{" "}
          Ask each visitor to confirm their email address
        </label>
        <p className="hint" id="double-opt-in-hint">
          The visitor gets an email with a link to confirm. Until they do, the lead is marked &ldquo;awaiting
          confirmation&rdquo;: no notification or webhook goes out, and it is deleted after UNCONFIRMED_LEAD_DAYS (30
          days unless set otherwise). Needs a required email field.
        </p>
        {refused ? (
          <p className="error" role="alert">
            {refused}
          </p>
        ) : null}
        {result?.ok ? <p role="status">Saved.</p> : null}
        <p className="actions">
          <button type="submit">Save double opt-in</button>
        </p>
      </Form>
    </section>
  );
}

/** Retention per form (decision 069): a number of days, or empty to keep leads; a plain post. */
function RetentionForm({ days, result }: { days: number | undefined; result: ActionResult | undefined }) {
  const refused = result && !result.ok ? (result.details?.[0]?.message ?? result.message) : undefined;
  return (
    <section className="card" aria-labelledby="retention-heading">
      <h2 id="retention-heading">Retention</h2>
      <p role="note">
        {days ? `Leads older than ${plural(days, "day")} are deleted.` : "Leads are kept until you delete them."}
      </p>
      <Form method="post" aria-label="Retention">
        <input type="hidden" name="intent" value="update-retention" />
        <p>
          <label htmlFor="retention-days">Delete leads older than (days)</label>
          <input
            id="retention-days"
            name="retentionDays"
            inputMode="numeric"
            pattern="[0-9]*"
            defaultValue={days ?? ""}
            aria-describedby="retention-hint"
            aria-invalid={refused ? true : undefined}
          />
        </p>
        <p className="hint" id="retention-hint">
          Empty: keep them. A background job deletes older leads every hour, with their notes, tags and webhook events,
          and records one audit entry per run.
        </p>
        {refused ? (
          <p className="error" role="alert">
            {refused}
          </p>
        ) : null}
        {result?.ok ? <p role="status">Saved.</p> : null}
        <p className="actions">
          <button type="submit">Save retention</button>
        </p>
      </Form>
    </section>
  );
}

export { BuilderError as ErrorBoundary } from "~/components/form-builder/shared";
