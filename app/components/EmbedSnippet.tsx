// How a website puts a form on its pages: the embed script with the site's own form
// markup, a plain HTML form that posts to the public submit endpoint, or the hosted
// page. Shown on the builder page. The lead-capture area owns what the snippets say
// (see app/routes/embed[.]js.ts and docs/api/lead-capture.md); this is where they are shown.
import { useState } from "react";
import { useHydrated } from "~/components/form-builder/shared";
import { consentParts } from "~/forms/schema/consent-text";
import { acceptAttribute, fileRules } from "~/forms/schema/file-field";
import type { FormField } from "~/forms/schema/form-schema";
import { formSteps } from "~/forms/schema/form-steps";
import { HONEYPOT_FIELD } from "~/leads/lead-fields";
import { escapeHtml } from "~/utils/html";

/** What of a form's settings the embed code carries. */
type SnippetOptions = {
  successMessage?: string;
  /** The form's CAPTCHA: the snippet asks the script to draw its widget. */
  captcha?: { provider: string; siteKey: string };
  /** The names of a form's steps (settings.stepTitles). */
  stepTitles?: string[];
  /** settings.capturePartial: the script keeps a partial lead at each step (decision 060). */
  capturePartial?: boolean;
  /** settings.privacyUrl: a "Privacy notice" link beside the Send button (decision 065). */
  privacyUrl?: string;
};

/** A consent's text as HTML: escaped text, and its http(s) links opening in a new tab. */
function consentHtml(text: string): string {
  return consentParts(text)
    .map((part) =>
      "href" in part
        ? `<a href="${escapeHtml(part.href)}" target="_blank" rel="noopener noreferrer">${escapeHtml(part.text)}</a>`
        : escapeHtml(part.text),
    )
    .join("");
}

/** The privacy notice's link, below the Send button. */
function privacyLink(url: string | undefined): string[] {
  if (!url) return [];
  return [
    `  <p class="lc-privacy"><a href="${escapeHtml(url)}" target="_blank" rel="noopener noreferrer">Privacy notice</a></p>`,
  ];
}

type Props = SnippetOptions & { formId: string; appUrl: string; fields?: FormField[] };

function inputsFor(fields: FormField[]): string[] {
  return fields
    .filter((field) => field.type !== "hidden")
    .map((field) => {
      // Required fields carry the same visible mark as on the hosted page.
      const label = escapeHtml(field.label) + (field.required ? ` <span aria-hidden="true">*</span>` : "");
      // A conditional field is required only when shown, which the server decides (and the
      // script shows it only then): the browser must not hold the post for it.
      const required = field.required && !field.showIf ? " required" : "";
      // Its condition, for the script to show it by.
      const open = field.showIf ? `<label data-lc-show-if="${escapeHtml(JSON.stringify(field.showIf))}">` : "<label>";
      if (field.type === "textarea")
        return `  ${open}${label} <textarea name="${field.key}"${required}></textarea></label>`;
      if (field.type === "checkbox")
        return `  ${open}<input type="checkbox" name="${field.key}"${required}> ${label}</label>`;
      if (field.type === "consent") {
        const mark = field.required ? ` <span aria-hidden="true">*</span>` : "";
        return `  ${open}<input type="checkbox" name="${field.key}"${required}> ${consentHtml(field.text ?? field.label)}${mark}</label>`;
      }
      if (field.type === "select" || field.type === "multiselect") {
        const options = (field.options ?? []).map((option) => `<option>${escapeHtml(option)}</option>`).join("");
        // A single select starts on an empty choice, so nothing is picked for the visitor
        // and `required` refuses a form sent without a choice.
        const empty = field.type === "select" ? `<option value="">Choose…</option>` : "";
        const multiple = field.type === "multiselect" ? " multiple" : "";
        return `  ${open}${label} <select name="${field.key}"${multiple}${required}>${empty}${options}</select></label>`;
      }
      if (field.type === "file") {
        const multiple = fileRules(field).maxFiles > 1 ? " multiple" : "";
        const accept = escapeHtml(acceptAttribute(field));
        return `  ${open}${label} <input type="file" name="${field.key}" accept="${accept}"${multiple}${required}></label>`;
      }
      return `  ${open}${label} <input type="${field.type}" name="${field.key}"${required}></label>`;
    });
}

/** A form with a file field posts its files: without JavaScript, only as multipart. */
const encoding = (fields: FormField[]) =>
  fields.some((field) => field.type === "file") ? ` enctype="multipart/form-data"` : "";

/**
 * The fields' inputs; a form in steps groups them in one `<fieldset data-lc-step>` per step,
 * which the script shows one at a time (every step shows without it).
 */
