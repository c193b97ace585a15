// Personal API tokens: made with a session, shown once, scoped, limited by the role at the
// time of each request, ended by revocation, expiry or disabling the user.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrResetUser } from "~/staff/user.server";
import { db } from "~/storage/db.server";
import { apiClient, ownClientAddress, staffSession, type ApiClient } from "../support/http";
import { startServer, type TestServer } from "../support/server";

const PASSWORD = "api tokens password";
let server: TestServer;

const staff = (email: string, role: "owner" | "admin" | "agent") =>
  staffSession(server.url, { email, password: PASSWORD, role });

const withToken = (token: string): ApiClient => apiClient(server.url, undefined, { Authorization: `Bearer ${token}` });

let owner: Awaited<ReturnType<typeof staff>>;

beforeAll(async () => {
  server = await startServer();
  owner = await staff("owner@tokens.example", "owner");
});
afterAll(async () => {
  await server?.stop();
});

describe("API tokens", () => {
  it("are shown once, act within their scopes, and record their last use", async () => {
    const made = await owner.call("POST", "/api/tokens", { name: "CRM sync", scopes: ["leads:read", "forms:read"] });
    expect(made.status, made.text).toBe(201);
    expect(made.body.token).toMatch(/^lc_[A-Za-z0-9_-]{43}$/);
    expect(made.body).toMatchObject({ name: "CRM sync", scopes: ["forms:read", "leads:read"], lastUsedAt: null });

    const token = withToken(made.body.token);
    expect((await token("GET", "/api/leads")).status).toBe(200);
    expect((await token("GET", "/api/auth/me")).body.user).toMatchObject({ email: "owner@tokens.example" });
    const refused = await token("GET", "/api/leads/export?format=csv");
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: "insufficient_scope", details: [{ message: "leads:export" }] });
    // Staff management needs a login, and tokens cannot make tokens.
    expect((await token("GET", "/api/staff")).status).toBe(403);
    expect((await token("POST", "/api/tokens", { name: "x", scopes: ["leads:read"] })).status).toBe(401);

    const listed = await owner.call("GET", "/api/tokens");
    const item = listed.body.items.find((entry: { id: string }) => entry.id === made.body.id);
    expect(item.lastUsedAt).not.toBeNull();
    expect(JSON.stringify(listed.body)).not.toContain(made.body.token);
    expect(JSON.stringify(await db.apiToken.findMany())).not.toContain(made.body.token);
  });

  it("are never given more than the role allows, and follow the role when it changes", async () => {
    const agent = await staff("agent@tokens.example", "agent");
    const tooMuch = await agent.call("POST", "/api/tokens", { name: "x", scopes: ["leads:read", "leads:export"] });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body.error.details).toEqual([{ path: "scopes", message: "Your role does not allow leads:export." }]);
    const bad = await agent.call("POST", "/api/tokens", {
      name: "",
      scopes: ["root"],
      expiresAt: "2000-01-01T00:00:00Z",
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.map((detail: { path: string }) => detail.path).sort()).toEqual([
      "expiresAt",
      "name",
      "scopes.0",
    ]);

    const admin = await staff("admin@tokens.example", "admin");
    const made = await admin.call("POST", "/api/tokens", { name: "hooks", scopes: ["webhooks:manage"] });
    const token = withToken(made.body.token);
    expect((await token("GET", "/api/webhooks")).status).toBe(200);
    await owner.call("PATCH", `/api/staff/${admin.id}`, { role: "agent" });
    const now = await token("GET", "/api/webhooks");
    expect(now.status).toBe(403);
    expect(now.body.error.code).toBe("forbidden");
  });

  it("stop working when revoked, expired, or when the user is disabled", async () => {
    const revokedToken = (await owner.call("POST", "/api/tokens", { name: "r", scopes: ["leads:read"] })).body;
    expect((await owner.call("DELETE", `/api/tokens/${revokedToken.id}`)).status).toBe(204);
    const refused = await withToken(revokedToken.token)("GET", "/api/leads");
    expect(refused.status).toBe(401);
    expect(refused.headers.get("WWW-Authenticate")).toContain("invalid_token");
    expect((await owner.call("DELETE", "/api/tokens/no-such-token")).status).toBe(404);

    const expiring = (await owner.call("POST", "/api/tokens", { name: "e", scopes: ["leads:read"] })).body;
    await db.apiToken.update({ where: { id: expiring.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await withToken(expiring.token)("GET", "/api/leads")).status).toBe(401);

    const leaving = await staff("leaving@tokens.example", "agent");
    const theirs = (await leaving.call("POST", "/api/tokens", { name: "l", scopes: ["leads:read"] })).body;
    expect((await withToken(theirs.token)("GET", "/api/leads")).status).toBe(200);
    // Another agent can neither see nor revoke it; an owner sees it (never the token itself).
    const other = await staff("other@tokens.example", "agent");
    expect((await other.call("DELETE", `/api/tokens/${theirs.id}`)).status).toBe(404);
    expect((await other.call("GET", `/api/tokens?userId=${leaving.id}`)).status).toBe(403);
    const seen = await owner.call("GET", `/api/tokens?userId=${leaving.id}`);
    expect(seen.body.items.map((item: { id: string }) => item.id)).toEqual([theirs.id]);
    expect(seen.text).not.toContain(theirs.token);
    await owner.call("PATCH", `/api/staff/${leaving.id}`, { disabled: true });
    expect((await withToken(theirs.token)("GET", "/api/leads")).status).toBe(401);
    expect((await db.apiToken.findUnique({ where: { id: theirs.id } }))?.revokedAt).not.toBeNull();

    // An owner revokes a team member's token; revoking again keeps the first time.
    const second = (await other.call("POST", "/api/tokens", { name: "o", scopes: ["leads:read"] })).body;
    expect((await owner.call("DELETE", `/api/tokens/${second.id}`)).status).toBe(204);
    expect((await withToken(second.token)("GET", "/api/leads")).status).toBe(401);
    const first = (await db.apiToken.findUnique({ where: { id: second.id } }))!.revokedAt;
    // An admin may not touch an owner's tokens.
    const admin = await staff("admin2@tokens.example", "admin");
    const owners = (await owner.call("POST", "/api/tokens", { name: "owner's", scopes: ["leads:read"] })).body;
    expect((await admin.call("GET", `/api/tokens?userId=${owner.id}`)).status).toBe(403);
    expect((await admin.call("DELETE", `/api/tokens/${owners.id}`)).status).toBe(404);
    expect((await withToken(owners.token)("GET", "/api/leads")).status).toBe(200);
    expect((await other.call("DELETE", `/api/tokens/${second.id}`)).status).toBe(204);
    expect((await db.apiToken.findUnique({ where: { id: second.id } }))!.revokedAt).toEqual(first);
  });

  it("end when the password is reset from the command line (npm run user:create), as on /account", async () => {
    const resetting = await staff("reset@tokens.example", "agent");
    const token = (await resetting.call("POST", "/api/tokens", { name: "cli", scopes: ["leads:read"] })).body;
    expect((await withToken(token.token)("GET", "/api/leads")).status).toBe(200);
    await createOrResetUser({ email: "reset@tokens.example", password: "a new password from the shell" });
    expect((await withToken(token.token)("GET", "/api/leads")).status).toBe(401);
    expect((await resetting.call("GET", "/api/auth/me")).status).toBe(401);
  });

  it("do not open dashboard pages, and work on the support routes beside the legacy key", async () => {
    const made = (await owner.call("POST", "/api/tokens", { name: "s", scopes: ["support:read"] })).body;
    const page = await fetch(`${server.url}/leads`, {
      headers: { Authorization: `Bearer ${made.token}` },
      redirect: "manual",
    });
    expect(page.status).toBe(302);
    expect(page.headers.get("Location")).toMatch(/^\/login/);
    expect((await withToken(made.token)("GET", "/api/support-requests")).status).toBe(200);
    const reply = await withToken(made.token)("POST", "/api/support-requests/SR-0/replies", { message: "Hi" });
    expect(reply.status).toBe(403);
    expect(reply.body.error.code).toBe("insufficient_scope");
  });
});

