// The CAPTCHA providers a form may ask for, and how each one's widget is put on a page:
// its script, the element it draws into, the form field it writes its token to, and the
// global that resets it. Shared by the server, the hosted page and the embed script
// (app/embed/embed.ts), so this module imports nothing.

export const CAPTCHA_PROVIDERS = ["turnstile", "hcaptcha", "recaptcha"] as const;
export type CaptchaProvider = (typeof CAPTCHA_PROVIDERS)[number];

type Widget = {
  /** The provider's script, which draws every element of `className` it finds. */
  script: string;
  className: string;
  /** The field the widget adds to its form with the token (the provider's own name). */
  field: string;
  /** The window global whose reset() gives a fresh token after a refused post. */
  global: string;
};

export const CAPTCHA_WIDGETS: Record<CaptchaProvider, Widget> = {
  turnstile: {
    script: "https://challenges.cloudflare.com/turnstile/v0/api.js",
    className: "cf-turnstile",
    field: "cf-turnstile-response",
    global: "turnstile",
  },
  hcaptcha: {
    script: "https://js.hcaptcha.com/1/api.js",
    className: "h-captcha",
    field: "h-captcha-response",
    global: "hcaptcha",
  },
  recaptcha: {
    script: "https://www.google.com/recaptcha/api.js",
    className: "g-recaptcha",
    field: "g-recaptcha-response",
    global: "grecaptcha",
  },
};

/** A token is good once: after a refused post the widget must give the visitor a new one. */
export function resetCaptcha(provider: CaptchaProvider): void {
  const api = (window as unknown as Record<string, { reset?: () => void } | undefined>)[
    CAPTCHA_WIDGETS[provider].global
  ];
  try {
    api?.reset?.();
  } catch {
    // No widget drawn (its script blocked): nothing to reset.
  }
}
