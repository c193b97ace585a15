// A worker thread that cannot start (a broken deploy, a missing file) must not end the
// server: piscina reports it as an 'error' event, which unhandled would crash the process.
// The email is refused with an error the provider retries, and every other route serves on.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../support/http";
import { preloadInto, startServer, type TestServer } from "../support/server";
import { inboundSecret } from "../support/support-desk";

let server: TestServer;

beforeAll(async () => {
  server = await startServer({
    NODE_OPTIONS: preloadInto("tests/fixtures/fail-in-worker.ts"),
  });
});
afterAll(async () => {
  await server?.stop();
});

describe("inbound email when its worker threads cannot start", () => {
  it("answers the provider with a retryable error and keeps serving", { timeout: 60_000 }, async () => {
    const call = apiClient(server.url);
    const inbound = await call(
      "POST",
      "/api/support-requests/inbound",
      { from: "someone@example.com", subject: "Hello", text: "Is anyone there?" },
      inboundSecret(),
    );
    expect(inbound.status).toBeGreaterThanOrEqual(500);
    expect(inbound.body.error.code).toBeTypeOf("string");
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(server.process.exitCode).toBeNull();
    expect(server.output()).toContain("an inbound email worker failed");
  });
});
