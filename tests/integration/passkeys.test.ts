// Passkeys through the production server (issue 34 item 3, docs/api/auth.md#passkeys), driven
// by a software authenticator that holds a real P-256 key and signs real answers: a passkey is
// registered, listed, signs in and is removed; and what the server refuses: an unknown
// credential, a replayed challenge, another origin, another user's challenge, a counter that
// goes back, and the password alone for a passkey-only user when the team requires two-factor.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { apiClient, cookieFrom, ownClientAddress, staffSession } from "../support/http";
import { SoftwareAuthenticator, startPasskeyServer } from "../support/passkeys";
import type { TestServer } from "../support/server";

const PASSWORD = "passkey test password";
let server: TestServer & { origin: string };
let rpId: string;

beforeAll(async () => {
  // One X-Forwarded-For address per test: the per-address limits stay out of each other's way.
  server = await startPasskeyServer({ TRUST_PROXY: "true" });
  rpId = new URL(server.origin).hostname;
});
afterAll(async () => {
  await server?.stop();
});

/** A staff user with a session (password just entered) and a client that sends it from an address of its own. */
async function staff(email: string) {
  const address = ownClientAddress();
  const session = await staffSession(server.url, { email, password: PASSWORD, role: "agent" }, address);
  return { ...session, call: apiClient(server.url, session.cookie, address), address };
}

/** Registers a new software passkey for the user through the API. */
async function registered(user: Awaited<ReturnType<typeof staff>>, name = "Laptop") {
  const authenticator = new SoftwareAuthenticator(rpId);
  const options = await user.call("POST", "/api/auth/passkeys/registration/options");
  expect(options.status).toBe(200);
  const answer = await user.call("POST", "/api/auth/passkeys/registration", {
    name,
    response: authenticator.register(options.body, server.origin),
  });
  expect(answer.status, answer.text).toBe(201);
  return { authenticator, passkey: answer.body.passkey as { id: string; name: string } };
}

async function loginOptions(address: Record<string, string>) {
  const options = await apiClient(server.url, undefined, address)("POST", "/api/auth/passkeys/login/options");
  expect(options.status).toBe(200);
  return options.body;
}

