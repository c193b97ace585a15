// The configuration checks at start, through the real production server: what starts, and
// how a refusal reads (one line naming the variable, never a stack trace).
import { describe, expect, it } from "vitest";
import { apiClient } from "../support/http";
import { startServer } from "../support/server";

/** The output of a server that must refuse to start. */
async function refusedStart(env: Record<string, string>): Promise<string> {
  const started = await startServer(env).then(
    async (server) => {
      await server.stop();
      return null;
    },
    (error: Error) => error.message,
  );
  expect(started, "the server started").not.toBeNull();
  return started!.replace(/^server exited with \d+ before listening:\n/, "").trim();
}

describe("configuration at start", () => {
  it("starts with a local SMTP relay that has no password (SMTP_URL=smtp://127.0.0.1:25)", async () => {
    const server = await startServer({ SMTP_URL: "smtp://127.0.0.1:25" });
    try {
      expect((await apiClient(server.url)("GET", "/healthz")).status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it("stops on a weak secret with one readable line naming the variable", async () => {
    const output = await refusedStart({ SESSION_SECRET: "changeme".repeat(4) });
    expect(output.split("\n")).toHaveLength(1);
    expect(output).toMatch(
      /^Invalid configuration \(see \.env\.example\): SESSION_SECRET: is a short pattern repeated/,
    );
    expect(output).not.toMatch(/\n\s+at |Error:/);
  });

  it("stops when two secrets share one value, naming the second", async () => {
    const output = await refusedStart({ INBOUND_SECRET: process.env.SUPPORT_API_KEY! });
    expect(output.split("\n")).toHaveLength(1);
    expect(output).toContain("INBOUND_SECRET: must differ from SUPPORT_API_KEY");
  });
});
