// @vitest-environment node
import { describe, expect, it } from "vitest";
import { clientAddressOf, compileTrustProxy } from "../../server/client-address";
import { serverLimits } from "../../server/limits";
import { connectionOwner } from "../../server/sockets";
import type { IncomingMessage } from "node:http";

const request = (socket: string, forwardedFor?: string) =>
  ({
    socket: { remoteAddress: socket },
    connection: { remoteAddress: socket },
    headers: forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor },
  }) as unknown as IncomingMessage;

describe("the client address behind proxies (TRUST_PROXY)", () => {
  it("is the socket's address when no proxy is trusted, whatever X-Forwarded-For says", () => {
    for (const setting of [undefined, "", "false", "0"]) {
      expect(clientAddressOf(request("192.0.2.1", "203.0.113.9"), compileTrustProxy(setting))).toBe("192.0.2.1");
    }
  });

  it("with a hop count, skips that many proxies from the right", () => {
    const chain = request("10.0.0.2", "198.51.100.7, 203.0.113.9, 10.0.0.1");
    expect(clientAddressOf(chain, compileTrustProxy("true"))).toBe("10.0.0.1");
    expect(clientAddressOf(chain, compileTrustProxy("1"))).toBe("10.0.0.1");
    expect(clientAddressOf(chain, compileTrustProxy("2"))).toBe("203.0.113.9");
    expect(clientAddressOf(chain, compileTrustProxy("3"))).toBe("198.51.100.7");
    // More hops than entries: the leftmost entry is all there is.
    expect(clientAddressOf(chain, compileTrustProxy("9"))).toBe("198.51.100.7");
  });

  it("with CIDR ranges, takes the rightmost entry that is not a trusted proxy", () => {
    const trust = compileTrustProxy("10.0.0.0/8, 2001:db8::/32");
    expect(clientAddressOf(request("10.0.0.2", "6.6.6.6, 203.0.113.9, 10.0.0.1"), trust)).toBe("203.0.113.9");
    expect(clientAddressOf(request("2001:db8::1", "198.51.100.1"), trust)).toBe("198.51.100.1");
    // A peer outside the ranges is the client itself, whatever it forwards.
    expect(clientAddressOf(request("192.0.2.1", "10.0.0.1, 6.6.6.6"), trust)).toBe("192.0.2.1");
  });

  it("refuses a setting that names no address", () => {
    expect(() => compileTrustProxy("not-an-address")).toThrow();
  });
});

describe("server limits from the environment", () => {
  it("takes the documented defaults and refuses nonsense with the variable named", () => {
    expect(serverLimits({})).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      maxConnections: 1_000,
      maxConnectionsPerClient: 100,
      shutdownTimeoutMs: 20_000,
    });
    expect(() => serverLimits({ MAX_CONNECTIONS_PER_CLIENT: "-1" })).toThrow(/MAX_CONNECTIONS_PER_CLIENT/);
    expect(() => serverLimits({ MAX_CONNECTIONS: "0" })).toThrow(/MAX_CONNECTIONS/);
    expect(() => serverLimits({ HEADERS_TIMEOUT_MS: "soon" })).toThrow(/HEADERS_TIMEOUT_MS/);
    expect(() => serverLimits({ HEADERS_TIMEOUT_MS: "40000" })).toThrow(/must not be larger than REQUEST_TIMEOUT_MS/);
    expect(() => serverLimits({ SHUTDOWN_TIMEOUT_MS: "0" })).toThrow(/SHUTDOWN_TIMEOUT_MS/);
  });
});

describe("whose share a connection counts against (MAX_CONNECTIONS_PER_CLIENT)", () => {
  it("is the IPv4 address, written either way", () => {
    expect(connectionOwner("192.0.2.7")).toBe("192.0.2.7");
    expect(connectionOwner("::ffff:192.0.2.7")).toBe("192.0.2.7");
  });

  it("is an IPv6 address's /64, so one subscriber cannot rotate through its addresses", () => {
    expect(connectionOwner("2001:db8:1:2::1")).toBe("2001:db8:1:2::/64");
    expect(connectionOwner("2001:db8:1:2:aaaa:bbbb:cccc:dddd")).toBe("2001:db8:1:2::/64");
    expect(connectionOwner("2001:db8:1:3::1")).not.toBe(connectionOwner("2001:db8:1:2::1"));
  });
});
