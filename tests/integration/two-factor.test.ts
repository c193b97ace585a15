// Two-factor sign-in (issue 34, docs/api/auth.md#two-factor): setup, enable, sign-in with a
// TOTP code or a recovery code, and the abuse cases: a replayed code, a recovery code used
// twice, 20 wrong codes in parallel. Everything through the production server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrResetUser } from "~/staff/user.server";
import { db } from "~/storage/db.server";
import { apiClient, cookieFrom, ownClientAddress, postForm, staffSession } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import { codeAt, userWithTwoFactor } from "../support/two-factor";

const PASSWORD = "two factor password";
let server: TestServer;

beforeAll(async () => {
  // TRUST_PROXY and one X-Forwarded-For address per sign-in: the per-address login limit
  // stays out of the way, so what limits codes here is the per-account code limit.
  server = await startServer({ TRUST_PROXY: "true" });
});
afterAll(async () => {
  await server?.stop();
});

async function login(email: string, extra: Record<string, string> = {}, password = PASSWORD) {
  const res = await fetch(`${server.url}/api/auth/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...ownClientAddress() },
    body: JSON.stringify({ email, password, ...extra }),
  });
  return { status: res.status, body: await res.json(), cookie: res.status === 200 ? cookieFrom(res) : "" };
}

/** A user with two-factor on: their secret and recovery codes. */
const withTwoFactor = (email: string) =>
  userWithTwoFactor(server.url, { email, password: PASSWORD, role: "agent" }, ownClientAddress());

async function auditCount(action: string, userId: string) {
  return db.auditEntry.count({ where: { action, target: `user:${userId}` } });
}

describe("two-factor sign-in", () => {
  it("is set up with a QR code and a first code, keeps the secret sealed, and is audited", async () => {
    const staff = await staffSession(
      server.url,
      { email: "setup@2fa.example", password: PASSWORD, role: "agent" },
      ownClientAddress(),
    );
    const setup = await staff.call("POST", "/api/auth/2fa/setup");
    expect(setup.status, setup.text).toBe(200);
    expect(setup.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(setup.body.otpauthUri).toMatch(/^otpauth:\/\/totp\/Lead%20Capture:setup%402fa\.example\?/);
    expect(setup.body.otpauthUri).toContain(`secret=${setup.body.secret}`);
    expect(setup.body.qrSvg).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
    const stored = await db.user.findUniqueOrThrow({ where: { id: staff.id } });
    expect(stored.totpSecret).not.toContain(setup.body.secret);
    expect(stored.totpEnabledAt).toBeNull();

    const wrong = await staff.call("POST", "/api/auth/2fa/enable", { code: "12345" });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.details).toEqual([{ path: "code", message: expect.any(String) }]);
    const bad = await staff.call("POST", "/api/auth/2fa/enable", { code: 123456 });
    expect(bad.status).toBe(422);

    const enabled = await staff.call("POST", "/api/auth/2fa/enable", { code: codeAt(setup.body.secret) });
    expect(enabled.status, enabled.text).toBe(200);
    expect(enabled.body.recoveryCodes).toHaveLength(10);
    expect(new Set(enabled.body.recoveryCodes).size).toBe(10);
    const hashes = JSON.stringify(await db.recoveryCode.findMany({ where: { userId: staff.id } }));
    for (const code of enabled.body.recoveryCodes) expect(hashes).not.toContain(code);
    expect(await auditCount("two_factor.enable", staff.id)).toBe(1);
    // Set up twice: refused, and the secret is never shown again.
    expect((await staff.call("POST", "/api/auth/2fa/setup")).status).toBe(409);
    expect((await staff.call("GET", "/api/auth/me")).text).not.toContain(setup.body.secret);
  });

  it("asks for the code after the right password only, and signs in with a current code once", async () => {
    const user = await withTwoFactor("signin@2fa.example");
    const noCode = await login("signin@2fa.example");
    expect(noCode.status).toBe(401);
    expect(noCode.body.error.code).toBe("second_factor_required");
    expect(noCode.cookie).toBe("");
    // A wrong password says only that, for an account with two-factor or none at all.
    const wrongPassword = await login("signin@2fa.example", { code: codeAt(user.secret, 1) }, "wrong password");
    expect(wrongPassword.body.error.code).toBe("invalid_credentials");
    expect((await login("nobody@2fa.example", {}, "wrong password")).body).toEqual(wrongPassword.body);

    const code = codeAt(user.secret, 1);
    const signedIn = await login("signin@2fa.example", { code });
    expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
    const me = await apiClient(server.url, signedIn.cookie)("GET", "/api/auth/me");
    expect(me.body.user.email).toBe("signin@2fa.example");

    // The replayed code is refused, and gives no session.
    const replayed = await login("signin@2fa.example", { code });
    expect(replayed.status).toBe(401);
    expect(replayed.body.error.code).toBe("invalid_second_factor");
    expect(replayed.cookie).toBe("");
  });

  it("takes each recovery code once, audits its use, and replaces them on request", async () => {
    const user = await withTwoFactor("recovery@2fa.example");
    const [first, second] = user.recoveryCodes;
    const used = await login("recovery@2fa.example", { code: first!.toUpperCase() });
    expect(used.status, JSON.stringify(used.body)).toBe(200);
    const again = await login("recovery@2fa.example", { code: first! });
    expect(again.status).toBe(401);
    expect(again.body.error.code).toBe("invalid_second_factor");
    expect(await auditCount("two_factor.recovery_used", user.id)).toBe(1);

    const wrongPassword = await user.call("POST", "/api/auth/2fa/recovery-codes", { password: "nope" });
    expect(wrongPassword.status).toBe(422);
    const fresh = await user.call("POST", "/api/auth/2fa/recovery-codes", { password: PASSWORD });
    expect(fresh.status, fresh.text).toBe(200);
    expect(fresh.body.recoveryCodes).toHaveLength(10);
    expect(await auditCount("two_factor.recovery_regenerate", user.id)).toBe(1);
    // The old codes are gone.
    expect((await login("recovery@2fa.example", { code: second! })).status).toBe(401);
    expect((await login("recovery@2fa.example", { code: fresh.body.recoveryCodes[0] })).status).toBe(200);
  });

  it("counts 20 parallel wrong codes like wrong passwords: at most 10 are checked, then even a right one waits", async () => {
    const user = await withTwoFactor("flood@2fa.example");
    const right = codeAt(user.secret, 1);
    const wrongCode = right === "000000" ? "111111" : "000000";
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => login("flood@2fa.example", { code: wrongCode })),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.every((status) => status === 401 || status === 429)).toBe(true);
    expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(10);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(10);
    expect(answers.every((answer) => answer.cookie === "")).toBe(true);
    expect((await login("flood@2fa.example", { code: right })).status).toBe(429);
  });

  it("is turned off only with the password, and then the password alone signs in again", async () => {
    const user = await withTwoFactor("off@2fa.example");
    const wrong = await user.call("POST", "/api/auth/2fa/disable", { password: "not it" });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.details).toEqual([{ path: "password", message: "That is not your password." }]);
    expect((await user.call("POST", "/api/auth/2fa/disable", {})).status).toBe(422);
    const off = await user.call("POST", "/api/auth/2fa/disable", { password: PASSWORD });
    expect(off.status, off.text).toBe(200);
    expect(await auditCount("two_factor.disable", user.id)).toBe(1);
    expect(await db.recoveryCode.count({ where: { userId: user.id } })).toBe(0);
    expect((await login("off@2fa.example")).status).toBe(200);
  });

  it("needs a session: no API token and no stranger sets it up", async () => {
    await createOrResetUser({ email: "token@2fa.example", password: PASSWORD, role: "agent" });
    const anonymous = apiClient(server.url);
    for (const path of ["setup", "enable", "disable", "recovery-codes"]) {
      const res = await anonymous("POST", `/api/auth/2fa/${path}`, {});
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe("unauthorized");
    }
  });
});

describe("the /login page's second step", () => {
  const headers = () => ({ Origin: server.url, ...ownClientAddress() });

  it("keeps a signed pending sign-in naming the user, never the password, and refuses a code without one", async () => {
    const user = await withTwoFactor("page@2fa.example");
    const first = await postForm(
      `${server.url}/login`,
      { email: "page@2fa.example", password: PASSWORD, redirectTo: "/leads" },
      headers(),
    );
    expect(first.status).toBe(200);
    expect(first.html).toMatch(
      /<input[^>]*name="code"[^>]*autoComplete="one-time-code"|autocomplete="one-time-code"[^>]*name="code"/i,
    );
    expect(first.html).not.toContain(PASSWORD);
    const pending = cookieFrom(first.response);
    expect(pending).toMatch(/sign-in=/);
    expect(pending).not.toContain("session=");
    expect(decodeURIComponent(pending)).not.toContain(PASSWORD);

    // Without the pending sign-in (or with it forged), a code opens nothing.
    const code = codeAt(user.secret, 1);
    const forged = pending.replace(/sign-in=([^.;]*)/, (_, value: string) => `sign-in=${value}x`);
    for (const cookie of [undefined, forged]) {
      const refused = await postForm(
        `${server.url}/login`,
        { intent: "code", code },
        { ...headers(), ...(cookie ? { Cookie: cookie } : {}) },
      );
      expect(refused.status).toBe(401);
      expect(refused.html).toContain("Your sign-in took too long");
    }
    const signedIn = await postForm(
      `${server.url}/login`,
      { intent: "code", code, redirectTo: "/leads" },
      { ...headers(), Cookie: pending },
    );
    expect(signedIn.status).toBe(302);
    expect(signedIn.location).toBe("/leads");
    expect(cookieFrom(signedIn.response)).toMatch(/session=/);
  });
});

describe("requiring two-factor for the team", () => {
  it("sends a user without it to set it up, refuses their tokens unless allowed, and only owners with it decide", async () => {
    const owner = await userWithTwoFactor(
      server.url,
      { email: "owner@2fa-rules.example", password: PASSWORD, role: "owner" },
      ownClientAddress(),
    );
    const agent = await staffSession(
      server.url,
      { email: "agent@2fa-rules.example", password: PASSWORD, role: "agent" },
      ownClientAddress(),
    );
    const token = (await agent.call("POST", "/api/tokens", { name: "script", scopes: ["leads:read"] })).body.token;
    const withToken = apiClient(server.url, undefined, { Authorization: `Bearer ${token}` });
    const plainOwner = await staffSession(
      server.url,
      { email: "plain-owner@2fa-rules.example", password: PASSWORD, role: "owner" },
      ownClientAddress(),
    );
    expect((await agent.call("PATCH", "/api/settings/security", { requireTwoFactor: true })).status).toBe(403);
    const selfLock = await plainOwner.call("PATCH", "/api/settings/security", { requireTwoFactor: true });
    expect(selfLock.status).toBe(422);
    expect(selfLock.body.error.details).toEqual([{ path: "requireTwoFactor", message: expect.any(String) }]);
    expect((await owner.call("PATCH", "/api/settings/security", { requireTwoFactor: "yes" })).status).toBe(422);
    try {
      const on = await owner.call("PATCH", "/api/settings/security", { requireTwoFactor: true });
      expect(on.status, on.text).toBe(200);
      expect(on.body).toEqual({ requireTwoFactor: true, tokensWithoutTwoFactor: false, requireSso: false });
      expect(await db.auditEntry.count({ where: { action: "security.update", actorId: owner.id } })).toBe(1);

      const refused = await agent.call("GET", "/api/leads");
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe("two_factor_required");
      // The support API, which also takes the support API key, refuses the session alike.
      const support = await agent.call("GET", "/api/support-requests");
      expect(support.status, support.text).toBe(403);
      expect(support.body.error.code).toBe("two_factor_required");
      const pageVisit = await fetch(`${server.url}/leads`, { headers: { Cookie: agent.cookie }, redirect: "manual" });
      expect(pageVisit.status).toBe(302);
      expect(pageVisit.headers.get("location")).toBe("/account/security?required=1");
      const setupPage = await fetch(`${server.url}/account/security`, { headers: { Cookie: agent.cookie } });
      expect(setupPage.status).toBe(200);
      expect((await agent.call("GET", "/api/auth/me")).status).toBe(200);
      expect((await withToken("GET", "/api/leads")).status).toBe(403);
      expect((await owner.call("GET", "/api/leads")).status).toBe(200);

      await owner.call("PATCH", "/api/settings/security", { tokensWithoutTwoFactor: true });
      expect((await withToken("GET", "/api/leads")).status).toBe(200);

      const setup = await agent.call("POST", "/api/auth/2fa/setup");
      expect((await agent.call("POST", "/api/auth/2fa/enable", { code: codeAt(setup.body.secret) })).status).toBe(200);
      expect((await agent.call("GET", "/api/leads")).status).toBe(200);
      expect((await agent.call("GET", "/api/support-requests")).status).toBe(200);
    } finally {
      await db.securityPolicy.deleteMany();
    }
  });
});
