// Requests refused before routing: an unreadable path or Host, a path no route can name
// (a control character), and page posts that are cross-site or not well-formed form data
// (Remix would answer those with a bare 500).
import { isCrossSiteMutation } from "../app/utils/http/request.server";
import { publicHost, requestUrl, type Trust } from "./client-address";
import { htmlError, jsonError, readBody, refuse, requestHeaders } from "./node-http";
import type { IncomingMessage, ServerResponse } from "node:http";

export const MUTATIONS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
export const KNOWN_METHODS = new Set(["GET", "HEAD", "OPTIONS", ...MUTATIONS]);
export const BODY_CAP = 1024 * 1024;
// C0 controls and DEL, as decodeURI gives them back (%00, %0A…).
const CONTROL = /[\u0000-\u001f\u007f]/;
const FORM_TYPES = new Set(["application/x-www-form-urlencoded", "multipart/form-data"]);

/** Answers a request whose method, path or Host no route of ours can take; true when it did. */
export function refusedBeforeRouting(req: IncomingMessage, res: ServerResponse, trust: Trust | null): boolean {
  const pathname = req.url?.split("?")[0] ?? "/";
  if (!KNOWN_METHODS.has(req.method ?? "")) {
    // Remix would answer 405 in a shape of its own and log a stack for it.
    void refuse(res, pathname, 501, "not_implemented", `${req.method} is not a method this service implements.`);
    return true;
  }
  const target = malformedTarget(req, trust);
  if (target) {
    void refuseByAccept(req, res, 400, "bad_request", target);
    return true;
  }
  let decoded: string;
  try {
    decoded = decodeURI(pathname);
  } catch {
    // A malformed percent-encoding names no page of ours (the router would log a warning).
    const message = "The request path is not valid percent-encoding.";
    void refuse(res, pathname, 400, "bad_request", message);
    return true;
  }
  if (CONTROL.test(decoded)) {
    // No id, reference or token of ours holds a control character, so such a path names
    // nothing: 404 here, for every route at once, before a NUL reaches PostgreSQL (which
    // refuses it with an error of its own) through a route's parameter.
    void refuse(res, pathname, 404, "not_found", "Nothing here has this address: it holds a control character.");
    return true;
  }
  if (publicHost(req, trust) === null) {
    void refuse(res, pathname, 400, "bad_request", "The Host header is malformed.");
    return true;
  }
  return false;
}

const PLAIN_TARGET = /^\/(?:[A-Za-z0-9_~!$&'()*+,;=:@-][A-Za-z0-9_~!$&'()*+,;=:@/-]*)?(?:\?[^#\s\\]*)?$/;

/**
 * Why the request target names no resource of ours, or null when it is a plain path. Only
 * a path that begins with one slash is taken: `//`, `///` and `//a:b` read as a URL with
 * an empty or broken host (a 500, `Invalid URL`, before this check), and the absolute and
 * asterisk forms are nothing a browser or API client of ours sends (decision 035).
 */
function malformedTarget(req: IncomingMessage, trust: Trust | null): string | null {
  const target = req.url ?? "/";
  if (!target.startsWith("/")) return "The request target must be a path starting with /.";
  // Most targets: no dot, backslash, percent sign or second leading slash in the path, so
  // nothing the URL parser could refuse or turn into `//` (one parse less per request).
  if (PLAIN_TARGET.test(target)) return null;
  let url: URL;
  try {
    url = requestUrl(req, trust);
  } catch {
    return "The request path is malformed.";
  }
  // Dot segments and backslashes can make one too: `/..//x`, `/\x`.
  return url.pathname.startsWith("//") ? "The request path must not start with //." : null;
}

/**
 * An error for a request whose path cannot say whether it is the API's or a page's: a page
 * for a browser that asks for HTML, the JSON shape for anyone else.
 */
function refuseByAccept(req: IncomingMessage, res: ServerResponse, status: number, code: string, message: string) {
  const wantsPage = (req.headers.accept ?? "").includes("text/html");
  return wantsPage ? htmlError(res, status, message) : jsonError(res, status, code, message);
}

/**
 * Page actions (the dashboard's and the login form's) take only same-site, well-formed
 * form posts: 403, 415, 413 or 400 otherwise, as a page. The same-origin rule is the
 * app's own (isCrossSiteMutation). Returns the body it read, or null when it answered.
 */
export async function guardPageMutation(
  req: IncomingMessage,
  res: ServerResponse,
  trust: Trust | null,
): Promise<Buffer | null> {
  const request = { method: req.method ?? "GET", headers: requestHeaders(req), url: requestUrl(req, trust).href };
  if (isCrossSiteMutation(request) || remixRefusesOrigin(request.headers)) {
    await htmlError(res, 403, "Cross-site form posts are not allowed.");
    return null;
  }
  const contentType = req.headers["content-type"] ?? "";
  if (!FORM_TYPES.has(contentType.split(";")[0].trim().toLowerCase())) {
    await htmlError(res, 415, "Send the form as application/x-www-form-urlencoded or multipart/form-data.");
    return null;
  }
  const body = await readBody(req, BODY_CAP);
  if (body === null) {
    await htmlError(res, 413, "The form is too large.");
    return null;
  }
  try {
    await new Response(new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.byteLength), {
      headers: { "content-type": contentType },
    }).formData();
  } catch {
    await htmlError(res, 400, "The form data could not be read.");
    return null;
  }
  return body;
}

/**
 * Remix checks a page post's Origin again on its own (`throwIfPotentialCSRFAttack` in
 * @remix-run/server-runtime), comparing its host with X-Forwarded-Host (from anyone) or
 * Host as written, and answers a mismatch, or an Origin it cannot parse, with a bare 500
 * and a logged stack. Posts it would refuse that our rule lets through (a default port
 * written out in Host, an X-Forwarded-Host from a client we do not trust) get our 403.
 */
export function remixRefusesOrigin(headers: Headers): boolean {
  const origin = headers.get("origin");
  if (origin === null || origin === "null") return false;
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    return true;
  }
  if (!originHost) return false;
  const forwarded = headers.get("x-forwarded-host")?.split(",")[0]?.trim();
  const host = forwarded || headers.get("host");
  return !host || originHost !== host;
}
