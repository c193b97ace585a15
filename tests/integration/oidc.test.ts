// Single sign-on with OpenID Connect (issue 34 item 4, docs/api/auth.md#single-sign-on) against a
// real provider (oidc-provider over https, trusted through NODE_EXTRA_CA_CERTS), and the abuse
// cases: a wrong state, a reused code, a code and an ID token for another client, an unverified
// email, an unknown domain, a disabled user; and owners requiring it for everybody else.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrResetUser } from "~/staff/user.server";
import { db } from "~/storage/db.server";
import { apiClient, cookieFrom, logIn, ownClientAddress, postForm, staffSession } from "../support/http";
import {
  freePort,
  OTHER_CLIENT_ID,
  signInAtProvider,
  startOidcProvider,
  type TestProvider,
} from "../support/oidc-provider";
import { SoftwareAuthenticator, startPasskeyServer } from "../support/passkeys";
import { startServer, type TestServer } from "../support/server";

const PASSWORD = "single sign-on password";
let provider: TestProvider;
let server: TestServer;
let appUrl: string;

beforeAll(async () => {
  // The redirect URI (APP_URL + /auth/oidc/callback) is registered before the app starts.
  const port = await freePort();
  appUrl = `http://127.0.0.1:${port}`;
  provider = await startOidcProvider(appUrl);
  server = await startServer({
    ...provider.env({ OIDC_ALLOWED_DOMAINS: "allowed.example, @second.example" }),
    PORT: String(port),
    APP_URL: appUrl,
    TRUST_PROXY: "true",
  });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await provider?.stop();
});

/** GET /auth/oidc as a browser: where it is sent, and the flow's cookie. */
async function start(query = "") {
  const response = await fetch(`${appUrl}/auth/oidc${query}`, { redirect: "manual" });
  return {
    status: response.status,
    location: response.headers.get("location") ?? "",
    cookie: cookieFrom(response),
    response,
  };
}

/** The browser coming back to the callback with `cookie`: the answer, its page and any session. */
async function callback(url: string, cookie: string) {
  const response = await fetch(url, { headers: { Cookie: cookie }, redirect: "manual" });
  const session = response.headers.getSetCookie().find((set) => /^__session=[^;]+/.test(set));
  return {
    status: response.status,
    location: response.headers.get("location"),
    html: await response.text(),
    session: session ? session.split(";")[0]! : "",
  };
}

/** A whole sign-in as `accountId` at the provider; `tamper` may change the authorization URL first. */
async function ssoSignIn(accountId: string, { query = "", tamper = (url: string) => url } = {}) {
  const started = await start(query);
  expect(started.status, started.location).toBe(302);
  const back = await signInAtProvider(provider, tamper(started.location), accountId);
  return { ...(await callback(back, started.cookie)), back, flowCookie: started.cookie };
}

const refusals = (reason: string) =>
  db.auditEntry.count({ where: { action: "session.sso_refused", details: { contains: `"reason":"${reason}"` } } });

async function staffUser(email: string, role: "owner" | "admin" | "agent" = "agent") {
  return (await createOrResetUser({ email, password: PASSWORD, role })).user;
}

