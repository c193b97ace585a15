// /embed.js: the script site owners add with one tag to send their own forms' submissions
// here with the visitor's source. Bundled at build time (vite.embed.config.ts) into one
// self-contained script for browsers from 2017 on; served by app/routes/embed[.]js.ts.
// Usage and rules: docs/api/lead-capture.md.
//
//   <script src="https://APP/embed.js" defer></script>
//   <form data-lead-form="FORM_ID"> ...inputs named by field key... </form>
//
// What it does, in order:
// - On the first page of a visit it records the utm_* values of that page's URL, the
//   referrer and the page's address (first touch) in sessionStorage; later pages of the
//   same visit reuse them.
// - A form with data-captcha (turnstile, hcaptcha or recaptcha) and data-captcha-sitekey gets
//   the provider's widget before its submit button, and a fresh token after a refusal.
// - It prefills each form's fields by name from the form's data-prefill attribute and the
//   page's query string (once, when the page is ready).
// - A field marked with its condition (`data-lc-show-if`) shows only while earlier answers
//   call for it (embed-conditions.ts); a form whose fields are grouped in
//   `<fieldset data-lc-step>`s shows one step at a time with Back and Next, skipping a step
//   its conditions hide (embed-steps.ts); with data-capture-partial, Next keeps a partial lead
//   once the answers hold a valid email (embed-partial.ts).
// - It points every `form[data-lead-form]` at the submit endpoint (action + method) and
//   adds hidden formId / utm_* / referrerUrl / landingPageUrl fields and a honeypot, so
//   that even a plain post (fetch failing, the site calling submit()) arrives complete.
// - On submit it posts the form's FormData by fetch with Accept: application/json (a CORS
//   "simple" request: no preflight), then shows the success message
//   (data-success-message, or data-redirect-url to go to a page) or the errors next to the
//   fields. If fetch itself fails it falls back to the plain post.
// - It fires `leadcapture:success` / `leadcapture:error` events on the form.
// - Once per page view it sends each form on the page a view beacon (navigator.sendBeacon,
//   a text/plain body: no preflight, no cookies read) with the visit's first-touch utm_source,
//   utm_campaign and referrer host, the same source its leads are recorded under, so that
//   views and leads of a source can be compared.
import { CAPTCHA_PROVIDERS, CAPTCHA_WIDGETS, resetCaptcha, type CaptchaProvider } from "~/forms/captcha-widgets";
import { hostOf, sendFunnelEvent, watchStart } from "~/forms/funnel-beacon";
import { DEFAULT_SUCCESS_MESSAGE, HONEYPOT_FIELD, UTM_KEYS } from "~/leads/lead-fields";
import { applyConditions } from "./embed-conditions";
import { forgetPartial, watchPartial } from "./embed-partial";
import { prepareSteps, refreshSteps, resetSteps, showStepOf, stepInsteadOfSubmit, STEP_EVENT } from "./embed-steps";

type Touch = { landingPageUrl: string; referrerUrl: string } & Partial<Record<(typeof UTM_KEYS)[number], string>>;
type ErrorPayload = { error?: { message?: string; details?: Array<{ path?: string; message: string }> } } | null;

const STORE = "leadCapture.firstTouch";

declare global {
  interface Window {
    __leadCaptureEmbed?: boolean;
  }
}

