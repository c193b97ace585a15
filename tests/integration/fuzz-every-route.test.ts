// Every route of the built app, found in its route manifest (so a route added later is
// fuzzed without anyone remembering to), called with generated hostile values in every
// path parameter, query parameter, header and body field, logged in and not. No answer may
// be a 5xx; API refusals come in the one error shape, page refusals as HTML.
import http from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { newWebhookEvent, writeWebhookEvent } from "~/webhooks/webhook-events.server";
import { newSigningSecret } from "~/webhooks/webhooks.server";
import { loginAsStaff } from "../support/http";
import { createForm, createLeads, field } from "../support/leads";
import { startServer, type TestServer } from "../support/server";

// 120 a route on each database (with the fixed seed below, the same requests every run) keeps
// this file to about two minutes beside the rest of the suite; FUZZ_ROUTE_RUNS=1000 for a
// deeper look.
const RUNS_PER_ROUTE = Number(process.env.FUZZ_ROUTE_RUNS ?? 120);
const root = path.resolve(import.meta.dirname, "..", "..");

type ManifestRoute = { id: string; path?: string; index?: boolean; parentId?: string; module: Record<string, unknown> };
type Route = { id: string; pattern: string; params: string[]; methods: string[] };

let server: TestServer;
let routes: Route[];
let cookie: string;
const real: Record<string, string> = {};

/** The URL pattern of every route that answers requests, from the production build. */
function routesOf(manifest: Record<string, ManifestRoute>): Route[] {
  const found: Route[] = [];
  for (const route of Object.values(manifest)) {
    const { loader, action } = route.module;
    if (!loader && !action) continue;
    const isLayout = Object.values(manifest).some((other) => other.parentId === route.id);
    if (isLayout && !route.path) continue; // pathless layouts answer only through their children
    const segments: string[] = [];
    for (
      let current: ManifestRoute | undefined = route;
      current;
      current = current.parentId ? manifest[current.parentId] : undefined
    ) {
      if (current.path) segments.unshift(current.path);
    }
    const pattern = `/${segments.join("/")}`;
    const params = [...pattern.matchAll(/:([A-Za-z]+)|\*/g)].map((match) => match[1] ?? "*");
    const methods = ["GET", "HEAD", ...(action ? ["POST", "PUT", "PATCH", "DELETE"] : []), "OPTIONS"];
    found.push({ id: route.id, pattern, params, methods });
  }
  return found;
}

beforeAll(async () => {
  server = await startServer({ SUBMIT_RATE_LIMIT_PER_MINUTE: "0", SUPPORT_RATE_LIMIT_PER_HOUR: "0" });
  const build = (await import(pathToFileURL(path.join(root, "build", "server", "index.js")).href)) as {
    routes: Record<string, ManifestRoute>;
  };
  routes = routesOf(build.routes);
  cookie = await loginAsStaff(server.url);
  const form = await createForm("Fuzzed", [
    [field("name", "Name", "text", { required: true }), field("size", "Size", "number")],
  ]);
  await createLeads(form.id, [{ data: { name: "Ada", size: 3 } }]);
  const lead = await db.lead.findFirstOrThrow({ where: { formId: form.id } });
  const ticket = await fetch(`${server.url}/api/support-requests`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email: "c@example.com", subject: "Help", message: "Hello" }),
  }).then((res) => res.json() as Promise<{ id: string; reference: string }>);
  // A webhook endpoint with one delivery; its address is a documentation range, which the
  // delivery worker refuses without a connection.
  const endpoint = await db.webhookEndpoint.create({
    data: { url: "https://203.0.113.10/hook", events: ["lead.created"], secret: newSigningSecret() },
  });
  const event = newWebhookEvent("ping", {}, [endpoint.id]);
  await writeWebhookEvent(event);
  Object.assign(real, {
    webhookId: endpoint.id,
    deliveryId: event.deliveries[0].id,
    formId: form.id,
    id: form.id,
    leadId: lead.id,
    ticket: ticket.reference,
    reference: ticket.reference,
  });
});
afterAll(async () => {
  await server?.stop();
});

// ------------------------------------------------------------------ generators

const cursorOf = (text: string) => Buffer.from(text, "utf8").toString("base64url");
const deepJson = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