describe("the password asked again to make a token (sudo mode)", () => {
  /** Moves the user's sessions' last password entry `minutes` into the past (null: never recorded). */
  const enteredPasswordAgo = (userId: string, minutes: number | null) =>
    db.session.updateMany({
      where: { userId },
      data: { passwordAt: minutes === null ? null : new Date(Date.now() - minutes * 60_000) },
    });

  it("is not asked within 10 minutes of the login", async () => {
    const sudo = await staff("fresh@tokens.example", "agent");
    await enteredPasswordAgo(sudo.id, 9);
    expect((await sudo.call("POST", "/api/tokens", { name: "ok", scopes: ["leads:read"] })).status).toBe(201);
  });

  it("is asked over the API after 10 minutes: 403 without it, 422 when wrong, then 201 and not again for 10 minutes", async () => {
    const sudo = await staff("sudo@tokens.example", "agent");
    for (const minutes of [11, null]) {
      await enteredPasswordAgo(sudo.id, minutes);
      const asked = await sudo.call("POST", "/api/tokens", { name: "later", scopes: ["leads:read"] });
      expect(asked.status).toBe(403);
      expect(asked.body.error).toMatchObject({ code: "password_required", details: [{ path: "password" }] });
    }
    const wrong = await sudo.call("POST", "/api/tokens", { name: "later", scopes: ["leads:read"], password: "nope" });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.details).toEqual([{ path: "password", message: "That is not your password." }]);
    const notText = await sudo.call("POST", "/api/tokens", { name: "later", scopes: ["leads:read"], password: 12 });
    expect(notText.status).toBe(422);

    const made = await sudo.call("POST", "/api/tokens", { name: "later", scopes: ["leads:read"], password: PASSWORD });
    expect(made.status, made.text).toBe(201);
    expect(made.body).not.toHaveProperty("password");
    expect((await sudo.call("POST", "/api/tokens", { name: "again", scopes: ["leads:read"] })).status).toBe(201);
  });

  it("limits wrong passwords like logins: past 10 in the session, 429 with Retry-After in the error shape", async () => {
    const sudo = await staff("guessing@tokens.example", "agent");
    await enteredPasswordAgo(sudo.id, 11);
    const attempt = (password: string) =>
      sudo.call("POST", "/api/tokens", { name: "guess", scopes: ["leads:read"], password });
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => attempt(`guess ${i}`)));
    expect(answers.filter((res) => res.status === 422)).toHaveLength(10);
    const limited = answers.filter((res) => res.status === 429);
    expect(limited).toHaveLength(2);
    expect(limited[0].body.error).toMatchObject({ code: "rate_limited" });
    expect(Number(limited[0].headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await attempt(PASSWORD)).status).toBe(429);
  });

  it("cannot be answered by a token: a token never makes tokens, with a password or without", async () => {
    const sudo = await staff("robot@tokens.example", "agent");
    const made = (await sudo.call("POST", "/api/tokens", { name: "robot", scopes: ["leads:read"] })).body;
    const asToken = await withToken(made.token)("POST", "/api/tokens", {
      name: "child",
      scopes: ["leads:read"],
      password: PASSWORD,
    });
    expect(asToken.status).toBe(401);
    expect(asToken.body.error.code).toBe("unauthorized");
  });

  it("is asked on /account/tokens without JavaScript, after 10 minutes", async () => {
    const sudo = await staff("page-sudo@tokens.example", "owner");
    const post = (fields: Array<[string, string]>) =>
      fetch(`${server.url}/account/tokens`, {
        method: "POST",
        headers: { Cookie: sudo.cookie, Origin: server.url, "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(fields).toString(),
      });
    const fields: Array<[string, string]> = [
      ["intent", "create"],
      ["name", "Page sudo"],
      ["scopes", "leads:read"],
    ];
    const fresh = await (await fetch(`${server.url}/account/tokens`, { headers: { Cookie: sudo.cookie } })).text();
    expect(fresh).not.toContain('name="password"');

    await enteredPasswordAgo(sudo.id, 30);
    const page = await (await fetch(`${server.url}/account/tokens`, { headers: { Cookie: sudo.cookie } })).text();
    expect(page).toContain('name="password"');
    const refused = await post(fields);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('name="password"');
    const wrong = await post([...fields, ["password", "not my password"]]);
    expect(wrong.status).toBe(422);
    expect(await wrong.text()).toContain("That is not your password.");
    const made = await post([...fields, ["password", PASSWORD]]);
    expect(made.status).toBe(200);
    expect(await made.text()).toMatch(/lc_[A-Za-z0-9_-]{43}/);
  });
});

