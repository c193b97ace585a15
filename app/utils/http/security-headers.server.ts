// Security headers of every HTML page (the server adds nosniff and the referrer policy to
// every response: server/node-http.ts). The CSP allows only this site's scripts and the
// inline scripts Remix renders with this request's nonce (and on hosted forms, the CAPTCHA
// providers' widgets).
//
// The dashboard may not be framed and its forms post only here. The hosted form pages
// (/f/...) are made to be embedded in customers' sites and, after a post, redirect to
// the customer's own thank-you address, so they allow any frame ancestor and form target.
/**
 * Where the CAPTCHA widgets a hosted form may draw (app/forms/captcha-widgets.ts) load their
 * scripts, frames and styles from, and send their requests to.
 */
export const CAPTCHA_ORIGINS = [
  "https://challenges.cloudflare.com",
  "https://js.hcaptcha.com",
  "https://*.hcaptcha.com",
  "https://www.google.com",
  "https://www.gstatic.com",
];

export function documentSecurityHeaders(pathname: string, nonce: string): Record<string, string> {
  const hosted = pathname === "/f" || pathname.startsWith("/f/");
  // A hosted form may draw a CAPTCHA widget: its provider's script, frames and requests.
  const widgets = hosted ? ` ${CAPTCHA_ORIGINS.join(" ")}` : "";
  const directives = [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'${widgets}`,
    // React's style={...} attributes (charts, bars) need inline styles; no inline scripts do.
    `style-src 'self' 'unsafe-inline'${widgets}`,
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self'${widgets}`,
    ...(hosted ? [`frame-src 'self'${widgets}`] : []),
    "object-src 'none'",
    "base-uri 'self'",
    hosted ? "frame-ancestors *" : "frame-ancestors 'none'",
    ...(hosted ? [] : ["form-action 'self'"]),
  ];
  const headers: Record<string, string> = {
    "Content-Security-Policy": directives.join("; "),
    "Cross-Origin-Opener-Policy": "same-origin",
  };
  if (!hosted) headers["X-Frame-Options"] = "DENY";
  return headers;
}
