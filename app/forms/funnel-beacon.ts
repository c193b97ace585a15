// The drop-off funnel's beacon from a visitor's browser (POST /api/forms/:id/events, decision
// 059), shared by the hosted page and /embed.js: a text/plain body sent with
// navigator.sendBeacon (no preflight, no answer read), under the visit's source.

export type FunnelEvent = { type: "start" } | { type: "step"; step: number };
export type BeaconSource = { utm_source?: string; utm_campaign?: string; referrerHost?: string };

/** The host of an http(s) address, or "" (what the server also checks). */
export function hostOf(url: string | undefined): string {
  try {
    return url && /^https?:\/\//i.test(url) ? new URL(url).hostname : "";
  } catch {
    return "";
  }
}

/** Sends one funnel event of form `formId` to the server at `base`; a blocked beacon costs nothing. */
export function sendFunnelEvent(base: string, formId: string, event: FunnelEvent, source: BeaconSource): void {
  if (typeof navigator === "undefined" || !navigator.sendBeacon) return;
  const url = new URL(`/api/forms/${encodeURIComponent(formId)}/events`, base).toString();
  try {
    navigator.sendBeacon(url, new Blob([JSON.stringify({ ...event, ...source })], { type: "text/plain" }));
  } catch {
    // A privacy extension's block: the form works the same.
  }
}

/**
 * Watches a form for the visitor's first answer (an input or a change), sending "start"
 * once; returns how to stop watching.
 */
export function watchStart(form: HTMLFormElement, start: () => void): () => void {
  const stop = () => {
    form.removeEventListener("input", once);
    form.removeEventListener("change", once);
  };
  const once = () => {
    stop();
    start();
  };
  form.addEventListener("input", once);
  form.addEventListener("change", once);
  return stop;
}
