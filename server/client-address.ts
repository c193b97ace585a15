// Who is asking, and which address they asked for: the client's IP, the public host and
// the request URL, with X-Forwarded-* believed only from proxies TRUST_PROXY names.
import proxyaddr from "proxy-addr";
import type { IncomingMessage } from "node:http";

/** Whether the hop-th address from the socket is one of our proxies. */
export type Trust = (address: string, hop: number) => boolean;

/**
 * Which hops in front of us are ours (TRUST_PROXY): unset or "false", none; "true", one
 * proxy; a whole number, that many; otherwise a comma list of addresses or CIDR ranges
 * (proxy-addr's names "loopback", "linklocal" and "uniquelocal" work too). Returns the
 * trust function, or null when no proxy is trusted.
 */
export function compileTrustProxy(value: string | undefined): Trust | null {
  const setting = (value ?? "").trim();
  if (setting === "" || setting === "false" || setting === "0") return null;
  if (setting === "true") return (_address, hop) => hop < 1;
  if (/^\d+$/.test(setting)) {
    const hops = Number(setting);
    return (_address, hop) => hop < hops;
  }
  return proxyaddr.compile(
    setting
      .split(",")
      .map((entry) => entry.trim())
      .filter(Boolean),
  );
}

/**
 * The client's address: the socket's, or behind trusted proxies the rightmost
 * X-Forwarded-For entry that is not one of them. (The leftmost entry is whatever the
 * client chose to send, so taking it would let anyone rotate past per-address limits.)
 */
export function clientAddressOf(req: IncomingMessage, trust: Trust | null): string {
  if (!trust) return req.socket.remoteAddress ?? "unknown";
  try {
    return proxyaddr(req, trust);
  } catch {
    return req.socket.remoteAddress ?? "unknown";
  }
}

/** Whether the peer on the socket is a trusted proxy, whose X-Forwarded-Proto/Host and X-Request-Id count. */
export function fromTrustedProxy(req: IncomingMessage, trust: Trust | null): boolean {
  return trust !== null && trust(req.socket.remoteAddress ?? "", 0);
}

// A Host (or X-Forwarded-Host) value: a name, an IPv4 address or a bracketed IPv6
// address, with an optional port. Anything else cannot name this service.
const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/** The host the client addressed (the proxy's X-Forwarded-Host when it is trusted), or null when malformed. */
export function publicHost(req: IncomingMessage, trust: Trust | null): string | null {
  const forwardedHeader = fromTrustedProxy(req, trust) ? req.headers["x-forwarded-host"] : undefined;
  const forwarded = typeof forwardedHeader === "string" ? forwardedHeader.split(",")[0]?.trim() : undefined;
  const host = forwarded || req.headers.host || "localhost";
  const port = HOST.test(host) ? /:(\d+)$/.exec(host)?.[1] : "x";
  return port === undefined || Number(port) <= 65_535 ? host : null;
}

/** The URL the client asked for, as the app sees it (https behind a trusted TLS proxy). */
export function requestUrl(req: IncomingMessage, trust: Trust | null): URL {
  return new URL(requestHref(req, trust));
}

/** requestUrl as a string, for a Request (which parses it again anyway). */
export function requestHref(req: IncomingMessage, trust: Trust | null): string {
  const proto = fromTrustedProxy(req, trust) && req.headers["x-forwarded-proto"] === "https" ? "https" : "http";
  // A malformed Host or request target was already refused with 400 before routing. The
  // target is appended, not resolved against the origin: resolved, `//evil.example/x` (or
  // `/\evil.example/x`) would name another host.
  return `${proto}://${publicHost(req, trust) ?? "localhost"}${req.url ?? "/"}`;
}
