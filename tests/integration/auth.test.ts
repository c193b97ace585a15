import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STAFF, apiClient, cookieFrom, loginAsStaff, ownClientAddress } from "../support/http";
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

  it("never redirects off-site after login, whatever redirectTo holds", async () => {
    await loginAsStaff(server.url);
    const hostile = [
      "//evil.example/",
      "/\t/evil.example",
      "/\n/",
      "/\\evil.example",
      "https://evil.example/",
      "/%0a/x\r",
      "javascript:alert(1)",
      "/\u0000/x",
    ];
    for (const redirectTo of hostile) {
      const res = await fetch(`${server.url}/login`, {
        method: "POST",
        body: new URLSearchParams({ email: STAFF.email, password: STAFF.password, redirectTo }),
        redirect: "manual",
      });
      expect(res.status, redirectTo).toBe(302);
      expect(res.headers.get("location"), redirectTo).toBe("/");
    }
    const own = await fetch(`${server.url}/login`, {
      method: "POST",
      body: new URLSearchParams({ email: STAFF.email, password: STAFF.password, redirectTo: "/leads?formId=a b#top" }),
      redirect: "manual",
    });
    expect(own.headers.get("location")).toBe("/leads?formId=a%20b#top");
  });

  // Dot segments and encodings that the URL parser turns into `//evil.com` (another host).
  const DOT_SEGMENT_REDIRECTS = [
    "/.//evil.com",
    "/..//evil.com",
    "/%2e%2e//evil.com",
    "/%2E%2E//evil.com",
    "/x/..//evil.com",
    "/./..//evil.com/path?q=1",
    "/%2F%2Fevil.com",
    "/%5Cevil.com",
    "/.%2e//evil.com",
  ];

  it("never redirects to another host through dot segments, on GET or POST /login, logged in or not", async () => {
    const cookie = await loginAsStaff(server.url);
    for (const redirectTo of DOT_SEGMENT_REDIRECTS) {
      const query = `?${new URLSearchParams({ redirectTo })}`;
      const loggedInGet = await fetch(`${server.url}/login${query}`, {
        headers: { Cookie: cookie },
        redirect: "manual",
      });
      expect(loggedInGet.status, redirectTo).toBe(302);
      expect(loggedInGet.headers.get("location"), redirectTo).toBe("/");

      // Not logged in: the form carries the dashboard, not the hostile target.
      const page = await fetch(`${server.url}/login${query}`);
      expect(page.status, redirectTo).toBe(200);
      expect(await page.text(), redirectTo).toContain('name="redirectTo" value="/"');

      for (const headers of [{}, { Cookie: cookie }] as Array<Record<string, string>>) {
        const posted = await fetch(`${server.url}/login`, {
          method: "POST",
          headers,
          body: new URLSearchParams({ email: STAFF.email, password: STAFF.password, redirectTo }),
          redirect: "manual",
        });
        expect(posted.status, redirectTo).toBe(302);
        expect(posted.headers.get("location"), redirectTo).toBe("/");
      }
    }
  });

  it("still follows a same-site path after removing its dot segments", async () => {
    await loginAsStaff(server.url);
    const res = await fetch(`${server.url}/login`, {
      method: "POST",
      body: new URLSearchParams({ email: STAFF.email, password: STAFF.password, redirectTo: "/forms/./x/../new?a=1" }),
      redirect: "manual",
    });
    expect(res.headers.get("location")).toBe("/forms/new?a=1");
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
  // TRUST_PROXY=true and one X-Forwarded-For entry stand in for callers at different addresses.
  const from = (ip: string) => ({ "X-Forwarded-For": ip });

  it("slows an attacked account with a growing wait for failing addresses, while the real user at a clean address gets in", async () => {
    const limited = await startServer({ TRUST_PROXY: "true" });
    try {
      const victim = { email: "victim@example.com", password: "the right password 123" };
      await loginAsStaff(limited.url, victim);
      const call = apiClient(limited.url);
      const attacker = from("203.0.113.7");
      // Five failures are free; the sixth starts a wait of 2 s for addresses that failed.
      for (let i = 0; i < 6; i++) {
        const res = await call("POST", "/api/auth/login", { email: victim.email, password: `wrong ${i}` }, attacker);
        expect(res.status).toBe(401);
      }
      const held = await call("POST", "/api/auth/login", victim, attacker);
      expect(held.status).toBe(429);
      expectErrorShape(held.body, "rate_limited");
      expect(Number(held.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(Number(held.headers.get("retry-after"))).toBeLessThanOrEqual(2);

      // The wait doubles with the next failure.
      await new Promise((resolve) => setTimeout(resolve, 2_100));
      const seventh = await call("POST", "/api/auth/login", { email: victim.email, password: "wrong 6" }, attacker);
      expect(seventh.status).toBe(401);
      const longer = await call("POST", "/api/auth/login", victim, attacker);
      expect(longer.status).toBe(429);
      expect(Number(longer.headers.get("retry-after"))).toBeGreaterThan(2);
      expect(Number(longer.headers.get("retry-after"))).toBeLessThanOrEqual(4);

      // Meanwhile the real admin, from an address with no failure on record, logs in.
      const admin = await call("POST", "/api/auth/login", victim, from("198.51.100.20"));
      expect(admin.status).toBe(200);
      expect(admin.body.user.email).toBe(victim.email);
    } finally {
      await limited.stop();
    }
  });

  it("evaluates at most 10 of 200 wrong passwords sent at once from one address", async () => {
    const limited = await startServer({ TRUST_PROXY: "true" });
    try {
      const target = { email: "parallel@example.com", password: "the right password 123" };
      const address = ownClientAddress();
      await loginAsStaff(limited.url, target, address);
      const call = apiClient(limited.url, undefined, address);
      const answers = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          call("POST", "/api/auth/login", { email: target.email, password: `guess ${i}` }),
        ),
      );
      const statuses = answers.map((answer) => answer.status);
      // A point is taken before the slow hash: only 10 guesses were ever checked.
      expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(10);
      expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(190);
      expect(statuses.every((status) => status === 401 || status === 429)).toBe(true);
    } finally {
      await limited.stop();
    }
  });

  it("blocks a client address after 10 failures, whichever emails it tries", async () => {
    const limited = await startServer({ TRUST_PROXY: "true" });
    const call = apiClient(limited.url, undefined, ownClientAddress());
    for (let i = 0; i < 10; i++) {
      const res = await call("POST", "/api/auth/login", { email: `guess${i}@example.com`, password: "guess" });
      expect(res.status).toBe(401);
    }
    const blocked = await call("POST", "/api/auth/login", { email: "other@example.com", password: "guess" });
    expect(blocked.status).toBe(429);
    const retryAfter = Number(blocked.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    await limited.stop();
  });

  it("never slows down successful logins: a right password gives its point back", async () => {
    const limited = await startServer({ TRUST_PROXY: "true" });
    try {
      const address = ownClientAddress();
      await loginAsStaff(limited.url, STAFF, address);
      for (let i = 0; i < 15; i++) {
        expect((await apiClient(limited.url, undefined, address)("POST", "/api/auth/login", STAFF)).status).toBe(200);
      }
    } finally {
      await limited.stop();
    }
  });
});

describe("password hashes", () => {
  it("upgrades an older scrypt hash to argon2id at the next successful login", async () => {
    const { randomBytes, scryptSync } = await import("node:crypto");
    const { db } = await import("~/storage/db.server");
    const password = "an old password 123";
    const salt = randomBytes(16);
    const N = 2 ** 15;
    const legacy = [
      "scrypt",
      N,
      8,
      1,
      salt.toString("base64"),
      scryptSync(password, salt, 32, { N, r: 8, p: 1, maxmem: 256 * N * 8 }).toString("base64"),
    ].join("$");
    await db.user.create({ data: { email: "legacy@example.com", passwordHash: legacy } });

    const wrong = await apiClient(server.url)("POST", "/api/auth/login", {
      email: "legacy@example.com",
      password: "not it",
    });
    expect(wrong.status).toBe(401);
    expect((await db.user.findUniqueOrThrow({ where: { email: "legacy@example.com" } })).passwordHash).toBe(legacy);

    const right = await apiClient(server.url)("POST", "/api/auth/login", { email: "legacy@example.com", password });
    expect(right.status).toBe(200);
    const upgraded = (await db.user.findUniqueOrThrow({ where: { email: "legacy@example.com" } })).passwordHash;
    expect(upgraded).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
    expect(
      (await apiClient(server.url)("POST", "/api/auth/login", { email: "legacy@example.com", password })).status,
    ).toBe(200);
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

  it("answers a page post whose Origin Remix would refuse with our 403, never Remix's 500", async () => {
    const { port } = new URL(server.url);
    const own = `http://127.0.0.1:${port}`;
    const cases: Array<Record<string, string>> = [
      { origin: "" },
      { origin: "not a url" },
      { origin: own, "x-forwarded-host": "evil.example" },
      { origin: "http://127.0.0.1", host: "127.0.0.1:80" },
    ];
    for (const headers of cases) {
      const status = await new Promise<number>((resolve, reject) => {
        const req = http.request(
          {
            host: "127.0.0.1",
            port,
            method: "POST",
            path: "/login",
            headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
          },
          (res) => {
            res.resume();
            res.on("end", () => resolve(res.statusCode ?? 0));
          },
        );
        req.on("error", reject);
        req.end("email=a%40b.example&password=x");
      });
      expect(status, JSON.stringify(headers)).toBe(403);
    }
    expect(server.output()).not.toMatch(/Invalid URL|does not match `origin`/);
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
