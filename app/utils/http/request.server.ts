// Facts about the caller that the HTTP layer knows and a Request does not.
import type { AppLoadContext } from "@remix-run/node";

declare module "@remix-run/node" {
  interface AppLoadContext {
    /** The client's address: the socket's, or behind TRUST_PROXY the rightmost X-Forwarded-For entry that is no trusted proxy. */
    clientIp: string;
    /** This request's Content-Security-Policy nonce for inline scripts. */
    cspNonce: string;
  }
}

export function clientIp(context: AppLoadContext | undefined): string {
  return context?.clientIp || "unknown";
}

// apiRoute (api.server.ts) notes the address of each /api request that presents a token
// here, so that code handed only the request (the API token check in auth.server.ts) can
// count wrong tokens per address. Only those: a WeakMap entry per request (every view
// beacon) cost more than the beacon's JSON parse.
const addressOfRequest = new WeakMap<Request, string>();

export function noteClientIp(request: Request, context: AppLoadContext | undefined): void {
  if (request.headers.has("Authorization")) addressOfRequest.set(request, clientIp(context));
}

/** The client address apiRoute noted for this request with a token ("unknown" outside an /api route). */
export function clientIpOf(request: Request): string {
  return addressOfRequest.get(request) ?? "unknown";
}

/** Whether a path is the JSON API's (answered in its error shape) rather than a page's. */
export function isApiPath(pathname: string): boolean {
  return pathname.startsWith("/api/");
}

export function isApiRequest(request: Request): boolean {
  return isApiPath(new URL(request.url).pathname);
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * A mutating request that names another site in Origin (or, lacking Origin, in
 * Referer) is cross-site. Requests with neither are API clients such as curl. The one
 * same-origin rule: the server's page-post guard (server/guards.ts) and the session
 * checks (assertSameOrigin) both ask this.
 */
export function isCrossSiteMutation(request: Pick<Request, "method" | "headers" | "url">): boolean {
  if (SAFE_METHODS.has(request.method)) return false;
  const originHeader = request.headers.get("Origin");
  // A browser never sends an empty Origin; one that does is not telling where it posts from.
  if (originHeader === "") return true;
  const source = originHeader ?? request.headers.get("Referer");
  if (!source || source === "null") return source === "null";
  let origin: string;
  try {
    origin = new URL(source).origin;
  } catch {
    return true;
  }
  return origin !== new URL(request.url).origin;
}
