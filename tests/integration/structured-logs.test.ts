// Structured logs (decision 053) on the real server: with LOG_FORMAT=json every line it
// prints is one JSON object, requests carry an id (sent back as X-Request-Id, taken from the
// client only when it is a trusted proxy), and no secret or personal value reaches the
// output. Without LOG_FORMAT the lines stay readable text.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, logIn, loginAsStaff, STAFF, type ApiClient } from "../support/http";
import { preloadInto, startServer, type TestServer } from "../support/server";
import { inboundSecret } from "../support/support-desk";
import { startReceiver, type Receiver } from "../support/webhook-receiver";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// Values that must never be printed, each distinctive enough to be found in any line.
const LEAD = { name: "Adalind Quexmorrow", email: "adalind.quexmorrow@example.com", phone: "+44 7700 918273" };
const WRONG_PASSWORD = "wrong-password-Zyxqwv-9137";
const QUERY_EMAIL = "query.only.person@example.com";
const QUERY_TOKEN = "query-token-Hq7Kd93LmPz";
const RESET_TOKEN = "reset-token-Vb81nQk2sTr";
const HOOK_SECRET_PATH = "hook-path-secret-Jm4Rt8";
const INBOUND_SENDER = "inbound.sender.Pqowieu@example.com";
const WRONG_TOKEN = "lc_wrongTokenValueThatNobodyHas0123456789abcdef";

type Line = Record<string, unknown> & { level: string; time: string; message: string };

let server: TestServer;
let receiver: Receiver;
let call: ApiClient;
let cookie: string;

beforeAll(async () => {
  // The destination fails every delivery, and the inbound email workers cannot start: two
  // errors the server logs, provoked from outside.
  receiver = await startReceiver((_, response) => response.writeHead(500).end("down"));
  server = await startServer({
    LOG_FORMAT: "json",
    LOG_REQUESTS: "true",
    NODE_OPTIONS: `${preloadInto("tests/fixtures/fail-in-worker.ts")} ${preloadInto("tests/fixtures/noisy-process.ts")}`,
    WEBHOOK_ALLOW_HTTP: "true",
    WEBHOOK_ALLOW_PRIVATE: "true",
    WEBHOOK_RETRY_DELAYS: "0.2",
    WEBHOOK_POLL_MS: "100",
    SUBMIT_RATE_LIMIT_PER_MINUTE: "0",
  });
  cookie = await loginAsStaff(server.url);
  call = apiClient(server.url, cookie);
});
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

/** Every line the server printed, each parsed as JSON (a line that is not fails the test). */
function lines(): Line[] {
  return server
    .output()
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      try {
        return JSON.parse(line) as Line;
      } catch {
        throw new Error(`not a JSON line: ${line}`);
      }
    });
}

async function until<T>(find: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`never logged: ${what}\n${server.output()}`);
}

const requestLine = (requestId: string) =>
  lines().find((line) => line.message === "request" && line.requestId === requestId);