describe("single sign-on", () => {
  it("offers the button on /login, a plain link that works without JavaScript", async () => {
    const html = await (await fetch(`${appUrl}/login?redirectTo=%2Fleads`)).text();
    expect(html).toContain('href="/auth/oidc?redirectTo=%2Fleads"');
    expect(html).toContain("Sign in with <!-- -->Test Provider");
  });

  it("starts the code flow with PKCE S256, state and nonce, remembered in a signed HttpOnly cookie", async () => {
    const started = await start();
    const url = new URL(started.location);
    expect(url.origin).toBe(provider.issuer);
    expect(url.searchParams.get("response_type")).toBe("code");
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("code_challenge")).toMatch(/^[\w-]{43}$/);
    expect(url.searchParams.get("state")).toMatch(/^[\w-]{20,}$/);
    expect(url.searchParams.get("nonce")).toMatch(/^[\w-]{20,}$/);
    expect(url.searchParams.get("redirect_uri")).toBe(`${appUrl}/auth/oidc/callback`);
    const setCookie = started.response.headers.getSetCookie().join("\n");
    expect(setCookie).toMatch(/__oidc=[^;]+;.*HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    // The verifier never leaves the cookie.
    expect(started.location).not.toContain("code_verifier");
  });

  it("signs an enabled staff user in by their verified email, where they were going, and audits it", async () => {
    const user = await staffUser("sam@team.example");
    provider.accounts.set("sam", { email: "Sam@Team.example", email_verified: true });
    const signedIn = await ssoSignIn("sam", { query: "?redirectTo=%2Fleads" });
    expect(signedIn.status, signedIn.html).toBe(302);
    expect(signedIn.location).toBe("/leads");
    const me = await apiClient(appUrl, signedIn.session)("GET", "/api/auth/me");
    expect(me.body.user.email).toBe("sam@team.example");
    expect(await db.auditEntry.count({ where: { action: "session.sso_login", actorId: user.id } })).toBe(1);
  });

  it("refuses an answer with a wrong state, and one without the flow's cookie", async () => {
    provider.accounts.set("state", { email: "sam@team.example", email_verified: true });
    const started = await start();
    const back = new URL(await signInAtProvider(provider, started.location, "state"));
    back.searchParams.set("state", "not-the-state-this-browser-was-given");
    const wrongState = await callback(back.href, started.cookie);
    expect(wrongState.status).toBe(400);
    expect(wrongState.html).toContain("does not belong to the sign-in started here");
    expect(wrongState.session).toBe("");
    expect(await refusals("state_mismatch")).toBe(1);

    const noCookie = await callback(back.href, "");
    expect(noCookie.status).toBe(400);
    expect(noCookie.session).toBe("");
    expect(await refusals("flow_expired")).toBeGreaterThanOrEqual(1);
  });

  it("takes an authorization code once: the same answer replayed signs nobody in", async () => {
    await staffUser("replay@team.example");
    provider.accounts.set("replay", { email: "replay@team.example", email_verified: true });
    const first = await ssoSignIn("replay");
    expect(first.status, first.html).toBe(302);
    const again = await callback(first.back, first.flowCookie);
    expect(again.status).toBe(403);
    expect(again.html).toContain("could not be completed");
    expect(again.session).toBe("");
  });

  it("refuses a code issued to another client, and an ID token for another audience", async () => {
    await staffUser("audience@team.example");
    provider.accounts.set("audience", { email: "audience@team.example", email_verified: true });
    const before = await refusals("token_rejected");
    const otherClientsCode = await ssoSignIn("audience", {
      tamper: (url) => url.replace(/client_id=[^&]+/, `client_id=${OTHER_CLIENT_ID}`),
    });
    expect(otherClientsCode.back).toContain("code=");
    expect(otherClientsCode.status).toBe(403);
    expect(otherClientsCode.session).toBe("");

    provider.state.idTokenAudience = OTHER_CLIENT_ID;
    try {
      const otherAudience = await ssoSignIn("audience");
      expect(otherAudience.status).toBe(403);
      expect(otherAudience.session).toBe("");
    } finally {
      provider.state.idTokenAudience = null;
    }
    expect(await refusals("token_rejected")).toBe(before + 2);
    // The audit log says which check failed.
    const entries = await db.auditEntry.findMany({
      where: { action: "session.sso_refused" },
      select: { details: true },
    });
    const details = entries.map((entry) => JSON.parse(entry.details));
    expect(details).toContainEqual(
      expect.objectContaining({ reason: "token_rejected", providerError: "invalid_grant" }),
    );
    expect(details).toContainEqual(expect.objectContaining({ reason: "token_rejected", claim: "aud" }));
  });

  it("refuses an email the provider has not verified, even of a staff user", async () => {
    await staffUser("unverified@team.example");
    provider.accounts.set("unverified", { email: "unverified@team.example", email_verified: false });
    const refused = await ssoSignIn("unverified");
    expect(refused.status).toBe(403);
    expect(refused.html).toContain("has not verified your email address");
    expect(refused.session).toBe("");
    provider.accounts.set("no-claim", { email: "unverified@team.example" });
    expect((await ssoSignIn("no-claim")).status).toBe(403);
    expect(await refusals("email_unverified")).toBe(2);
  });

  it("refuses an unknown address outside the allowed domains, and makes an agent inside them", async () => {
    provider.accounts.set("stranger", { email: "stranger@elsewhere.example", email_verified: true });
    const stranger = await ssoSignIn("stranger");
    expect(stranger.status).toBe(403);
    expect(stranger.html).toContain("has no account here");
    expect(await db.user.count({ where: { email: "stranger@elsewhere.example" } })).toBe(0);
    expect(await refusals("unknown_user")).toBe(1);

    provider.accounts.set("newcomer", { email: "newcomer@allowed.example", email_verified: true, name: "New Comer" });
    const newcomer = await ssoSignIn("newcomer");
    expect(newcomer.status, newcomer.html).toBe(302);
    const created = await db.user.findUniqueOrThrow({ where: { email: "newcomer@allowed.example" } });
    expect(created).toMatchObject({ role: "agent", name: "New Comer", disabledAt: null });
    // Joined, not "invited"; a password nobody knows.
    expect(created.passwordHash).toMatch(/^\$argon2id\$/);
    const me = await apiClient(appUrl, newcomer.session)("GET", "/api/auth/me");
    expect(me.body.user).toMatchObject({ email: "newcomer@allowed.example", role: "agent" });
    const entry = await db.auditEntry.findFirstOrThrow({ where: { action: "session.sso_login", actorId: created.id } });
    expect(JSON.parse(entry.details)).toMatchObject({ joined: "created", subject: "newcomer" });
    // The second sign-in finds the account.
    expect((await ssoSignIn("newcomer")).status).toBe(302);
    expect(await db.user.count({ where: { email: "newcomer@allowed.example" } })).toBe(1);
  });

  it("refuses a disabled user", async () => {
    const user = await staffUser("disabled@team.example");
    await db.user.update({ where: { id: user.id }, data: { disabledAt: new Date() } });
    provider.accounts.set("disabled", { email: "disabled@team.example", email_verified: true });
    const refused = await ssoSignIn("disabled");
    expect(refused.status).toBe(403);
    expect(refused.html).toContain("disabled");
    expect(refused.session).toBe("");
    expect(await refusals("user_disabled")).toBe(1);
  });

  it("shows the provider's refusal (the person cancelled) as a page, not an error", async () => {
    const started = await start();
    const state = new URL(started.location).searchParams.get("state")!;
    const cancelled = await callback(`${appUrl}/auth/oidc/callback?error=access_denied&state=${state}`, started.cookie);
    expect(cancelled.status).toBe(403);
    expect(cancelled.html).toContain("did not sign you in");
  });
});

