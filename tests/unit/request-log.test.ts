// @vitest-environment node
// The request id and the route a log line names (server/request-log.ts, decision 053).
import { describe, expect, it } from "vitest";
import { parseEnv } from "~/utils/env.server";
import { compileTrustProxy } from "../../server/client-address";
import { requestIdOf, routeNames } from "../../server/request-log";
import type { ServerBuild } from "@remix-run/node";
import type { IncomingMessage } from "node:http";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const request = (socket: string, requestId?: string | string[]) =>
  ({
    socket: { remoteAddress: socket },
    headers: requestId === undefined ? {} : { "x-request-id": requestId },
  }) as unknown as IncomingMessage;

describe("the request id", () => {
  const proxies = compileTrustProxy("10.0.0.0/8");

  it("is the trusted proxy's X-Request-Id when it is well-formed", () => {
    for (const id of [
      "edge-1",
      "0af7651916cd43dd8448eb211c80319c",
      "Root=1-5759e988-bd862e3fe1be46a994272793",
      "a/b+c=",
    ]) {
      expect(requestIdOf(request("10.0.0.5", id), proxies)).toBe(id);
    }
  });

  it("is made here for a client that is not a trusted proxy, whatever it sends", () => {
    expect(requestIdOf(request("192.0.2.1", "chosen"), proxies)).toMatch(UUID);
    expect(requestIdOf(request("10.0.0.5", "chosen"), compileTrustProxy(undefined))).toMatch(UUID);
  });

  it("is made here when the proxy's is empty, too long, repeated or holds other characters", () => {
    for (const id of ["", "x".repeat(129), "two words", 'quo"te', "new\nline", "tab\t", "é", ["a", "b"]]) {
      expect(requestIdOf(request("10.0.0.5", id), proxies), String(id)).toMatch(UUID);
    }
    expect(requestIdOf(request("10.0.0.5", "x".repeat(128)), proxies)).toBe("x".repeat(128));
  });

  it("is new for each request", () => {
    expect(requestIdOf(request("192.0.2.1"), null)).not.toBe(requestIdOf(request("192.0.2.1"), null));
  });
});

/** A build's route table, as Remix's flat routes make it from app/routes. */
function buildOf(routes: Array<{ id: string; path?: string; index?: boolean; parentId?: string }>): ServerBuild {
  const table = Object.fromEntries(routes.map((route) => [route.id, { ...route, module: {} }]));
  return { routes: { root: { id: "root", path: "", module: {} }, ...table } } as unknown as ServerBuild;
}

describe("the route a request line names", () => {
  const name = routeNames(
    buildOf([
      { id: "routes/_dashboard", parentId: "root" },
      { id: "routes/_dashboard.forms.$id", path: "forms/:id", parentId: "routes/_dashboard" },
      { id: "routes/_dashboard.forms.$id._index", index: true, parentId: "routes/_dashboard.forms.$id" },
      { id: "routes/_dashboard.forms.$id.fields", path: "fields", parentId: "routes/_dashboard.forms.$id" },
      { id: "routes/_dashboard.forms.new", path: "forms/new", parentId: "routes/_dashboard" },
      { id: "routes/api.$", path: "api/*", parentId: "root" },
      { id: "routes/api.leads.submit", path: "api/leads/submit", parentId: "root" },
      { id: "routes/reset-password.$token", path: "reset-password/:token", parentId: "root" },
    ]),
  );

  it("is the pattern, so that a token in the path is not logged", () => {
    expect(name("/reset-password/s3cr3t-t0ken")).toBe("/reset-password/:token");
    expect(name("/forms/abc123")).toBe("/forms/:id");
    expect(name("/forms/abc123/fields")).toBe("/forms/:id/fields");
    expect(name("/")).toBe("/");
  });

  it("ranks as Remix does: a static segment before a parameter, anything before a splat", () => {
    expect(name("/forms/new")).toBe("/forms/new");
    expect(name("/api/leads/submit")).toBe("/api/leads/submit");
    expect(name("/API/Leads/Submit")).toBe("/api/leads/submit");
    expect(name("/api/anything/else")).toBe("/api/*");
  });

  it("is the path itself, cut to 200 characters, when no route serves it (a static file, a 404)", () => {
    expect(name("/assets/entry.client-Ab12.js")).toBe("/assets/entry.client-Ab12.js");
    expect(name(`/${"a/".repeat(150)}`)).toHaveLength(200);
  });

  it("hides what looks like a token in a path no route serves (a mangled reset link)", () => {
    const token = "Qm3x_Vb8-kP2nR7tY1wZ4cF6hJ9sL0dG5aE2uI8oT3q";
    expect(name(`/reset-password/${token}/x`)).toBe("/reset-password/:redacted/x");
    expect(name(`//reset-password/${token}`)).toBe("//reset-password/:redacted");
    expect(name(`/${"a".repeat(300)}`)).toBe("/:redacted");
  });
});

describe("LOG_FORMAT", () => {
  const base = { SESSION_SECRET: "q8Z2vN4kT7wR1xY9mB3cL6pF0sH5jD2g" };

  it("is text unless set to json", () => {
    expect(parseEnv(base).LOG_FORMAT).toBe("text");
    expect(parseEnv({ ...base, LOG_FORMAT: " JSON " }).LOG_FORMAT).toBe("json");
    expect(() => parseEnv({ ...base, LOG_FORMAT: "xml" })).toThrowError(/LOG_FORMAT: must be text or json/);
  });
});
