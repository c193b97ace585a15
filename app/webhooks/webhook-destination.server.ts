// Where a webhook may be sent (docs/api/webhooks.md, "Destinations"): no server-side
// request forgery. An endpoint URL must be https:// (or http:// with WEBHOOK_ALLOW_HTTP)
// and reach only public unicast addresses (not loopback, private, link-local, cloud
// metadata, multicast, ...) unless WEBHOOK_ALLOW_PRIVATE is set. The address is checked
// when the endpoint is saved, and again at delivery on the address actually connected to:
// the delivery's socket resolves the name through `checkedLookup`, so a name that
// resolves elsewhere between the two checks (DNS rebinding) is still refused.
import dns from "node:dns";
import net from "node:net";
import ipaddr from "ipaddr.js";
import { invalidFields } from "~/utils/domain-error";
import { env } from "~/utils/env.server";
import type { LookupFunction } from "node:net";

export const REFUSED_DESTINATION = "This destination is not allowed: it is not a public internet address.";

/** Whether a delivery may connect to this IP address. */
export function isAllowedAddress(address: string): boolean {
  if (env.WEBHOOK_ALLOW_PRIVATE) return true;
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  // ::ffff:10.0.0.1 is 10.0.0.1.
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  if (parsed.range() !== "unicast") return false;
  // Old IPv4-compatible IPv6 (::a.b.c.d, deprecated): no public address looks like this.
  return !(parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0));
}

/** The error a refused destination gives a delivery (recorded in its attempt). */
export class RefusedDestinationError extends Error {
  readonly code = "EREFUSED_DESTINATION";
  constructor(hostname: string) {
    super(`${hostname} does not resolve to an allowed address`);
  }
}

/** dns.lookup, keeping only allowed addresses: the socket connects to one of these or fails. */
export const checkedLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, "", 0);
    const allowed = addresses.filter((entry) => isAllowedAddress(entry.address));
    if (allowed.length === 0) return callback(new RefusedDestinationError(hostname), "", 0);
    if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, allowed);
    callback(null, allowed[0].address, allowed[0].family);
  });
};

function hostOf(url: URL): string {
  // URL keeps the brackets of an IPv6 literal.
  return url.hostname.replace(/^\[(.*)\]$/, "$1");
}

/** The addresses a host name stands for (itself when it is an IP literal). */
async function addressesOf(host: string): Promise<string[]> {
  if (net.isIP(host)) return [host];
  try {
    return (await dns.promises.lookup(host, { all: true })).map((entry) => entry.address);
  } catch {
    return [];
  }
}

/**
 * Checks an endpoint URL as it is saved: 422 naming `url` for a malformed URL, a scheme
 * other than https (or http when allowed), credentials in it, or a host that does not
 * resolve to allowed addresses only.
 */
export async function checkEndpointUrl(text: string): Promise<string> {
  const refuse = (message: string) => invalidFields([{ path: "url", message }]);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refuse("Use a full https:// address.");
  }
  const schemes = env.WEBHOOK_ALLOW_HTTP ? ["https:", "http:"] : ["https:"];
  if (!schemes.includes(url.protocol)) {
    throw refuse(env.WEBHOOK_ALLOW_HTTP ? "Use an https:// or http:// address." : "Use an https:// address.");
  }
  if (url.username || url.password) throw refuse("Leave the user name and password out of the address.");
  const addresses = await addressesOf(hostOf(url));
  if (addresses.length === 0) throw refuse("This host name does not resolve.");
  if (!addresses.every(isAllowedAddress)) throw refuse(REFUSED_DESTINATION);
  return url.href;
}

/** An IP literal host is connected to without a lookup: checked here instead. */
export function literalHostRefused(url: URL): boolean {
  const host = hostOf(url);
  return net.isIP(host) !== 0 && !isAllowedAddress(host);
}
