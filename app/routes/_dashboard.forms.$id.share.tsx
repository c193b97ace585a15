// /forms/:id/share: the hosted form's link, the embed code with its copy button, and a
// plain HTML form for sites without JavaScript.
import { EmbedSnippet } from "~/components/EmbedSnippet";
import { useBuilderData } from "~/components/form-builder/shared";

export default function ShareSection() {
  const { form, fields, appUrl } = useBuilderData();
  return (
    <EmbedSnippet
      formId={form.id}
      appUrl={appUrl}
      fields={fields}
      successMessage={form.settings.successMessage}
      captcha={form.settings.captcha}
      stepTitles={form.settings.stepTitles}
      capturePartial={form.settings.capturePartial}
      privacyUrl={form.settings.privacyUrl}
    />
  );
}

export { BuilderError as ErrorBoundary } from "~/components/form-builder/shared";