const hostileText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.constantFrom(
    "\u0000",
    "a\u0000b",
    "\uD800",
    "x\uDC00y",
    "\uFFFE\uFFFF",
    "\u001b[31m",
    "9".repeat(400),
    "1e309",
    "-1",
    "0",
    "NaN",
    "Infinity",
    "2026-13-45",
    "9999-12-31",
    "0000-01-01",
    "1969-12-31",
    "+275760-09-13T00:00:00.000Z",
    "<script>alert(1)</script>",
    "' OR 1=1 --",
    "%",
    "%00",
    "__proto__",
    "constructor",
    "../../etc/passwd",
    "//evil.example",
    "/\t/evil.example",
    cursorOf(JSON.stringify(["+275760-09-13T00:00:00.000Z", "x"])),
    cursorOf("9999-12-31T23:59:59.999Z|abc"),
    cursorOf("2026-01-01T00:00:00.000Z|a\u0000b"),
  ),
  fc.constant("x".repeat(10_000)),
  fc.integer().map(String),
  fc.double().map(String),
);

const jsonValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    hostileText,
    fc.integer(),
    fc.double(),
    fc.constantFrom(1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 2 ** 64),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom("key", "label", "type", "options", "name", "x", "__proto__"), tie("value"), {
      maxKeys: 3,
    }),
  ),
})).value;

const QUERY_KEYS = [
  "from",
  "to",
  "q",
  "cursor",
  "limit",
  "formId",
  "status",
  "spam",
  "format",
  "utm_source",
  "utm_campaign",
  "redirectTo",
  "confirm",
  "permanent",
  "ended",
  "changed",
  "errors",
  "token",
];
const BODY_KEYS = [
  "name",
  "description",
  "fields",
  "settings",
  "status",
  "message",
  "email",
  "password",
  "subject",
  "intent",
  "ownerId",
  "tags",
  "body",
  "key",
  "label",
  "type",
  "formId",
  "data",
  "utm",
  "from",
  "text",
  "html",
  "headers",
  "value",
  "currentPassword",
  "newPassword",
  "confirmPassword",
  "redirectTo",
  "direction",
  "options",
  "required",
  "referrerUrl",
  "landingPageUrl",
  "_hp",
  "_ts",
];
const INTENTS = [
  "add-field",
  "update-field",
  "move-field",
  "remove-field",
  "update-details",
  "update-settings",
  "archive",
  "unarchive",
  "delete",
  "reply",
  "status",
  "update",
  "note",
  "create",
  "logout-others",
  "change-password",
];

const query = fc.dictionary(fc.constantFrom(...QUERY_KEYS), hostileText, { maxKeys: 4 });
const bodyFields = fc.dictionary(fc.constantFrom(...BODY_KEYS), jsonValue, { maxKeys: 6 });

type Body = { text?: string; contentType?: string };
const body: fc.Arbitrary<Body> = fc.oneof(
  bodyFields.map((fields) => ({ text: JSON.stringify(fields), contentType: "application/json" })),
  fc.tuple(bodyFields, fc.constantFrom(...INTENTS)).map(([fields, intent]) => {
    const form = new URLSearchParams({ intent });
    for (const [key, value] of Object.entries(fields))
      form.append(key, typeof value === "string" ? value : (JSON.stringify(value) ?? ""));
    return { text: form.toString(), contentType: "application/x-www-form-urlencoded" };
  }),
  fc.constant<Body>({ text: deepJson(20_000), contentType: "application/json" }),
  fc.constant<Body>({ text: `{"a":${"[".repeat(5000)}`, contentType: "application/json" }),
  fc.string({ maxLength: 200 }).map((text) => ({ text, contentType: "text/plain" })),
  fc.constantFrom<Body>(
    {
      text: '--b\r\nContent-Disposition: form-data; name="x"\r\n\r\n\u0000\r\n--b--',
      contentType: "multipart/form-data; boundary=b",
    },
    { text: "--b\r\nbroken", contentType: "multipart/form-data; boundary=b" },
    {},
  ),
);

