// /forms/:id/notifications: who is emailed about each lead, at once or in a daily digest.
import { parseWithZod } from "@conform-to/zod/v4";
import { useActionData } from "@remix-run/react";
import { NotificationsForm } from "~/components/form-builder/FormPanels";
import { BuilderNotice, resultFor, useBuilderData } from "~/components/form-builder/shared";
import { builderAction, savePanel } from "~/forms/builder-action.server";
import { updateForm } from "~/forms/form.server";
import { NotificationsFormSchema } from "~/forms/schema/form-schema";

export const action = builderAction({
  "update-notifications": {
    permission: "forms.write",
    run: ({ formId, form }) =>
      savePanel("update-notifications", parseWithZod(form, { schema: NotificationsFormSchema }), (notifications) =>
        updateForm(formId, { settings: { notifications } }),
      ),
  },
});

export default function NotificationsSection() {
  const { form, fields, staffEmails } = useBuilderData();
  const actionData = useActionData<typeof action>();
  return (
    <>
      <BuilderNotice actionData={actionData} fields={fields} />
      <NotificationsForm
        notifications={form.settings.notifications}
        staffEmails={staffEmails}
        actionData={resultFor(actionData, "update-notifications")}
      />
    </>
  );
}

export { BuilderError as ErrorBoundary } from "~/components/form-builder/shared";
