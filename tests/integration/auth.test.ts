import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STAFF, apiClient, cookieFrom, loginAsStaff } from "../support/http";
import { startServer, type TestServer } from "../support/server";

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.stop();
});

function expectErrorShape(body: any, code: string) {
  expect(body).toEqual({ error: expect.objectContaining({ code, message: expect.any(String) }) });
}

describe("staff authentication", () => {
  it("answers an API call without a session with 401 JSON", async () => {
    const res = await apiClient(server.url)("GET", "/api/auth/me");
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    expectErrorShape(res.body, "unauthorized");
  });

  it("redirects a dashboard page without a session to the login page, remembering where it was going", async () => {
    const res = await fetch(`${server.url}/?tab=recent`, { redirect: "manual" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/login?redirectTo=%2F%3Ftab%3Drecent");
  });

  it("logs in over JSON with an HttpOnly, SameSite=Lax session cookie that /api/auth/me accepts", async () => {
    await loginAsStaff(server.url);
    const res = await fetch(`${server.url}/api/auth/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: STAFF.email.toUpperCase(), password: STAFF.password }),
    });
    expect(res.status).toBe(200);
    const setCookie = res.headers.get("set-cookie")!;
    expect(setCookie).toMatch(/^__session=/);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    expect(setCookie).not.toMatch(/Secure/i); // plain-http local server
    const me = await apiClient(server.url, cookieFrom(res))("GET", "/api/auth/me");
    expect(me.status).toBe(200);
    expect(me.body.user.email).toBe(STAFF.email);
  });

  it("refuses a wrong password with 401 and sets no cookie", async () => {
    await loginAsStaff(server.url);
    const res = await apiClient(server.url)("POST", "/api/auth/login", {
      email: STAFF.email,
      password: "wrong password",
    });
    expect(res.status).toBe(401);
    expectErrorShape(res.body, "invalid_credentials");
    expect(res.headers.get("set-cookie")).toBeNull();
  });

  it("refuses a tampered session cookie", async () => {
    const cookie = await loginAsStaff(server.url);
    const tampered = cookie.replace(/\.[^.;]+/, ".AAAA");
    const res = await apiClient(server.url, tampered)("GET", "/api/auth/me");
    expect(res.status).toBe(401);
  });

  it("logs in through the HTML form and redirects to the page asked for", async () => {
    await loginAsStaff(server.url);
    const res = await fetch(`${server.url}/login`, {
      method: "POST",
      body: new URLSearchParams({ email: STAFF.email, password: STAFF.password, redirectTo: "/leads" }),
      redirect: "manual",
    });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/leads");
    expect(res.headers.get("set-cookie")).toMatch(/^__session=/);
  });

  it("never redirects off-site after login", async () => {
    await loginAsStaff(server.url);
    const res = await fetch(`${server.url}/login`, {
      method: "POST",
      body: new URLSearchParams({ email: STAFF.email, password: STAFF.password, redirectTo: "//evil.example/" }),
      redirect: "manual",
    });
    expect(res.headers.get("location")).toBe("/");
  });

  it("refuses malformed JSON with 400 and another content type with 415", async () => {
    const call = apiClient(server.url);
    const malformed = await call("POST", "/api/auth/login", "{not json", { "Content-Type": "application/json" });
    expect(malformed.status).toBe(400);
    expectErrorShape(malformed.body, "malformed_json");
    const wrongType = await call("POST", "/api/auth/login", "email=a", { "Content-Type": "text/plain" });
    expect(wrongType.status).toBe(415);
    expectErrorShape(wrongType.body, "unsupported_media_type");
  });

  it("names the bad field when the login body is invalid", async () => {
    const res = await apiClient(server.url)("POST", "/api/auth/login", { email: "not-an-email" });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("validation_failed");
    const paths = res.body.error.details.map((detail: { path: string }) => detail.path);
    expect(paths).toEqual(expect.arrayContaining(["email", "password"]));
  });

  it("refuses a cross-site POST that carries the session cookie with 403", async () => {
    const cookie = await loginAsStaff(server.url);
    const res = await apiClient(server.url, cookie)("POST", "/api/auth/logout", undefined, {
      Origin: "https://evil.example",
    });
    expect(res.status).toBe(403);
    expectErrorShape(res.body, "forbidden");
    const sameSite = await apiClient(server.url, cookie)("POST", "/api/auth/logout", undefined, {
      Origin: server.url,
    });
    expect(sameSite.status).toBe(204);
    expect(sameSite.headers.get("set-cookie")).toMatch(/__session=;.*Expires=Thu, 01 Jan 1970/i);
  });

  it("answers unknown /api paths with 404 JSON, not an HTML page", async () => {
    const res = await apiClient(server.url)("GET", "/api/does-not-exist");
    expect(res.status).toBe(404);
    expectErrorShape(res.body, "not_found");
    const post = await apiClient(server.url)("POST", "/api/does/not/exist", { a: 1 });
    expect(post.status).toBe(404);
  });

  it("reports health when the database answers", async () => {
    const res = await apiClient(server.url)("GET", "/healthz");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok" });
  });
});

describe("login rate limit", () => {
  it("blocks an email after 10 failures in 15 minutes with 429 and Retry-After, even with the right password", async () => {
    // A server of its own: the other tests' failures from this address must not count.
    const limited = await startServer();
    const victim = { email: "victim@example.com", password: "the right password 123" };
    await loginAsStaff(limited.url, victim);
    const call = apiClient(limited.url);
    for (let i = 0; i < 10; i++) {
      const res = await call("POST", "/api/auth/login", { email: victim.email, password: `wrong ${i}` });
      expect(res.status).toBe(401);
    }
    const blocked = await call("POST", "/api/auth/login", victim);
    expect(blocked.status).toBe(429);
    expectErrorShape(blocked.body, "rate_limited");
    const retryAfter = Number(blocked.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    await limited.stop();
  });

  it("blocks a client address after 10 failures, whichever emails it tries", async () => {
    const limited = await startServer();
    const call = apiClient(limited.url);
    for (let i = 0; i < 10; i++) {
      const res = await call("POST", "/api/auth/login", { email: `guess${i}@example.com`, password: "guess" });
      expect(res.status).toBe(401);
    }
    const blocked = await call("POST", "/api/auth/login", { email: "other@example.com", password: "guess" });
    expect(blocked.status).toBe(429);
    await limited.stop();
  });
});

describe("session cookie in production behind https", () => {
  it("is marked Secure", async () => {
    const secure = await startServer({ APP_URL: "https://leads.example.com" });
    try {
      await loginAsStaff(secure.url).catch(() => undefined);
      const res = await fetch(`${secure.url}/api/auth/login`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(STAFF),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("set-cookie")).toMatch(/;\s*Secure/i);
    } finally {
      await secure.stop();
    }
  });
});

describe("page form posts", () => {
  it("refuses a cross-site post to a page action with 403 instead of running it", async () => {
    const res = await fetch(`${server.url}/login`, {
      method: "POST",
      headers: { Origin: "https://evil.example", "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: STAFF.email, password: STAFF.password }),
      redirect: "manual",
    });
    expect(res.status).toBe(403);
    expect(res.headers.get("set-cookie")).toBeNull();
  });

  it("refuses a page post that is not form data with 415, and broken form data with 400", async () => {
    const json = await fetch(`${server.url}/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: STAFF.email }),
    });
    expect(json.status).toBe(415);
    const broken = await fetch(`${server.url}/login`, {
      method: "POST",
      headers: { "Content-Type": "multipart/form-data; boundary=nope" },
      body: "--other\r\nnot a part",
    });
    expect(broken.status).toBe(400);
  });

  it("closes the connection after refusing a body it did not read, so a reusing client does not hang", async () => {
    const res = await fetch(`${server.url}/api/auth/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: "a@b.c", password: "x".repeat(200 * 1024) }),
    });
    expect(res.status).toBe(413);
    expect(res.headers.get("connection")).toBe("close");
    const next = await fetch(`${server.url}/healthz`);
    expect(next.status).toBe(200);
  });
});

describe("malformed addresses", () => {
  it("answers a path with broken percent-encoding with 400, JSON under /api", async () => {
    const api = await fetch(`${server.url}/api/forms/%ff`);
    expect(api.status).toBe(400);
    expect(((await api.json()) as { error: { code: string } }).error.code).toBe("bad_request");
    const page = await fetch(`${server.url}/leads/%E2%82`);
    expect(page.status).toBe(400);
  });
});
