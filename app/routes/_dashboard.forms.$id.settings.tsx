// /forms/:id/settings: the form's name and description, and where it may be posted from,
// where a plain post goes after, what the visitor reads on success, and the CAPTCHA.
import { parseWithZod } from "@conform-to/zod/v4";
import { useActionData } from "@remix-run/react";
import { CaptchaForm, DetailsForm, SettingsForm } from "~/components/form-builder/FormPanels";
import { BuilderNotice, resultFor, useBuilderData } from "~/components/form-builder/shared";
import { builderAction, savePanel } from "~/forms/builder-action.server";
import { CaptchaFormSchema, FormDetailsSchema, SettingsFormSchema } from "~/forms/form-schema";
import { getForm, updateForm } from "~/forms/form.server";
import { invalidFields } from "~/utils/domain-error";

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
    </>
  );
}

export { BuilderError as ErrorBoundary } from "~/components/form-builder/shared";