describe("wrong API tokens", () => {
  it("are limited per address: 10 answer 401, the rest 429 with Retry-After; a right token still works there", async () => {
    const right = (await owner.call("POST", "/api/tokens", { name: "right", scopes: ["leads:read"] })).body.token;
    const guarded = await startServer({ TRUST_PROXY: "true" });
    try {
      const address = ownClientAddress();
      const asGuesser = (token: string) =>
        apiClient(guarded.url, undefined, { ...address, Authorization: `Bearer ${token}` })("GET", "/api/leads");
      const answers = await Promise.all(
        Array.from({ length: 60 }, () => asGuesser(`lc_${randomBytes(32).toString("base64url")}`)),
      );
      expect(answers.filter((res) => res.status === 401)).toHaveLength(10);
      const limited = answers.filter((res) => res.status === 429);
      expect(limited).toHaveLength(50);
      expect(limited[0].body.error).toMatchObject({ code: "rate_limited" });
      expect(Number(limited[0].headers.get("retry-after"))).toBeGreaterThan(0);
      // The real caller at the same (shared) address is never locked out.
      expect((await asGuesser(right)).status).toBe(200);
      // Another address is not affected by this one's guesses.
      const elsewhere = apiClient(guarded.url, undefined, { ...ownClientAddress(), Authorization: "Bearer lc_x" });
      expect((await elsewhere("GET", "/api/leads")).status).toBe(401);
    } finally {
      await guarded.stop();
    }
  });
});