const headers = fc.record(
  {
    host: fc.constantFrom("good", "localhost", "[", "a b", "a@b", "%", "evil.example:99999", "[::1]:1"),
    origin: fc.constantFrom("self", "https://evil.example", "null", "not a url"),
    "x-forwarded-for": fc.constantFrom("203.0.113.9", "1.2.3.4, 5.6.7.8", "garbage", "::ffff:1.2.3.4", ", ,"),
    accept: fc.constantFrom("application/json", "text/html", "*/*", "image/png", ""),
    cookie: fc.constantFrom("session", "__session=garbage", "__session=", "__Host-session=x.y", "a=b; c", ""),
    authorization: fc.constantFrom("Bearer wrong", "Basic Zm9vOmJhcg==", "Bearer ", "Digest x"),
    "idempotency-key": hostileText.filter((value) => /^[\x20-\x7e]*$/.test(value)),
  },
  { requiredKeys: ["cookie"] },
);

// ------------------------------------------------------------------ sending

type Outcome = { status: number; contentType: string; text: string; sent: string };

function fill(route: Route, values: Record<string, string>): string {
  // A URL carries UTF-8, where a lone surrogate cannot exist: a client sends U+FFFD.
  const wellFormed = (value: string) =>
    value.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
  return route.pattern.replace(/:([A-Za-z]+)|\*/g, (_match, name: string | undefined) =>
    encodeURIComponent(wellFormed(values[name ?? "*"] ?? "x")),
  );
}

function send(method: string, target: string, sent: Record<string, string>, payload: Body): Promise<Outcome> {
  const { port } = new URL(server.url);
  const headerValues: Record<string, string> = {};
  for (const [name, value] of Object.entries(sent)) {
    let resolved = value;
    if (name === "host" && value === "good") resolved = `127.0.0.1:${port}`;
    if (name === "origin" && value === "self") resolved = server.url;
    if (name === "cookie" && value === "session") resolved = cookie;
    // A client library refuses control characters in headers: none can arrive from one.
    if (/^[\x20-\x7e]*$/.test(resolved)) headerValues[name] = resolved;
  }
  if (payload.contentType) headerValues["content-type"] = payload.contentType;
  const withBody = payload.text !== undefined && method !== "GET" && method !== "HEAD";
  // Node's client frames no body for OPTIONS or DELETE unless told its length.
  if (withBody) headerValues["content-length"] = String(Buffer.byteLength(payload.text!));
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, method, path: target, headers: headerValues, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers["content-type"] ?? ""),
            text: Buffer.concat(chunks).toString("utf8"),
            sent: `${JSON.stringify(headerValues)} body ${JSON.stringify(payload.text ?? "").slice(0, 120)}`,
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", (error) =>
      reject(new Error(`${method} ${target.slice(0, 200)} ${JSON.stringify(headerValues)}: ${error.message}`)),
    );
    if (withBody) req.end(payload.text);
    else req.end();
  });
}