function start(): void {
  // Loaded twice (two tags, or a site's bundler): one copy does the work.
  if (window.__leadCaptureEmbed) return;
  window.__leadCaptureEmbed = true;

  const submitUrl = new URL("/api/leads/submit", scriptSource()).toString();
  const partialUrl = new URL("/api/leads/partial", scriptSource()).toString();
  const touch = firstTouch();

  document.addEventListener("submit", (event) => onSubmit(event, submitUrl, touch));
  const onAnswer = (event: Event) => {
    const form = (event.target as HTMLInputElement | null)?.form;
    if (!form?.hasAttribute("data-lead-form")) return;
    applyConditions(form);
    refreshSteps(form);
  };
  document.addEventListener("input", onAnswer);
  document.addEventListener("change", onAnswer);
  const prepareAll = () => {
    const forms = document.querySelectorAll<HTMLFormElement>("form[data-lead-form]");
    forms.forEach((form) => {
      prefill(form);
      applyConditions(form);
      prepareSteps(form);
      drawCaptcha(form);
      prepare(form, submitUrl, touch);
      watchFunnel(form, touch);
      watchPartial(form, partialUrl);
    });
    sendViews(forms, touch);
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", prepareAll);
  else prepareAll();
}

/** Where this script was loaded from: its server is the one to post to. */
function scriptSource(): string {
  const current = document.currentScript as HTMLScriptElement | null;
  if (current?.src) return current.src;
  const scripts = document.querySelectorAll<HTMLScriptElement>('script[src*="/embed.js"]');
  return scripts.length > 0 ? scripts[scripts.length - 1].src : location.href;
}

const isHttpUrl = (value: string) => /^https?:\/\//i.test(value);

/** One view beacon per form id on the page (POST /api/forms/:id/views); answers are not read. */
function sendViews(forms: NodeListOf<HTMLFormElement>, touch: Touch): void {
  if (!navigator.sendBeacon) return;
  let referrerHost = "";
  try {
    referrerHost = touch.referrerUrl ? new URL(touch.referrerUrl).hostname : "";
  } catch {
    // not a URL: no referrer
  }
  const body = JSON.stringify({ utm_source: touch.utm_source, utm_campaign: touch.utm_campaign, referrerHost });
  const sent = new Set<string>();
  forms.forEach((form) => {
    const id = form.getAttribute("data-lead-form");
    if (!id || sent.has(id)) return;
    sent.add(id);
    const url = new URL(`/api/forms/${encodeURIComponent(id)}/views`, scriptSource()).toString();
    try {
      navigator.sendBeacon(url, new Blob([body], { type: "text/plain" }));
    } catch {
      // A blocked beacon (a privacy extension) costs the site nothing.
    }
  });
}

/** The funnel's beacons (decision 059): "start" at the first answer, "step" n at each step n >= 2 reached. */
function watchFunnel(form: HTMLFormElement, touch: Touch): void {
  const id = form.getAttribute("data-lead-form");
  if (!id) return;
  const source = {
    utm_source: touch.utm_source,
    utm_campaign: touch.utm_campaign,
    referrerHost: hostOf(touch.referrerUrl),
  };
  watchStart(form, () => sendFunnelEvent(scriptSource(), id, { type: "start" }, source));
  form.addEventListener(STEP_EVENT, (event) => {
    const step = (event as CustomEvent<number>).detail;
    if (step >= 2) sendFunnelEvent(scriptSource(), id, { type: "step", step }, source);
  });
}

function firstTouch(): Touch {
  try {
    const saved: unknown = JSON.parse(sessionStorage.getItem(STORE) ?? "null");
    if (saved && typeof saved === "object") return saved as Touch;
  } catch {
    // No storage (private mode, blocked): this page is the first touch.
  }
  const params = new URLSearchParams(location.search);
  const touch: Touch = {
    landingPageUrl: location.href.slice(0, 2048),
    referrerUrl: isHttpUrl(document.referrer) ? document.referrer.slice(0, 2048) : "",
  };
  for (const key of UTM_KEYS) {
    const value = params.get(key);
    if (value) touch[key] = value.slice(0, 200);
  }
  try {
    sessionStorage.setItem(STORE, JSON.stringify(touch));
  } catch {
    // Not stored: later pages of the visit count as first touches of their own.
  }
  return touch;
}

const escapeName = (name: string) =>
  typeof CSS !== "undefined" && typeof CSS.escape === "function" ? CSS.escape(name) : name.replace(/["\\]/g, "\\$&");

function setHidden(form: HTMLFormElement, name: string, value: string | null | undefined): void {
  let input = form.querySelector<HTMLInputElement>(`input[data-lead-capture][name="${escapeName(name)}"]`);
  if (!value) {
    input?.remove();
    return;
  }
  if (!input) {
    input = document.createElement("input");
    input.type = "hidden";
    input.name = name;
    input.setAttribute("data-lead-capture", "");
    form.prepend(input);
  }
  // First in the form (the snippet's own too, wherever it was moved): the post then names its
  // form before any file part, as the submit endpoint requires (docs/api/lead-capture.md).
  if (name === "formId" && form.firstElementChild !== input) form.prepend(input);
  input.value = value;
}

/**
 * The form's status region (`aria-live`), placed before it when the page is prepared so that
 * screen readers already watch it when the success message is written into it.
 */
function liveRegion(form: HTMLFormElement): HTMLElement {
  const previous = form.previousElementSibling;
  if (previous instanceof HTMLElement && previous.hasAttribute("data-lead-capture-live")) return previous;
  const region = document.createElement("p");
  region.setAttribute("role", "status");
  region.setAttribute("aria-live", "polite");
  region.setAttribute("data-lead-capture-live", "");
  region.className = "lead-capture-status";
  form.before(region);
  return region;
}

/** Names the embed fills itself (and the honeypot): never prefilled. */
const OWN_NAMES = new Set<string>(["formId", "referrerUrl", "landingPageUrl", HONEYPOT_FIELD, ...UTM_KEYS]);
const CHECKED = ["on", "true", "1", "yes"];
const PREFILL_MAX_LENGTH = 10_000;
const UNFILLED_TYPES = new Set(["file", "password", "submit", "button", "reset", "image"]);

/** One control given the values a prefill names it by: a choice picked, or an empty text filled. */
function fillControl(control: Element, values: string[]): void {
  if (control instanceof HTMLSelectElement) {
    const options = Array.from(control.options).filter((option) => values.includes(option.value));
    if (control.multiple) options.forEach((option) => (option.selected = true));
    else if (options.length > 0) control.value = options[0].value;
  } else if (control instanceof HTMLInputElement) {
    if (UNFILLED_TYPES.has(control.type)) return;
    if (control.type === "checkbox" || control.type === "radio") {
      const on =
        values.includes(control.value) || (control.value === "on" && CHECKED.includes(values[0].toLowerCase()));
      if (on) control.checked = true;
    } else if (!control.value) {
      control.value = values[0].slice(0, PREFILL_MAX_LENGTH);
    }
  } else if (control instanceof HTMLTextAreaElement && !control.value) {
    control.value = values[0].slice(0, PREFILL_MAX_LENGTH);
  }
}

/**
 * Fills the form's controls by name from its `data-prefill` attribute (a query string such as
 * `plan=pro&size=10`) and from the page's own query string (the attribute wins), once when the
 * page is prepared: empty text fields are filled, matching choices picked; a file or password
 * input never. What is sent is checked on submit like anything typed.
 */
function prefill(form: HTMLFormElement): void {
  const lists = new Map<string, string[]>();
  for (const params of [
    new URLSearchParams(location.search),
    new URLSearchParams(form.getAttribute("data-prefill") ?? ""),
  ]) {
    params.forEach((_, key) => lists.set(key, params.getAll(key)));
  }
  lists.forEach((values, name) => {
    if (OWN_NAMES.has(name)) return;
    form.querySelectorAll(`[name="${escapeName(name)}"]`).forEach((control) => fillControl(control, values));
  });
}

function captchaOf(form: HTMLFormElement): CaptchaProvider | null {
  const provider = form.getAttribute("data-captcha") as CaptchaProvider | null;
  return provider && CAPTCHA_PROVIDERS.includes(provider) ? provider : null;
}

/** The provider's widget, before the form's submit button, and its script (once per page). */
function drawCaptcha(form: HTMLFormElement): void {
  const provider = captchaOf(form);
  const siteKey = form.getAttribute("data-captcha-sitekey");
  if (!provider || !siteKey) return;
  const widget = CAPTCHA_WIDGETS[provider];
  if (!form.querySelector(`.${widget.className}`)) {
    const box = document.createElement("div");
    box.className = `lc-captcha ${widget.className}`;
    box.setAttribute("data-sitekey", siteKey);
    const button = form.querySelector('button[type="submit"], input[type="submit"], button:not([type])');
    if (button) button.before(box);
    else form.appendChild(box);
  }
  if (!document.querySelector(`script[src="${widget.script}"]`)) {
    const script = document.createElement("script");
    script.src = widget.script;
    script.async = true;
    document.head.appendChild(script);
  }
}

function prepare(form: HTMLFormElement, submitUrl: string, touch: Touch): void {
  liveRegion(form);
  form.setAttribute("action", submitUrl);
  form.setAttribute("method", "post");
  setHidden(form, "formId", form.getAttribute("data-lead-form"));
  for (const key of UTM_KEYS) setHidden(form, key, touch[key]);
  setHidden(form, "referrerUrl", touch.referrerUrl);
  setHidden(form, "landingPageUrl", touch.landingPageUrl);
  if (!form.querySelector(`[name="${HONEYPOT_FIELD}"]`)) {
    const trap = document.createElement("div");
    trap.setAttribute("aria-hidden", "true");
    trap.style.cssText = "position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden";
    trap.innerHTML = `<label>Leave this field empty <input type="text" name="${HONEYPOT_FIELD}" tabindex="-1" autocomplete="off"></label>`;
    form.appendChild(trap);
  }
}

function clearMessages(form: HTMLFormElement): void {
  form.querySelectorAll("[data-lead-capture-message]").forEach((old) => old.remove());
  form.querySelectorAll("[aria-invalid][data-lead-capture-invalid]").forEach((field) => {
    field.removeAttribute("aria-invalid");
    field.removeAttribute("data-lead-capture-invalid");
  });
}

/** An error: the summary is an alert (announced at once), each field's message a note. */
function message(text: string, role: "alert" | "note"): HTMLParagraphElement {
  const p = document.createElement("p");
  p.className = "lead-capture-error";
  p.setAttribute("role", role);
  p.setAttribute("data-lead-capture-message", "");
  // Red without the optional stylesheet too; /embed.css themes it with --lc-error.
  p.style.color = "var(--lc-error, #b42318)";
  p.textContent = text;
  return p;
}

function setBusy(form: HTMLFormElement, busy: boolean): void {
  form.querySelectorAll<HTMLButtonElement | HTMLInputElement>('button, input[type="submit"]').forEach((button) => {
    button.disabled = busy;
  });
  if (busy) form.setAttribute("data-lead-busy", "");
  else form.removeAttribute("data-lead-busy");
}

function emit(form: HTMLFormElement, name: string, detail: unknown): void {
  form.dispatchEvent(new CustomEvent(name, { bubbles: true, detail }));
}

function showErrors(form: HTMLFormElement, payload: ErrorPayload): void {
  const error = payload?.error ?? {};
  const general: string[] = [];
  for (const detail of error.details ?? []) {
    const path = detail.path ?? "";
    const key = path.startsWith("data.") ? path.slice(5) : null;
    const fields = key ? form.querySelectorAll(`[name="${escapeName(key)}"]`) : [];
    if (fields.length === 0) {
      general.push(detail.message);
      continue;
    }
    fields[0].setAttribute("aria-invalid", "true");
    fields[0].setAttribute("data-lead-capture-invalid", "");
    const last = fields[fields.length - 1];
    const label = last.closest("label");
    const anchor = label && form.contains(label) ? label : last;
    anchor.after(message(detail.message, "note"));
  }
  const summary = [error.message ?? "The form could not be sent. Please try again.", ...general].join(" ");
  form.prepend(message(summary, "alert"));
  showStepOf(form, form.querySelector("[data-lead-capture-invalid]"));
  const provider = captchaOf(form);
  if (provider) resetCaptcha(provider);
  emit(form, "leadcapture:error", payload);
}

function showResult(form: HTMLFormElement, status: number, payload: unknown): void {
  setBusy(form, false);
  if (status !== 200 && status !== 201) return showErrors(form, payload as ErrorPayload);
  emit(form, "leadcapture:success", payload);
  const redirect = form.getAttribute("data-redirect-url");
  if (redirect) return location.assign(redirect);
  form.reset();
  applyConditions(form);
  resetSteps(form);
  forgetPartial(form);
  const region = liveRegion(form);
  region.className = "lead-capture-status lead-capture-success";
  const answer = (payload ?? {}) as { awaitingConfirmation?: boolean; confirmationEmail?: boolean };
  // As the hosted thank-you page says it (double opt-in, decision 067; the autoresponder, 066).
  const note = answer.awaitingConfirmation
    ? " A confirmation email is on its way to you: open its link to finish."
    : answer.confirmationEmail
      ? " A confirmation email is on its way to you."
      : "";
  region.textContent = (form.getAttribute("data-success-message") || DEFAULT_SUCCESS_MESSAGE) + note;
  form.hidden = true;
}

function onSubmit(event: SubmitEvent, submitUrl: string, touch: Touch): void {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-lead-form")) return;
  if (event.defaultPrevented || !window.fetch || !window.FormData) return;
  // Enter in a field of a step before the last goes to the next step.
  if (stepInsteadOfSubmit(form)) return event.preventDefault();
  prepare(form, submitUrl, touch);
  event.preventDefault();
  if (form.hasAttribute("data-lead-busy")) return;
  clearMessages(form);
  const body = new FormData(form);
  setBusy(form, true);
  void fetch(submitUrl, {
    method: "POST",
    body,
    headers: { Accept: "application/json" },
    credentials: "omit",
    mode: "cors",
  }).then(
    async (response) => showResult(form, response.status, await response.json().catch(() => null)),
    () => {
      // No answer we can read (offline, or this site is not allowed): the plain post still
      // works and shows the visitor the outcome.
      setBusy(form, false);
      HTMLFormElement.prototype.submit.call(form);
    },
  );
}

start();
