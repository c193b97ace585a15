// /forms/:id/settings: the form's name and description, and where it may be posted from,
// where a plain post goes after, and what the visitor reads on success.
import { parseWithZod } from "@conform-to/zod/v4";
import { useActionData } from "@remix-run/react";
import { DetailsForm, SettingsForm } from "~/components/form-builder/FormPanels";
import { BuilderNotice, resultFor, useBuilderData } from "~/components/form-builder/shared";
import { builderAction, savePanel } from "~/forms/builder-action.server";
import { FormDetailsSchema, SettingsFormSchema } from "~/forms/form-schema";
import { updateForm } from "~/forms/form.server";

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
              thankYou:
                thankYouMessage || thankYouLinkUrl || thankYouLinkText
                  ? { message: thankYouMessage, linkUrl: thankYouLinkUrl, linkText: thankYouLinkText }
                  : null,
            },
          }),
      ),
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
    </>
  );
}

export { BuilderError as ErrorBoundary } from "~/components/form-builder/shared";
