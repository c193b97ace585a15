import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loginAsStaff } from "../support/http";
import { startServer, type TestServer } from "../support/server";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.stop();
});

describe("security headers", () => {
  it("sends a nonce-based CSP, nosniff, a referrer policy and no framing on dashboard pages", async () => {
    const cookie = await loginAsStaff(server.url);
    for (const path of ["/login", "/"]) {
      const res = await fetch(`${server.url}${path}`, { headers: { Cookie: cookie } });
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp).toMatch(/default-src 'self'/);
      expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]{20,}'/);
      expect(csp).toMatch(/frame-ancestors 'none'/);
      expect(csp).toMatch(/object-src 'none'/);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      // Every inline script the page carries has this response's nonce.
      const nonce = csp.match(/'nonce-([^']+)'/)![1];
      const html = await res.text();
      const inlineScripts = html.match(/<script(?![^>]*\bsrc=)[^>]*>/g) ?? [];
      expect(inlineScripts.length).toBeGreaterThan(0);
      for (const tag of inlineScripts) expect(tag).toContain(`nonce="${nonce}"`);
    }
  });

  it("uses a new nonce for every response", async () => {
    const a = (await fetch(`${server.url}/login`)).headers.get("content-security-policy");
    const b = (await fetch(`${server.url}/login`)).headers.get("content-security-policy");
    expect(a).not.toBe(b);
  });

  it("marks API responses and static assets nosniff too", async () => {
    const api = await fetch(`${server.url}/api/auth/me`);
    expect(api.headers.get("x-content-type-options")).toBe("nosniff");
    const html = await (await fetch(`${server.url}/login`)).text();
    const asset = html.match(/href="(\/assets\/[^"]+\.css)"/)![1];
    const css = await fetch(`${server.url}${asset}`);
    expect(css.status).toBe(200);
    expect(css.headers.get("x-content-type-options")).toBe("nosniff");
    expect(css.headers.get("cache-control")).toContain("immutable");
  });
});
