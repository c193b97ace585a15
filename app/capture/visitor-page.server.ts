// The public endpoints a visitor's browser posts to without JavaScript (the lead submit
// endpoint, support request creation) answer that browser with a short HTML page rather
// than the JSON error a script gets: nobody should land on raw JSON after filling a form.
import { escapeHtml } from "../utils/html";

/**
 * The quality an Accept header gives `type/subtype` through its most specific range that
 * names the type (`type/subtype`, then `type/*`); `*\/*` is not counted, so a browser's
 * catch-all does not read as asking for JSON. 0 when no range names it.
 */
function namedQuality(accept: string, type: string): number {
  const major = type.split("/")[0];
  let best = { specificity: 0, q: 0 };
  for (const part of accept.split(",")) {
    const [range, ...params] = part.trim().split(";");
    const specificity = range.trim() === type ? 2 : range.trim() === `${major}/*` ? 1 : 0;
    if (specificity <= best.specificity) continue;
    const qParam = params.map((param) => param.trim()).find((param) => param.startsWith("q="));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    best = { specificity, q: Number.isFinite(q) ? q : 0 };
  }
  return best.q;
}

/**
 * Whether an Accept header prefers an HTML page to JSON: text/html (or XHTML) named with a
 * higher quality than application/json. A browser's navigation (`text/html,…,*\/*;q=0.8`)
 * does; `*\/*`, an empty header, `application/json` and `text/html, application/json` do not.
 */
export function prefersHtml(accept: string | null): boolean {
  if (!accept) return false;
  const lower = accept.toLowerCase();
  const html = Math.max(namedQuality(lower, "text/html"), namedQuality(lower, "application/xhtml+xml"));
  return html > 0 && html > namedQuality(lower, "application/json");
}

/** A URL-encoded or multipart body: what an HTML form sends. */
export function isFormPost(request: Request): boolean {
  const type = request.headers.get("Content-Type") ?? "";
  return /^\s*(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(type);
}

/**
 * A post from a person's browser rather than a script: it prefers HTML, or it is a form post
 * that the browser says is a page navigation (`Sec-Fetch-Mode: navigate`). A script asking
 * for JSON, or sending `*\/*` or nothing, is answered in JSON as before.
 */
export function isBrowserPost(request: Request): boolean {
  if (prefersHtml(request.headers.get("Accept"))) return true;
  return isFormPost(request) && request.headers.get("Sec-Fetch-Mode") === "navigate";
}

/** The Referer when it is a plain http(s) URL we can safely link back to; null otherwise. */
export function safeBackLink(referer: string | null): string | null {
  if (!referer || referer.length > 2048) return null;
  try {
    const url = new URL(referer);
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    if (url.username || url.password) return null;
    return url.href;
  } catch {
    return null;
  }
}

/**
 * A short, self-contained HTML page (no scripts, no assets; styled like the hosted form's
 * card) answering a visitor's post: a heading, the message, and a link back to the page they came from when the Referer is
 * a safe http(s) address.
 */
export function visitorPage(
  status: number,
  page: { title: string; message: string; referer?: string | null; headers?: Record<string, string> },
): Response {
  const back = safeBackLink(page.referer ?? null);
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(page.title)}</title>
<style>
body{margin:0;background:#f5f6f8;color:#1d2330;font-family:system-ui,sans-serif;line-height:1.5}
main{max-width:32rem;margin:10vh auto;padding:1.5rem;background:#fff;border:1px solid #e3e6ea;border-radius:10px;box-shadow:0 1px 2px rgb(0 0 0 / 5%)}
h1{font-size:1.35rem;margin:0 0 .75rem}
[role=alert]{color:#b42318;font-weight:600}
.muted{color:#5b6472;font-size:.9rem}
a{color:#2356d6}
@media (max-width:34rem){main{margin:1rem 12px}}
</style>
</head><body><main>
<h1>${escapeHtml(page.title)}</h1>
<p role="${status >= 400 ? "alert" : "status"}">${escapeHtml(page.message)}</p>
${status >= 400 ? `<p class="muted">(Error ${status})</p>\n` : ""}${
    back
      ? `<p><a href="${escapeHtml(back)}">Go back to the page you came from</a></p>`
      : `<p>Use your browser's Back button to return to the form.</p>`
  }
</main></body></html>`;
  return new Response(html, {
    status,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-store",
      "Referrer-Policy": "no-referrer",
      ...page.headers,
    },
  });
}