describe("LOG_FORMAT=json", () => {
  it("logs every request as one JSON line, with no personal data or secret anywhere", { timeout: 60_000 }, async () => {
    // An inbound email whose worker cannot start: the server logs the error with its stack.
    // It takes its whole decoding budget (about 20 s) to fail: sent first, awaited last.
    const inbound = apiClient(server.url)(
      "POST",
      "/api/support-requests/inbound",
      { from: INBOUND_SENDER, subject: "About my order", text: `Call me on ${LEAD.phone}` },
      inboundSecret(),
    );
    const form = await call("POST", "/api/forms", {
      name: "Logged form",
      fields: [
        { key: "name", label: "Name", type: "text", required: true },
        { key: "email", label: "Email", type: "email", required: true },
        { key: "phone", label: "Phone", type: "text" },
      ],
    });
    expect(form.status, form.text).toBe(201);
    const hook = await call("POST", "/api/webhooks", {
      url: `${receiver.url}/${HOOK_SECRET_PATH}`,
      events: ["lead.created"],
    });
    expect(hook.status, hook.text).toBe(201);
    const made = await call("POST", "/api/tokens", { name: "logs", scopes: ["leads:read"] });
    expect(made.status, made.text).toBe(201);
    const apiToken = made.body.token as string;

    // A lead, sent with a query string that holds an email and a token.
    const submitted = await fetch(
      `${server.url}/api/leads/submit?email=${encodeURIComponent(QUERY_EMAIL)}&token=${QUERY_TOKEN}`,
      {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ formId: form.body.id, data: LEAD }),
      },
    );
    expect(submitted.status, await submitted.text()).toBe(201);
    const submitId = submitted.headers.get("x-request-id")!;
    expect(submitId).toMatch(UUID);

    // A wrong password, a good token with a cookie beside it, a wrong token, a reset link.
    expect((await logIn(server.url, STAFF.email, WRONG_PASSWORD)).status).toBe(401);
    const listed = await fetch(`${server.url}/api/leads`, {
      headers: { Authorization: `Bearer ${apiToken}`, Cookie: cookie },
    });
    expect(listed.status).toBe(200);
    const wrong = await fetch(`${server.url}/api/leads`, { headers: { Authorization: `Bearer ${WRONG_TOKEN}` } });
    expect(wrong.status).toBe(401);
    const reset = await fetch(`${server.url}/reset-password/${RESET_TOKEN}?email=${encodeURIComponent(QUERY_EMAIL)}`);
    expect(reset.headers.get("x-request-id")).toMatch(UUID);

    const submitLine = await until(() => requestLine(submitId), "the submit's request line");
    expect(submitLine).toMatchObject({ level: "info", method: "POST", route: "/api/leads/submit", status: 201 });
    expect(submitLine.durationMs).toBeTypeOf("number");
    expect(Date.parse(submitLine.time)).not.toBeNaN();
    const resetLine = await until(() => requestLine(reset.headers.get("x-request-id")!), "the reset page's line");
    expect(resetLine).toMatchObject({ method: "GET", route: "/reset-password/:token" });

    // The app's own warning, logged deep inside the request, carries that request's id.
    const wrongId = wrong.headers.get("x-request-id")!;
    const warning = await until(
      () => lines().find((line) => line.level === "warn" && String(line.message).startsWith("wrong API token")),
      "the wrong token's warning",
    );
    expect(warning.requestId).toBe(wrongId);

    expect((await inbound).status).toBeGreaterThanOrEqual(500);
    const failure = await until(
      () => lines().find((line) => line.level === "error" && String(line.message).includes("inbound email worker")),
      "the worker's failure",
    );
    expect((failure.error as { stack: string }).stack).toContain("this worker thread cannot start");
    // Background work, even when a request kicked it, logs as no request.
    const delivery = await until(
      () => lines().find((line) => line.level === "warn" && String(line.message).startsWith("webhook attempts failed")),
      "the failed webhook delivery",
    );
    expect(receiver.received.length).toBeGreaterThan(0);
    expect(delivery.requestId).toBeUndefined();
    // Each line holds its own fields only: none carried over from an error logged before it.
    const base = ["hostname", "level", "message", "pid", "time"];
    expect(Object.keys(delivery).sort()).toEqual([...base, "endpointIds", "statusCodes"].sort());
    for (const line of lines().filter((each) => each.message === "request")) {
      expect(Object.keys(line).sort()).toEqual(
        [...base, "durationMs", "method", "requestId", "route", "status"].sort(),
      );
    }

    const output = server.output();
    const secrets = {
      ...LEAD,
      password: STAFF.password,
      WRONG_PASSWORD,
      apiToken,
      WRONG_TOKEN,
      session: cookie.split("=").slice(1).join("="),
      QUERY_EMAIL,
      encodedQueryEmail: encodeURIComponent(QUERY_EMAIL),
      QUERY_TOKEN,
      RESET_TOKEN,
      HOOK_SECRET_PATH,
      INBOUND_SENDER,
      SESSION_SECRET: process.env.SESSION_SECRET!,
      INBOUND_SECRET: process.env.INBOUND_SECRET!,
      phoneDigits: "918273",
    };
    for (const [name, value] of Object.entries(secrets)) {
      expect(value.length, name).toBeGreaterThan(5);
      expect(output.includes(value), `${name} was logged`).toBe(false);
    }
    expect(output).not.toContain("?");
  });

  it("sends a new X-Request-Id on every answer, ignoring one from a client it does not trust", async () => {
    const answers = await Promise.all([
      fetch(`${server.url}/healthz`, { headers: { "X-Request-Id": "chosen-by-the-client" } }),
      fetch(`${server.url}/api/no-such-thing`),
      fetch(`${server.url}/login`),
      fetch(`${server.url}/f/nope`, { method: "POST", body: "x=1", headers: { Origin: "https://elsewhere.example" } }),
      fetch(`${server.url}/api/leads/submit`, {
        method: "POST",
        body: "{",
        headers: { "Content-Type": "application/json" },
      }),
    ]);
    const ids = answers.map((answer) => answer.headers.get("x-request-id"));
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(ids.length);
    expect(answers.map((answer) => answer.status)).toEqual([200, 404, 200, 403, 400]);
  });

  it("sends one on an answer written before any request could be read (HTTP Node cannot parse)", async () => {
    const { port } = new URL(server.url);
    const reply = await new Promise<string>((resolve, reject) => {
      let text = "";
      const socket = net.connect(Number(port), "127.0.0.1", () => socket.write("GET / HTTP/1.1\r\nBad header\r\n\r\n"));
      socket.on("data", (chunk) => (text += chunk.toString("latin1")));
      socket.on("close", () => resolve(text));
      socket.on("error", reject);
    });
    expect(reply).toMatch(/^HTTP\/1\.1 400 /);
    expect(reply).toMatch(/\r\nX-Request-Id: [0-9a-f-]{36}\r\n/);
  });

  it("prints the start, the stop, Node's warnings and a dependency's console output as JSON too", async () => {
    await until(() => lines().find((line) => line.warning === "DeprecationWarning"), "the process warning");
    await server.stop();
    const messages = lines().map((line) => line.message);
    expect(messages).toContain("a dependency's own warning { detail: 1 }");
    expect(messages).toContain("a process warning (test fixture)");
    expect(messages.some((message) => message.startsWith("Lead Capture listening on http://"))).toBe(true);
    expect(messages).toContain("SIGTERM: finishing requests in flight, then stopping.");
  });
});

