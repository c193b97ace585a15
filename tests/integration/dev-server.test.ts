// `npm run dev` runs the production server's code (server/) with Vite compiling app/:
// the fast path, the guards and the error shapes are the same while developing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { newForm } from "../support/forms";
import { startServer, type TestServer } from "../support/server";

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ SUBMIT_RATE_LIMIT_PER_MINUTE: "0" }, { dev: true });
});
afterAll(async () => {
  await server?.stop();
});

describe("the development server", () => {
  it("serves pages compiled by Vite, with hot reload", async () => {
    const page = await fetch(`${server.url}/login`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("virtual:remix/inject-hmr-runtime");
    const source = await fetch(`${server.url}/app/root.tsx`);
    expect(source.status).toBe(200);
    expect(source.headers.get("content-type")).toMatch(/javascript/);
  });

  it("takes a lead at the public submit endpoint and stores it", async () => {
    const formId = await newForm({
      name: "Dev",
      fields: [{ key: "email", label: "Email", type: "email", required: true }],
    });
    const response = await fetch(`${server.url}/api/leads/submit`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ formId, data: { email: "dev@example.com" } }),
    });
    expect(response.status).toBe(201);
    // Answered by the fast path: one write with a length, as in production.
    expect(response.headers.get("content-length")).toMatch(/^\d+$/);
    expect(await db.lead.count({ where: { formId } })).toBe(1);
  });

  it("runs the same guards: a cross-site page post, an unknown method", async () => {
    const crossSite = await fetch(`${server.url}/login`, {
      method: "POST",
      headers: { origin: "https://evil.example", "content-type": "application/x-www-form-urlencoded" },
      body: "email=a%40b.c&password=x",
      redirect: "manual",
    });
    expect(crossSite.status).toBe(403);
    const unknown = await fetch(`${server.url}/api/leads`, { method: "PROPFIND" });
    expect(unknown.status).toBe(501);
    expect(await unknown.json()).toEqual({
      error: { code: "not_implemented", message: "PROPFIND is not a method this service implements." },
    });
  });

  it("stops gracefully on SIGTERM", async () => {
    expect(await server.stop()).toBe(0);
  });
});
