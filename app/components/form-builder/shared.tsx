// What the form builder's parts share: the action's answer, the draft being edited, and
// the helpers that read refusals back into field errors.
import { useRouteLoaderData } from "@remix-run/react";
import { useEffect, useState } from "react";
import { RouteError } from "~/components/RouteError";
import type { formJson } from "~/forms/form.server";
import type { FormField } from "~/forms/schema/form-schema";
import type { SubmissionResult } from "@conform-to/react";

/** What the builder's frame (/forms/:id) loads for every section (its loader returns it: `satisfies`). */
export type BuilderData = {
  form: ReturnType<typeof formJson>;
  appUrl: string;
  staffEmails: string[];
  canDelete: boolean;
};

/** The form, as the builder's frame (/forms/:id) loaded it for every section. */
export function useBuilderData() {
  const data = useRouteLoaderData<BuilderData>("routes/_dashboard.forms.$id");
  if (!data) throw new Error("A form builder section renders inside /forms/:id.");
  return { ...data, fields: data.form.fields as FormField[] };
}

/** The error page of the builder's frame and of each section (re-exported as their ErrorBoundary). */
export function BuilderError() {
  return <RouteError notFound="There is no form with this id." />;
}

export type Detail = { path: string; message: string };
export type ActionResult = {
  ok: boolean;
  intent: string;
  fieldKey: string;
  message?: string;
  details?: Detail[];
  /** What was posted, to fill the form again after a refusal without JavaScript. */
  values?: Record<string, string>;
  /** Conform's reply, for the panels validated with Conform (details, settings). */
  reply?: SubmissionResult<string[]>;
};

export function useHydrated() {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated;
}

/** `{label: "..."}` from details like `field.label` or `settings.redirectUrl`. */
export function errorsByName(details: Detail[] | undefined, prefix: string): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const detail of details ?? []) {
    if (!detail.path.startsWith(`${prefix}.`)) continue;
    const [name, index] = detail.path.slice(prefix.length + 1).split(".");
    const message =
      index !== undefined && /^\d+$/.test(index) ? `Line ${Number(index) + 1}: ${detail.message}` : detail.message;
    errors[name] = errors[name] ? `${errors[name]} ${message}` : message;
  }
  return errors;
}

/**
 * A field editor's refusal as Conform's errors: each by the editor's input it names
 * (`field.label` is `label`), or, naming none (a missing field, too many fields), the
 * whole refusal as the form's error.
 */
export function editorErrors(refusal: { message: string; details?: Detail[] }): Record<string, string[]> {
  const byName = errorsByName(refusal.details, "field");
  if (Object.keys(byName).length > 0) {
    return Object.fromEntries(Object.entries(byName).map(([name, message]) => [name, [message]]));
  }
  return { "": [[refusal.message, ...(refusal.details ?? []).map((detail) => detail.message)].join(" ")] };
}

export function resultFor(
  actionData: ActionResult | undefined,
  intent: string | string[],
  fieldKey = "",
): ActionResult | undefined {
  const intents = Array.isArray(intent) ? intent : [intent];
  if (!actionData || !intents.includes(actionData.intent) || actionData.fieldKey !== fieldKey) return undefined;
  return actionData;
}

export function FieldError({ id, message }: { id: string; message?: string }) {
  return message ? (
    <p id={id} className="field-error">
      {message}
    </p>
  ) : null;
}

export type Draft = { target: string | null; field: FormField } | null;

/**
 * The answer to a post made without JavaScript, unless a form on the page shows it in
 * place (a field's refusal needs its field on the page).
 */
export function BuilderNotice({ actionData, fields }: { actionData: ActionResult | undefined; fields: FormField[] }) {
  if (actionData?.ok) {
    return (
      <p className="notice" role="status">
        {actionData.message ?? "Saved."}
      </p>
    );
  }
  if (actionData && !shownInPlace(actionData, fields)) {
    return (
      <p className="error" role="alert">
        {actionData.message}
      </p>
    );
  }
  return null;
}

export const IN_PLACE_INTENTS = [
  "add-field",
  "update-details",
  "update-settings",
  "update-notifications",
  "update-autoresponder",
  "delete",
];

/** Whether a refusal has a form on the page to show it (a field edit needs its field). */
export function shownInPlace(result: ActionResult, fields: FormField[]): boolean {
  if (IN_PLACE_INTENTS.includes(result.intent)) return true;
  if (["update-field", "move-field", "remove-field"].includes(result.intent)) {
    return fields.some((field) => field.key === result.fieldKey);
  }
  return false;
}