describe("behind a trusted proxy, in the default text format", () => {
  let proxied: TestServer;
  beforeAll(async () => {
    proxied = await startServer({ TRUST_PROXY: "true", LOG_REQUESTS: "true" });
  });
  afterAll(async () => {
    await proxied?.stop();
  });

  it("keeps the proxy's well-formed X-Request-Id and replaces a malformed one", async () => {
    const kept = await fetch(`${proxied.url}/healthz?token=${QUERY_TOKEN}`, {
      headers: { "X-Request-Id": "edge-7f3a9c1e.42" },
    });
    expect(kept.headers.get("x-request-id")).toBe("edge-7f3a9c1e.42");
    for (const bad of ["has spaces in it", "x".repeat(129), 'quote"d', "semi;colon"]) {
      const replaced = await fetch(`${proxied.url}/healthz`, { headers: { "X-Request-Id": bad } });
      expect(replaced.headers.get("x-request-id"), bad).toMatch(UUID);
    }
    const reset = await fetch(`${proxied.url}/reset-password/${RESET_TOKEN}`);
    expect(reset.status).toBe(410);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const output = proxied.output();
    expect(output).toMatch(/^GET \/healthz 200 \d+\.\dms$/m);
    expect(output).toMatch(/^GET \/reset-password\/:token 410 \d+\.\dms$/m);
    expect(output).toContain("Lead Capture listening on http://");
    expect(output).not.toContain(QUERY_TOKEN);
    expect(output).not.toContain(RESET_TOKEN);
    expect(output).not.toMatch(/^\{/m);
  });
});
