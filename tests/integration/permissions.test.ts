// The permission matrix, generated from the policy module (app/staff/policy.ts):
// every route file must have an entry in ROUTE_PERMISSIONS, and every route and method
// that needs a permission is requested by an owner, an admin and an agent. A role the
// policy refuses gets 403 saying in words what the role cannot do; a role it allows gets past the check (a
// 404 for the made-up ids below, a 422 for the empty body, never a 403 or a 500).
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "~/staff/api-tokens.server";
import {
  can,
  PERMISSION_WORDS,
  ROUTE_PERMISSIONS,
  SCOPE_FOR,
  STAFF_ROLES,
  TOKEN_SCOPES,
  type Permission,
  type StaffRole,
} from "~/staff/policy";
import { staffSession } from "../support/http";
import { startServer, type TestServer } from "../support/server";

const routesDir = path.resolve(import.meta.dirname, "../../app/routes");
const PASSWORD = "permission matrix password";

let server: TestServer;
const cookies = {} as Record<StaffRole, string>;
let ownerId: string;

beforeAll(async () => {
  server = await startServer({ SUBMIT_RATE_LIMIT_PER_MINUTE: "0" });
  for (const role of STAFF_ROLES) {
    const email = `${role}@permissions.example`;
    const { id, cookie } = await staffSession(server.url, { email, password: PASSWORD, role });
    if (role === "owner") ownerId = id;
    cookies[role] = cookie;
  }
});
afterAll(async () => {
  await server?.stop();
});

/** The URL of a flat route file name, its parameters filled with ids that do not exist. */
function urlOf(route: string): string {
  const segments = route
    .split(".")
    .filter((segment) => !segment.startsWith("_") || segment === "_index")
    .filter((segment) => segment !== "_index")
    .map((segment) => segment.replace(/_$/, "").replace("[", "").replace("]", ""))
    .map((segment) => (segment.startsWith("$") ? `no-such-${segment.slice(1).toLowerCase()}` : segment));
  // "embed[.]js" is one segment with a literal dot.
  return `/${segments.join("/")}`.replace("/embed/js", "/embed.js");
}

const checked = Object.entries(ROUTE_PERMISSIONS).flatMap(([route, rules]) =>
  Object.entries(rules).flatMap(([key, rule]) =>
    rule === "public" || rule === "session" || rule === "inbound" || rule === "metrics"
      ? []
      : [{ route, method: key.split(" ")[0], intent: key.split(" ")[1], permission: rule as Permission }],
  ),
);

/** One request to a route with a made-up id and an empty body, with the given credentials. */
function request(route: string, method: string, intent: string | undefined, credentials: Record<string, string>) {
  const headers: Record<string, string> = { ...credentials };
  let body: string | undefined;
  if (method !== "GET") {
    if (route.startsWith("api.")) {
      headers["Content-Type"] = "application/json";
      body = "{}";
    } else {
      headers["Content-Type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams({ intent: intent ?? "", id: "no-such-id" }).toString();
    }
  }
  return fetch(`${server.url}${urlOf(route)}`, { method, headers, body, redirect: "manual" });
}

describe("the permission matrix", () => {
  it("has a rule for every route file, and no rule for a route that does not exist", () => {
    const files = fs
      .readdirSync(routesDir)
      .filter((file) => /\.tsx?$/.test(file))
      .map((file) => file.replace(/\.tsx?$/, ""));
    expect(Object.keys(ROUTE_PERMISSIONS).sort()).toEqual(files.sort());
  });

  it.each(
    checked.map((entry) => [`${entry.method} ${urlOf(entry.route)}${entry.intent ? ` (${entry.intent})` : ""}`, entry]),
  )("%s: refused exactly to the roles without the permission", async (_, { route, method, intent, permission }) => {
    const isApi = route.startsWith("api.");
    for (const role of STAFF_ROLES) {
      const res = await request(route, method, intent, { Cookie: cookies[role], Origin: server.url });
      const text = await res.text();
      const allowed = can({ id: "x", role }, permission);
      if (allowed) {
        expect(res.status, `${role}: ${text.slice(0, 200)}`).not.toBe(403);
        expect(res.status, `${role}: ${text.slice(0, 200)}`).toBeLessThan(500);
      } else {
        expect(res.status, `${role} should be refused`).toBe(403);
        if (isApi) {
          expect(JSON.parse(text).error).toMatchObject({ code: "forbidden", details: [{ message: permission }] });
        } else {
          // A person's words, not the permission's name.
          expect(text).toContain(`you cannot ${PERMISSION_WORDS[permission]}`);
          expect(text).not.toContain(permission);
        }
      }
    }
  });
});

describe("the token scope matrix", () => {
  const apiEntries = checked.filter((entry) => entry.route.startsWith("api."));
  it.each(apiEntries.map((entry) => [`${entry.method} ${urlOf(entry.route)}`, entry]))(
    "%s: an owner's token passes with the scope it needs, and gets 403 insufficient_scope with every other",
    async (_, { route, method, permission }) => {
      const needed = SCOPE_FOR[permission];
      const others = TOKEN_SCOPES.filter((scope) => scope !== needed);
      const without = await createApiToken({ id: ownerId, role: "owner" }, { name: "without", scopes: others });
      const refused = await request(route, method, undefined, { Authorization: `Bearer ${without.token}` });
      expect(refused.status).toBe(403);
      expect((await refused.json()).error).toMatchObject({
        code: "insufficient_scope",
        details: [{ path: "scope", message: needed ?? permission }],
      });
      if (!needed) return; // no token may: staff management needs a login
      const withIt = await createApiToken({ id: ownerId, role: "owner" }, { name: "with", scopes: [needed] });
      const passed = await request(route, method, undefined, { Authorization: `Bearer ${withIt.token}` });
      const text = await passed.text();
      expect(passed.status, text.slice(0, 200)).not.toBe(403);
      expect(passed.status, text.slice(0, 200)).not.toBe(401);
      expect(passed.status, text.slice(0, 200)).toBeLessThan(500);
    },
  );
});