describe("requiring single sign-on", () => {
  it("refuses a non-owner's password sign-in, API and page, but not an owner's; and only owners decide", async () => {
    const owner = await staffSession(
      appUrl,
      { email: "owner@sso-rules.example", password: PASSWORD, role: "owner" },
      ownClientAddress(),
    );
    const agent = await staffSession(
      appUrl,
      { email: "agent@sso-rules.example", password: PASSWORD, role: "agent" },
      ownClientAddress(),
    );
    expect((await agent.call("PATCH", "/api/settings/security", { requireSso: true })).status).toBe(403);
    expect((await owner.call("PATCH", "/api/settings/security", { requireSso: "yes" })).status).toBe(422);
    try {
      const on = await owner.call("PATCH", "/api/settings/security", { requireSso: true });
      expect(on.status, on.text).toBe(200);
      expect(on.body).toEqual({ requireTwoFactor: false, tokensWithoutTwoFactor: false, requireSso: true });
      const entry = await db.auditEntry.findFirstOrThrow({ where: { action: "security.update", actorId: owner.id } });
      expect(JSON.parse(entry.details)).toEqual({ requireSso: true });

      const api = await logIn(appUrl, "agent@sso-rules.example", PASSWORD, ownClientAddress());
      expect(api.status).toBe(403);
      expect(await api.response.json()).toMatchObject({ error: { code: "sso_required" } });
      expect(api.cookie).toBe("");
      // A wrong password still says only that.
      const wrong = await logIn(appUrl, "agent@sso-rules.example", "wrong password", ownClientAddress());
      expect(wrong.status).toBe(401);

      const page = await postForm(
        `${appUrl}/login`,
        { email: "agent@sso-rules.example", password: PASSWORD, redirectTo: "/" },
        { ...ownClientAddress(), Origin: appUrl },
      );
      expect(page.status).toBe(403);
      expect(page.html).toContain("Your team signs in with Test Provider");
      expect(page.response.headers.getSetCookie().join()).not.toContain("__session=");

      expect((await logIn(appUrl, "owner@sso-rules.example", PASSWORD, ownClientAddress())).status).toBe(200);
      provider.accounts.set("rules-agent", { email: "agent@sso-rules.example", email_verified: true });
      expect((await ssoSignIn("rules-agent")).status).toBe(302);
      expect(
        await db.auditEntry.count({ where: { action: "session.login_failed", details: { contains: "sso_required" } } }),
      ).toBe(2);
    } finally {
      await db.securityPolicy.deleteMany();
    }
  });

  it("refuses a non-owner's passkey too, but not an owner's", async () => {
    // WebAuthn takes no IP address as the relying party: a second server, at localhost, on the same
    // database and provider.
    const keys = await startPasskeyServer({ ...provider.env(), TRUST_PROXY: "true" });
    const rpId = new URL(keys.origin).hostname;
    const passkeyOf = async (email: string, role: "owner" | "agent") => {
      const address = ownClientAddress();
      const session = await staffSession(keys.url, { email, password: PASSWORD, role }, address);
      const call = apiClient(keys.url, session.cookie, address);
      const authenticator = new SoftwareAuthenticator(rpId);
      const options = await call("POST", "/api/auth/passkeys/registration/options");
      const registered = await call("POST", "/api/auth/passkeys/registration", {
        name: "Laptop",
        response: authenticator.register(options.body, keys.origin),
      });
      expect(registered.status, registered.text).toBe(201);
      return { ...session, call, authenticator };
    };
    const signIn = async (authenticator: SoftwareAuthenticator) => {
      const address = ownClientAddress();
      const options = await apiClient(keys.url, undefined, address)("POST", "/api/auth/passkeys/login/options");
      const response = await fetch(`${keys.url}/api/auth/passkeys/login`, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...address },
        body: JSON.stringify({ response: authenticator.assert(options.body, keys.origin) }),
      });
      return { status: response.status, body: await response.json(), setCookie: response.headers.getSetCookie() };
    };
    try {
      const owner = await passkeyOf("owner@sso-keys.example", "owner");
      const agent = await passkeyOf("agent@sso-keys.example", "agent");
      expect((await signIn(agent.authenticator)).status).toBe(200);
      expect((await owner.call("PATCH", "/api/settings/security", { requireSso: true })).status).toBe(200);

      const refused = await signIn(agent.authenticator);
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ error: { code: "sso_required" } });
      expect(refused.body.error.message).toContain("Test Provider");
      expect(refused.setCookie.join()).not.toContain("__session=");
      const entry = await db.auditEntry.findFirstOrThrow({
        where: { action: "session.login_failed", target: `user:${agent.id}` },
      });
      expect(JSON.parse(entry.details)).toEqual({
        email: "agent@sso-keys.example",
        reason: "sso_required",
        method: "passkey",
      });
      expect((await signIn(owner.authenticator)).status).toBe(200);
    } finally {
      await db.securityPolicy.deleteMany();
      await keys.stop();
    }
  });
});