async function passkeyLogin(address: Record<string, string>, response: unknown) {
  const res = await fetch(`${server.url}/api/auth/passkeys/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...address },
    body: JSON.stringify({ response, redirectTo: "/leads" }),
  });
  return { status: res.status, body: await res.json(), cookie: res.status === 200 ? cookieFrom(res) : "" };
}

describe("passkeys", () => {
  it("registers a passkey with the relying party of APP_URL, lists it, signs in with it, and removes it", async () => {
    const user = await staff("owner-of-keys@passkeys.example");
    const options = await user.call("POST", "/api/auth/passkeys/registration/options");
    expect(options.body.rp).toEqual({ name: "Lead Capture", id: "localhost" });
    expect(options.body.authenticatorSelection).toMatchObject({
      residentKey: "required",
      userVerification: "required",
    });
    expect(Buffer.from(options.body.user.id, "base64url").toString()).toBe(user.id);

    const { authenticator, passkey } = await registered(user, "Work laptop");
    const listed = await user.call("GET", "/api/auth/passkeys");
    expect(listed.body.passkeys).toEqual([
      expect.objectContaining({ id: passkey.id, name: "Work laptop", lastUsedAt: null }),
    ]);

    const address = ownClientAddress();
    const signedIn = await passkeyLogin(address, authenticator.assert(await loginOptions(address), server.origin));
    expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
    expect(signedIn.body).toMatchObject({ user: { id: user.id }, redirectTo: "/leads" });
    const me = await apiClient(server.url, signedIn.cookie)("GET", "/api/auth/me");
    expect(me.body.user.id).toBe(user.id);
    const row = await db.passkey.findUniqueOrThrow({ where: { id: passkey.id } });
    expect(Number(row.counter)).toBe(1);
    expect(row.lastUsedAt).not.toBeNull();
    const login = await db.auditEntry.findFirst({
      where: { action: "session.login", target: `user:${user.id}` },
      orderBy: { createdAt: "desc" },
    });
    expect(JSON.parse(login!.details)).toEqual({ method: "passkey" });

    expect((await user.call("DELETE", `/api/auth/passkeys/${passkey.id}`)).status).toBe(204);
    expect((await user.call("GET", "/api/auth/passkeys")).body.passkeys).toEqual([]);
    const actions = await db.auditEntry.findMany({
      where: { target: `user:${user.id}`, action: { startsWith: "passkey." } },
    });
    expect(actions.map((entry) => [entry.action, JSON.parse(entry.details)])).toEqual(
      expect.arrayContaining([
        ["passkey.add", { name: "Work laptop" }],
        ["passkey.remove", { name: "Work laptop" }],
      ]),
    );
    // The removed passkey opens nothing any more.
    const after = await passkeyLogin(address, authenticator.assert(await loginOptions(address), server.origin));
    expect(after.status).toBe(401);
    expect(after.body.error.details).toEqual([
      { path: "response.id", message: "This passkey is not registered here." },
    ]);
  });

  it("refuses a credential it does not know, with no session", async () => {
    const address = ownClientAddress();
    const stranger = new SoftwareAuthenticator(rpId);
    const refused = await passkeyLogin(address, stranger.assert(await loginOptions(address), server.origin));
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatchObject({ code: "passkey_refused", details: [{ path: "response.id" }] });
    expect(refused.cookie).toBe("");
    const failed = { action: "session.login_failed", details: JSON.stringify({ method: "passkey" }) };
    expect(await db.auditEntry.count({ where: failed })).toBeGreaterThan(0);
  });

  it("accepts a challenge once: the same signed answer sent again is refused", async () => {
    const user = await staff("replay@passkeys.example");
    const { authenticator } = await registered(user);
    const address = ownClientAddress();
    const answer = authenticator.assert(await loginOptions(address), server.origin);
    expect((await passkeyLogin(address, answer)).status).toBe(200);
    const replayed = await passkeyLogin(address, answer);
    expect(replayed.status).toBe(401);
    expect(replayed.body.error.details[0]).toEqual({
      path: "response.response.clientDataJSON",
      message: "The challenge is unknown, expired or already used: start again.",
    });
    expect(replayed.cookie).toBe("");
  });

  it("refuses an answer signed for another origin, and the challenge is spent by it", async () => {
    const user = await staff("phished@passkeys.example");
    const { authenticator } = await registered(user);
    const address = ownClientAddress();
    const options = await loginOptions(address);
    const refused = await passkeyLogin(address, authenticator.assert(options, "https://evil.example"));
    expect(refused.status).toBe(401);
    expect(refused.body.error.details[0].message).toMatch(/origin/i);
    expect(refused.body.error.details[0].message).toContain("https://evil.example");
    // The same challenge answered rightly afterwards: already taken.
    const again = await passkeyLogin(address, authenticator.assert(options, server.origin));
    expect(again.body.error.details[0].path).toBe("response.response.clientDataJSON");
  });

  it("refuses a registration for another origin, and one answering another user's challenge", async () => {
    const alice = await staff("alice@passkeys.example");
    const bob = await staff("bob@passkeys.example");
    const authenticator = new SoftwareAuthenticator(rpId);
    const options = await alice.call("POST", "/api/auth/passkeys/registration/options");
    const phished = await alice.call("POST", "/api/auth/passkeys/registration", {
      name: "Phished",
      response: authenticator.register(options.body, "https://evil.example"),
    });
    expect(phished.status).toBe(422);
    expect(phished.body.error.code).toBe("passkey_refused");

    const aliceOptions = await alice.call("POST", "/api/auth/passkeys/registration/options");
    const crossed = await bob.call("POST", "/api/auth/passkeys/registration", {
      name: "Alice's challenge",
      response: authenticator.register(aliceOptions.body, server.origin),
    });
    expect(crossed.status).toBe(422);
    expect(crossed.body.error.details[0].message).toContain("challenge");
    expect(await db.passkey.count({ where: { userId: { in: [alice.id, bob.id] } } })).toBe(0);
  });

  it("refuses an answer whose counter went back (a cloned authenticator)", async () => {
    const user = await staff("cloned@passkeys.example");
    const { authenticator } = await registered(user);
    const address = ownClientAddress();
    expect(
      (await passkeyLogin(address, authenticator.assert(await loginOptions(address), server.origin, { counter: 5 })))
        .status,
    ).toBe(200);
    const cloned = await passkeyLogin(
      address,
      authenticator.assert(await loginOptions(address), server.origin, { counter: 3 }),
    );
    expect(cloned.status).toBe(401);
    expect(cloned.body.error.details[0].message).toMatch(/counter/i);
  });

  it("refuses a body that is no WebAuthn answer with 422 naming the field, and removing another user's passkey with 404", async () => {
    const owner = await staff("keeper@passkeys.example");
    const other = await staff("other@passkeys.example");
    const { passkey } = await registered(owner);
    const address = ownClientAddress();
    const malformed = await passkeyLogin(address, { id: "x", rawId: "x", type: "public-key", response: {} });
    expect(malformed.status).toBe(422);
    expect(malformed.body.error.details[0].path).toBe("response.response.clientDataJSON");
    expect((await other.call("DELETE", `/api/auth/passkeys/${passkey.id}`)).status).toBe(404);
    expect(await db.passkey.count({ where: { id: passkey.id } })).toBe(1);
    const unnamed = await owner.call("POST", "/api/auth/passkeys/registration", { name: " ", response: {} });
    expect(unnamed.status).toBe(422);
    expect(unnamed.body.error.details.map((detail: { path: string }) => detail.path)).toContain("name");
  });
});

describe("a passkey as the team's required two-factor", () => {
  it("satisfies the requirement; the password alone is then refused and the passkey signs in", async () => {
    const user = await staff("required@passkeys.example");
    await db.securityPolicy.upsert({
      where: { id: "security" },
      create: { id: "security", requireTwoFactor: true },
      update: { requireTwoFactor: true },
    });
    try {
      const blocked = await user.call("GET", "/api/forms");
      expect(blocked.status).toBe(403);
      expect(blocked.body.error.code).toBe("two_factor_required");
      const { authenticator } = await registered(user);
      expect((await user.call("GET", "/api/forms")).status).toBe(200);

      const address = ownClientAddress();
      const password = await apiClient(server.url, undefined, address)("POST", "/api/auth/login", {
        email: "required@passkeys.example",
        password: PASSWORD,
      });
      expect(password.status).toBe(401);
      expect(password.body.error.code).toBe("passkey_required");
      expect(password.headers.getSetCookie()).toEqual([]);

      const signedIn = await passkeyLogin(address, authenticator.assert(await loginOptions(address), server.origin));
      expect(signedIn.status).toBe(200);
      expect((await apiClient(server.url, signedIn.cookie)("GET", "/api/forms")).status).toBe(200);
    } finally {
      await db.securityPolicy.deleteMany();
    }
  });
});