describe("/account/tokens", () => {
  const post = (fields: Array<[string, string]>) =>
    fetch(`${server.url}/account/tokens`, {
      method: "POST",
      headers: { Cookie: owner.cookie, Origin: server.url, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });

  it("makes a token without JavaScript, shows it once, lists and revokes it", async () => {
    const created = await post([
      ["intent", "create"],
      ["name", "Page token"],
      ["scopes", "leads:read"],
      ["scopes", "forms:read"],
    ]);
    expect(created.status).toBe(200);
    expect(created.headers.get("Cache-Control")).toContain("no-store");
    const html = await created.text();
    const token = html.match(/lc_[A-Za-z0-9_-]{43}/)?.[0];
    expect(token).toBeDefined();
    expect((await withToken(token!)("GET", "/api/forms")).status).toBe(200);

    const listing = await (await fetch(`${server.url}/account/tokens`, { headers: { Cookie: owner.cookie } })).text();
    expect(listing).toContain("Page token");
    expect(listing).not.toContain(token!);

    const id = (await db.apiToken.findFirst({ where: { name: "Page token" } }))!.id;
    const revoked = await post([
      ["intent", "revoke"],
      ["id", id],
    ]);
    expect(await revoked.text()).toContain("The token was revoked.");
    expect((await withToken(token!)("GET", "/api/forms")).status).toBe(401);
  });
});