describe("without single sign-on configured", () => {
  it("refuses to start with an issuer that is not https://, naming it", async () => {
    await expect(
      startServer({ ...provider.env(), OIDC_ISSUER: provider.issuer.replace("https:", "http:") }),
    ).rejects.toThrow(/OIDC_ISSUER: must be the provider's https:\/\/ issuer URL/);
  });

  it("shows no button, answers /auth/oidc with a page, and lets no owner require it", async () => {
    const plain = await startServer({ TRUST_PROXY: "true" });
    try {
      expect(await (await fetch(`${plain.url}/login`)).text()).not.toContain("/auth/oidc");
      const startPage = await fetch(`${plain.url}/auth/oidc`, { redirect: "manual" });
      expect(startPage.status).toBe(404);
      expect(await startPage.text()).toContain("Single sign-on is not set up here.");
      const owner = await staffSession(
        plain.url,
        { email: "owner@no-sso.example", password: PASSWORD, role: "owner" },
        ownClientAddress(),
      );
      const refused = await owner.call("PATCH", "/api/settings/security", { requireSso: true });
      expect(refused.status).toBe(422);
      expect(refused.body.error.details).toEqual([{ path: "requireSso", message: expect.any(String) }]);
    } finally {
      await plain.stop();
    }
  });
});
