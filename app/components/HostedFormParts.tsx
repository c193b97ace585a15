// The hosted form page's client parts (app/routes/f.$formId.tsx): its post by fetch, the
// conditional fields shown as the visitor answers, the CAPTCHA widget and the funnel's beacons.
import { useCallback, useEffect, useRef, useState, type FormEvent, type RefObject } from "react";
import { CAPTCHA_WIDGETS, resetCaptcha, type CaptchaProvider } from "~/forms/captcha-widgets";
import { hostOf, sendFunnelEvent, watchStart, type BeaconSource } from "~/forms/funnel-beacon";
import { shownKeys } from "~/forms/schema/field-conditions";
import { isTickBox, type FormField } from "~/forms/schema/form-schema";

type Problem = { path: string; message: string };

/**
 * The hosted form's post by fetch: errors shown by their fields without losing what was
 * typed, the thank-you page on success, the plain post when fetch itself fails; the CAPTCHA
 * widget reset after a refusal (its token is spent).
 */
export function useFetchSubmit(
  serverErrors: Record<string, string>,
  doneUrl: string,
  captcha: { provider: CaptchaProvider } | null,
) {
  const [errors, setErrors] = useState<Record<string, string>>(serverErrors);
  const [busy, setBusy] = useState(false);

  async function submitWithFetch(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const element = event.currentTarget;
    setBusy(true);
    let response: Response;
    try {
      response = await fetch(element.action, {
        method: "POST",
        body: new FormData(element),
        headers: { Accept: "application/json" },
      });
    } catch {
      // The network failed under fetch: the plain post may still get through.
      element.submit();
      return;
    }
    if (response.ok) {
      window.location.assign(doneUrl);
      return;
    }
    const body = (await response.json().catch(() => null)) as {
      error?: { message?: string; details?: Problem[] };
    } | null;
    const next: Record<string, string> = {};
    for (const detail of body?.error?.details ?? []) {
      const key = detail.path.startsWith("data.") ? detail.path.slice(5) : "_form";
      next[key] ??= detail.message;
    }
    if (Object.keys(next).length === 0) next._form = body?.error?.message ?? "Something went wrong. Please try again.";
    setErrors(next);
    setBusy(false);
    if (captcha) resetCaptcha(captcha.provider);
    const firstKey = Object.keys(next).find((key) => key !== "_form");
    if (firstKey) element.querySelector<HTMLElement>(`[name="${CSS.escape(firstKey)}"]`)?.focus();
  }

  return { errors, busy, submitWithFetch };
}

/** The form's answers so far, as the conditions read them (a checkbox ticked or not, a list of choices). */
export function currentAnswers(element: HTMLFormElement, fields: FormField[]): Record<string, unknown> {
  const data = new FormData(element);
  const answers: Record<string, unknown> = {};
  for (const field of fields) {
    if (isTickBox(field.type)) answers[field.key] = data.has(field.key);
    else if (field.type === "multiselect") answers[field.key] = data.getAll(field.key);
    else if (data.has(field.key)) answers[field.key] = data.get(field.key);
  }
  return answers;
}

/**
 * Which conditional fields show, from the answers as the visitor gives them. Until the page is
 * hydrated (and without JavaScript) every field shows, and the server drops what it hides.
 */
export function useShownFields(fields: FormField[]) {
  const formRef = useRef<HTMLFormElement>(null);
  const [shown, setShown] = useState<ReadonlySet<string> | undefined>(undefined);
  const conditional = fields.some((field) => field.showIf);
  const onAnswer = useCallback(() => {
    // A hidden field's controls are disabled, so its answer is not read: as the server sees it.
    if (conditional && formRef.current) setShown(shownKeys(fields, currentAnswers(formRef.current, fields)));
  }, [conditional, fields]);
  useEffect(onAnswer, [onAnswer]);
  return { shown, formRef, onAnswer };
}

/**
 * The provider's widget, which adds its token to the form (it needs JavaScript, as every
 * CAPTCHA does). Its script is loaded once the page is hydrated: drawn earlier, the widget's
 * own elements would not match what React expects there.
 */
export function CaptchaWidget({ provider, siteKey }: { provider: CaptchaProvider; siteKey: string }) {
  const widget = CAPTCHA_WIDGETS[provider];
  useEffect(() => {
    if (document.querySelector(`script[src="${widget.script}"]`)) return;
    const script = document.createElement("script");
    script.src = widget.script;
    script.async = true;
    document.head.appendChild(script);
  }, [widget.script]);
  return (
    <>
      <div className={`lc-captcha ${widget.className}`} data-sitekey={siteKey} />
      <noscript>
        <p className="error-panel">
          This form checks that you are a person, which needs JavaScript: turn it on to send it.
        </p>
      </noscript>
    </>
  );
}

/** The visit's source as the page's hidden inputs carry it. */
function sourceOf(form: HTMLFormElement): BeaconSource {
  const value = (name: string) => (form.elements.namedItem(name) as HTMLInputElement | null)?.value ?? "";
  return {
    utm_source: value("utm_source"),
    utm_campaign: value("utm_campaign"),
    referrerHost: hostOf(value("referrerUrl")),
  };
}

/**
 * The drop-off funnel with JavaScript (decision 059): "start" at the visitor's first answer,
 * and "step" n each time they reach step n >= 2 (the server counts each once per visitor).
 */
export function useFunnelBeacons(formRef: RefObject<HTMLFormElement | null>, formId: string, step: number) {
  useEffect(() => {
    const form = formRef.current;
    if (!form) return;
    return watchStart(form, () => sendFunnelEvent(location.href, formId, { type: "start" }, sourceOf(form)));
  }, [formRef, formId]);
  useEffect(() => {
    const form = formRef.current;
    if (form && step >= 2) sendFunnelEvent(location.href, formId, { type: "step", step }, sourceOf(form));
  }, [formRef, formId, step]);
}

/** The form's privacy notice (settings.privacyUrl, decision 065), beside its Send button. */
export function PrivacyNotice({ url }: { url: string }) {
  return (
    <p className="lc-privacy muted">
      <a href={url} target="_blank" rel="noopener noreferrer">
        Privacy notice
      </a>
    </p>
  );
}