function stepInputs(fields: FormField[], stepTitles: string[] = []): string[] {
  const steps = formSteps(fields, stepTitles);
  if (steps.length < 2) return inputsFor(fields);
  return steps.flatMap((step) => [
    `  <fieldset data-lc-step="${step.number}">`,
    ...(step.title ? [`    <legend>${escapeHtml(step.title)}</legend>`] : []),
    ...inputsFor(fields.filter((field) => step.keys.includes(field.key))).map((line) => `  ${line}`),
    `  </fieldset>`,
  ]);
}

/**
 * The form's own way to the submit endpoint: its id and the honeypot (off-screen, inline
 * styled so it stays hidden without /embed.css). The script reuses both (`data-lead-capture`).
 */
function submitTarget(formId: string): string[] {
  return [
    `  <input type="hidden" name="formId" value="${formId}" data-lead-capture>`,
    `  <div aria-hidden="true" style="position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden">` +
      `<label>Leave this field empty <input type="text" name="${HONEYPOT_FIELD}" tabindex="-1" autocomplete="off"></label></div>`,
  ];
}

/**
 * The embed code a site pastes: the optional stylesheet, the script and the form's markup.
 * The form is a real post to the submit endpoint, so a visitor without JavaScript (or
 * whose browser blocks the script) still sends the lead and lands on the thank-you page;
 * the script enhances it in place.
 */
export function scriptSnippet(
  formId: string,
  appUrl: string,
  fields: FormField[],
  { successMessage, captcha, stepTitles, capturePartial, privacyUrl }: SnippetOptions = {},
): string {
  const message =
    (successMessage ? ` data-success-message="${escapeHtml(successMessage)}"` : "") +
    (captcha
      ? ` data-captcha="${escapeHtml(captcha.provider)}" data-captcha-sitekey="${escapeHtml(captcha.siteKey)}"`
      : "") +
    (capturePartial ? " data-capture-partial" : "");
  return [
    `<!-- Optional: the form's look, themeable with --lc-accent, --lc-radius and --lc-font -->`,
    `<link rel="stylesheet" href="${appUrl}/embed.css">`,
    `<script src="${appUrl}/embed.js" defer></script>`,
    `<form class="lc-form" method="post" action="${appUrl}/api/leads/submit"${encoding(fields)} data-lead-form="${formId}"${message}>`,
    ...submitTarget(formId),
    ...stepInputs(fields, stepTitles),
    `  <button type="submit">Send</button>`,
    ...privacyLink(privacyUrl),
    `</form>`,
  ].join("\n");
}

function htmlFormExample(formId: string, appUrl: string, fields: FormField[], privacyUrl?: string): string {
  return [
    `<form class="lc-form" method="post" action="${appUrl}/api/leads/submit"${encoding(fields)}>`,
    ...submitTarget(formId),
    ...inputsFor(fields),
    `  <button type="submit">Send</button>`,
    ...privacyLink(privacyUrl),
    `</form>`,
  ].join("\n");
}

/** Code to paste, with a Copy button once JavaScript runs (without it, the code is selectable). */
function CopyableCode({ code, label }: { code: string; label: string }) {
  const hydrated = useHydrated();
  const [copied, setCopied] = useState(false);
  const copy = () =>
    navigator.clipboard.writeText(code).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  return (
    <div className="copyable">
      <pre>
        <code>{code}</code>
      </pre>
      {hydrated ? (
        <p className="actions">
          <button type="button" className="secondary" onClick={copy} aria-label={`Copy the ${label}`}>
            Copy
          </button>
          <span role="status" aria-live="polite">
            {copied ? "Copied" : ""}
          </span>
        </p>
      ) : null}
    </div>
  );
}

export function EmbedSnippet({ formId, appUrl, fields = [], ...options }: Props) {
  const hostedUrl = `${appUrl}/f/${formId}`;
  return (
    <section className="card" aria-labelledby="embed-heading">
      <h2 id="embed-heading">Put the form on a website</h2>
      <p>
        Paste this where the form should appear. The script sends each lead with the visitor&apos;s source (UTM values,
        referrer, landing page) and shows the success message or the errors in place; without JavaScript the form still
        posts.
      </p>
      <CopyableCode label="embed code" code={scriptSnippet(formId, appUrl, fields, options)} />
      <details>
        <summary>Or a plain HTML form, without JavaScript</summary>
        <CopyableCode label="HTML form" code={htmlFormExample(formId, appUrl, fields, options.privacyUrl)} />
      </details>
      <p>
        Or link to the hosted form: <a href={hostedUrl}>{hostedUrl}</a> (add <code>?utm_source=…</code> values to the
        link to track them).
      </p>
    </section>
  );
}