function checkOutcome(outcome: Outcome, method: string, target: string) {
  const what = `${method} ${target.slice(0, 200)} ${outcome.sent} -> ${outcome.status} ${outcome.text.slice(0, 300)}`;
  expect(outcome.status, what).toBeLessThan(500);
  if (outcome.status < 400 || method === "HEAD") return;
  // The two endpoints a visitor's browser posts to answer a browser that asked for HTML with a page.
  const browserFacing = /^\/api\/(leads\/submit|support-requests)(\?|$)/.test(target);
  // /metrics is a scraper's: its own refusals are in the API's shape (one refused before
  // routing, such as a malformed Host, is a page as on every path off /api).
  const scraperFacing = /^\/metrics(\?|$)/.test(target);
  if (browserFacing && outcome.contentType.includes("text/html")) {
    expect(outcome.text, what).toMatch(/^<!doctype html>/i);
  } else if (target.startsWith("/api/") || (scraperFacing && outcome.contentType.includes("application/json"))) {
    expect(outcome.contentType, what).toMatch(/application\/json/);
    const parsed = JSON.parse(outcome.text) as { error: { code: unknown; message: unknown; details?: unknown } };
    expect(Object.keys(parsed), what).toEqual(["error"]);
    expect(typeof parsed.error.code, what).toBe("string");
    expect(typeof parsed.error.message, what).toBe("string");
  } else if (outcome.contentType.includes("application/json")) {
    // A page never answers a person with raw JSON, except the unknown-/api catch-all.
    expect.fail(`a page answered JSON: ${what}`);
  }
  expect(outcome.text, what).not.toMatch(/node_modules|PrismaClient|SQLITE_|at [\w.<>]+ \(\/|stack/);
}

// ------------------------------------------------------------------ the run

describe("fuzzing every route of the build", () => {
  it("finds the routes in the build's manifest, each with a description of its parameters", () => {
    expect(routes.length).toBeGreaterThan(20);
    const described = new Set(["id", "formId", "ticket", "reference", "deliveryId", "fileId", "token", "hash", "*"]);
    for (const route of routes) {
      for (const param of route.params) {
        expect(
          described.has(param),
          `route ${route.id} has parameter "${param}" with no fuzz values: add them here`,
        ).toBe(true);
      }
    }
  });

  it("answers a NUL in any path parameter with 404, and in any query parameter with a 4xx at most, on every route", async () => {
    // Issue 28: PostgreSQL refuses a NUL with an error of its own, which became a 500.
    const sent = { host: "good", origin: "self", cookie: "session", accept: "application/json" };
    const json: Body = { text: "{}", contentType: "application/json" };
    const keys = [...QUERY_KEYS, "userId", "assignee", "groupBy", "ids", "tag", "ownerId", "utm_medium", "id"];
    for (const route of routes) {
      const headers = /logout/.test(route.id) ? { ...sent, cookie: "__session=garbage" } : sent;
      const values = Object.fromEntries(route.params.map((name) => [name, real[name] ?? "x"]));
      for (const param of route.params) {
        for (const method of route.methods.filter((name) => name !== "OPTIONS")) {
          const target = fill(route, { ...values, [param]: "\u0000" });
          const outcome = await send(method, target, headers, json);
          expect(outcome.status, `${method} ${target} -> ${outcome.text.slice(0, 200)}`).toBe(404);
          checkOutcome(outcome, method, target);
        }
      }
      // Read-only: a real id with a DELETE would take the file's fixtures away.
      for (const key of keys) {
        const target = `${fill(route, values)}?${key}=%00`;
        checkOutcome(await send("GET", target, headers, {}), "GET", target);
      }
    }
  }, 180_000);

  it(`sends ${RUNS_PER_ROUTE} generated requests to every route: no 5xx, refusals in the documented shape`, async () => {
    let requests = 0;
    let serverErrors = 0;
    const paramValue = fc.oneof(fc.constant("REAL"), fc.constant("LEAD"), fc.constant("WEBHOOK"), hostileText);
    for (const route of routes) {
      const isLogout = /logout/.test(route.id);
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...route.methods),
          fc.dictionary(fc.constantFrom(...(route.params.length ? route.params : ["none"])), paramValue),
          query,
          headers,
          body,
          async (method, params, search, sent, payload) => {
            const values = Object.fromEntries(
              Object.entries(params).map(([name, value]) => [
                name,
                value === "REAL"
                  ? (real[name] ?? "x")
                  : value === "LEAD"
                    ? real.leadId
                    : value === "WEBHOOK"
                      ? real.webhookId
                      : value,
              ]),
            );
            for (const name of route.params) values[name] ??= real[name] ?? "x";
            const qs = new URLSearchParams(search).toString();
            const target = `${fill(route, values)}${qs ? `?${qs}` : ""}`;
            // Logging out with the shared session would end it for every later request.
            const chosen = isLogout && sent.cookie === "session" ? { ...sent, cookie: "__session=garbage" } : sent;
            const outcome = await send(method, target, chosen, payload);
            requests++;
            if (outcome.status >= 500) serverErrors++;
            checkOutcome(outcome, method, target);
          },
        ),
        { numRuns: RUNS_PER_ROUTE, seed: 20261122, endOnFailure: true },
      );
    }
    console.log(
      `fuzz (${process.env.TEST_DATABASE}): ${requests} requests over ${routes.length} routes, ${serverErrors} answered 5xx`,
    );
    expect(requests).toBe(routes.length * RUNS_PER_ROUTE);
    expect(serverErrors).toBe(0);
  }, 600_000);

  it("leaves the server's log free of unexpected errors", () => {
    expect(server.output()).not.toMatch(
      /request failed|failed:|Unexpected Server Error|TypeError|ReferenceError|RangeError/,
    );
  });
});
