// The CAPTCHA check of a form that asks for one (settings.captcha): the visitor's token,
// sent in the provider's own form field or as `captchaToken` in JSON, is put to the
// provider's siteverify endpoint (the protocol Turnstile, hCaptcha and reCAPTCHA share:
// a form post of secret, response and remoteip, answered `{"success": true|false}`).
//
// A token the provider refuses, or none, is refused (422 captcha_failed). A provider that
// cannot answer (down, slow, or refusing our secret) does not cost the lead: it is stored
// marked as spam, for staff to review, and the failure is logged and counted (decision 056).
import type { CaptchaProvider } from "~/forms/captcha-widgets";
import type { CaptchaSettings } from "~/forms/schema/form-schema";
import { DomainError } from "~/utils/domain-error";
import { env } from "~/utils/env.server";
import { log } from "~/utils/log.server";
import { counter } from "~/utils/metrics.server";

/** Longest token taken (the providers' are about 2 KB). */
const MAX_TOKEN_LENGTH = 8192;
const VERIFY_TIMEOUT_MS = 5000;
/** Longest siteverify answer read. */
const MAX_ANSWER_BYTES = 64 * 1024;
/** Error codes that mean our side is misconfigured (the form's secret), not the visitor. */
const OUR_FAULT = new Set([
  "missing-input-secret",
  "invalid-input-secret",
  "sitekey-secret-mismatch",
  "internal-error",
]);

const VERIFY_URL: Record<CaptchaProvider, string> = {
  turnstile: env.CAPTCHA_VERIFY_URL_TURNSTILE,
  hcaptcha: env.CAPTCHA_VERIFY_URL_HCAPTCHA,
  recaptcha: env.CAPTCHA_VERIFY_URL_RECAPTCHA,
};

const checks = counter({
  name: "leadcapture_captcha_checks_total",
  help: "CAPTCHA checks of submissions by outcome: passed, failed (refused, 422), unavailable (the provider could not answer: the lead is kept, marked as spam).",
  labelNames: ["provider", "outcome"],
});

export type CaptchaOutcome = "passed" | "unavailable";

function refused(): DomainError {
  return new DomainError("captcha_failed", "The CAPTCHA check failed. Complete it, then send the form again.");
}

/**
 * Checks the token with the provider: "passed", or "unavailable" when the provider could not
 * say; throws captcha_failed when there is no token or the provider refuses it.
 */
export async function checkCaptcha(
  captcha: CaptchaSettings,
  token: string | undefined,
  ip: string,
): Promise<CaptchaOutcome> {
  const provider = captcha.provider;
  if (!token || token.length > MAX_TOKEN_LENGTH) {
    checks.inc({ provider, outcome: "failed" });
    throw refused();
  }
  const answer = await siteverify(VERIFY_URL[provider], { secret: captcha.secretKey, response: token, remoteip: ip });
  if (answer === null) {
    checks.inc({ provider, outcome: "unavailable" });
    return "unavailable";
  }
  if (answer.success === true) {
    checks.inc({ provider, outcome: "passed" });
    return "passed";
  }
  const codes = Array.isArray(answer["error-codes"]) ? answer["error-codes"].map(String) : [];
  if (codes.some((code) => OUR_FAULT.has(code))) {
    log.error("the CAPTCHA provider refused the form's secret key: leads are kept as spam until it is fixed", {
      provider,
      codes: codes.join(","),
    });
    checks.inc({ provider, outcome: "unavailable" });
    return "unavailable";
  }
  checks.inc({ provider, outcome: "failed" });
  throw refused();
}

type Answer = { success?: unknown; "error-codes"?: unknown };

/** The provider's answer, or null when it gave none we can read (down, slow, not JSON). */
async function siteverify(url: string, fields: Record<string, string>): Promise<Answer | null> {
  try {
    const response = await fetch(url, {
      method: "POST",
      body: new URLSearchParams(fields),
      signal: AbortSignal.timeout(VERIFY_TIMEOUT_MS),
      redirect: "error",
    });
    const length = Number(response.headers.get("Content-Length") ?? 0);
    if (!response.ok || length > MAX_ANSWER_BYTES) {
      await response.body?.cancel();
      log.warn("the CAPTCHA provider did not answer", { url, status: response.status });
      return null;
    }
    const text = await response.text();
    const answer: unknown = text.length <= MAX_ANSWER_BYTES ? JSON.parse(text) : null;
    return typeof answer === "object" && answer !== null ? (answer as Answer) : null;
  } catch (error) {
    log.warn("the CAPTCHA provider could not be reached", { url, error: String(error) });
    return null;
  }
}
