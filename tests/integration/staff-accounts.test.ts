// Invitations and password resets, through a real SMTP server: the emailed link works once,
// within its lifetime, for an enabled account; a used or expired one answers 410. A reset
// request never tells whether the address has an account, and is limited per address.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "~/staff/api-tokens.server";
import { createOrResetUser } from "~/staff/user.server";
import { db } from "~/storage/db.server";
import { apiClient, cookieFrom, logIn as logInAs, ownClientAddress, type ApiClient } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import { startSmtp, type TestSmtp } from "../support/smtp";
import type { ParsedMail } from "mailparser";

const PASSWORD = "staff accounts password";
let server: TestServer;
let smtp: TestSmtp;
let owner: ApiClient;

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({ SMTP_URL: smtp.url, OUTBOX_POLL_MS: "100", TRUST_PROXY: "true" });
  await createOrResetUser({ email: "owner@accounts.example", password: PASSWORD, role: "owner" });
  owner = apiClient(server.url, (await logIn("owner@accounts.example", PASSWORD)).cookie);
});
afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

const logIn = (email: string, password: string) => logInAs(server.url, email, password, ownClientAddress());

const to = (mail: ParsedMail) => (Array.isArray(mail.to) ? undefined : mail.to?.value[0]?.address);
async function linkMailedTo(address: string, path: string, count = 1): Promise<string> {
  const find = () => smtp.received.filter((mail) => to(mail) === address);
  await expect.poll(() => find().length, { timeout: 15_000, interval: 50 }).toBe(count);
  const match = find()
    .at(-1)!
    .text!.match(new RegExp(`https?://\\S+(${path}[A-Za-z0-9_-]+)`));
  expect(match).not.toBeNull();
  return match![1];
}

function postForm(path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: server.url, ...headers },
    body: new URLSearchParams(fields).toString(),
    redirect: "manual",
  });
}

describe("invitations", () => {
  it("invites by email; the invitee sets name and password at /invite/:token, is logged in, and the link is used up", async () => {
    const res = await owner("POST", "/api/staff", { email: "New.Agent@Accounts.example", role: "agent" });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ email: "new.agent@accounts.example", role: "agent", status: "invited" });
    // Not a login yet: no password.
    expect((await logIn("new.agent@accounts.example", "")).status).not.toBe(200);

    const path = await linkMailedTo("new.agent@accounts.example", "/invite/");
    const page = await fetch(`${server.url}${path}`);
    expect(page.status).toBe(200);
    expect(page.headers.get("Cache-Control")).toContain("no-store");
    expect(await page.text()).toContain("new.agent@accounts.example");

    const short = await postForm(path, { name: "Nia", password: "short" });
    expect(short.status).toBe(422);
    expect(await short.text()).toContain("at least 12 characters");

    const accepted = await postForm(path, { name: "Nia Agent", password: "a long enough password" });
    expect(accepted.status).toBe(302);
    const session = cookieFrom(accepted as unknown as Response);
    const me = await apiClient(server.url, session)("GET", "/api/auth/me");
    expect(me.body.user).toMatchObject({ email: "new.agent@accounts.example", role: "agent" });
    const listed = (await owner("GET", "/api/staff")).body.items.find(
      (item: { email: string }) => item.email === "new.agent@accounts.example",
    );
    expect(listed).toMatchObject({ name: "Nia Agent", status: "active", role: "agent" });

    // Once only.
    expect((await fetch(`${server.url}${path}`)).status).toBe(410);
    expect((await postForm(path, { name: "Again", password: "another long password" })).status).toBe(410);
    expect((await logIn("new.agent@accounts.example", "a long enough password")).status).toBe(200);
    expect(
      await db.auditEntry.count({ where: { action: "staff.join", actorEmail: "new.agent@accounts.example" } }),
    ).toBe(1);
  });

  it("answers 410 for an expired or made-up link, and for the link of a disabled account", async () => {
    await owner("POST", "/api/staff", { email: "late@accounts.example", role: "agent" });
    const path = await linkMailedTo("late@accounts.example", "/invite/");
    await db.accountToken.updateMany({
      where: { user: { email: "late@accounts.example" } },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect((await fetch(`${server.url}${path}`)).status).toBe(410);
    expect((await fetch(`${server.url}/invite/${"x".repeat(43)}`)).status).toBe(410);
    expect((await fetch(`${server.url}/invite/short`)).status).toBe(410);

    const second = await owner("POST", "/api/staff", { email: "stopped@accounts.example", role: "agent" });
    const stopped = await linkMailedTo("stopped@accounts.example", "/invite/");
    await owner("PATCH", `/api/staff/${second.body.id}`, { disabled: true });
    expect((await postForm(stopped, { name: "S", password: "a long enough password" })).status).toBe(410);
  });

  it("refuses an address that has an account (409), bad fields (422), an agent (403), an admin inviting an owner (403)", async () => {
    const again = await owner("POST", "/api/staff", { email: "owner@accounts.example", role: "agent" });
    expect(again.status).toBe(409);
    const bad = await owner("POST", "/api/staff", { email: "nope", role: "king", extra: 1 });
    expect(bad.status).toBe(422);
    // The unknown field is named itself.
    expect(bad.body.error.details.map((detail: { path: string }) => detail.path).sort()).toEqual([
      "email",
      "extra",
      "role",
    ]);
    await createOrResetUser({ email: "agent@accounts.example", password: PASSWORD, role: "agent" });
    await createOrResetUser({ email: "admin@accounts.example", password: PASSWORD, role: "admin" });
    const agent = apiClient(server.url, (await logIn("agent@accounts.example", PASSWORD)).cookie);
    const admin = apiClient(server.url, (await logIn("admin@accounts.example", PASSWORD)).cookie);
    expect((await agent("POST", "/api/staff", { email: "x@accounts.example", role: "agent" })).status).toBe(403);
    expect((await admin("POST", "/api/staff", { email: "boss@accounts.example", role: "owner" })).status).toBe(403);
    expect((await admin("POST", "/api/staff", { email: "helper@accounts.example", role: "admin" })).status).toBe(201);
  });
});

describe("password reset", () => {
  it("emails a link that sets a new password once and ends every session; the answer is the same for unknown addresses", async () => {
    const { user: forgetful } = await createOrResetUser({
      email: "forgetful@accounts.example",
      password: PASSWORD,
      role: "agent",
    });
    const before = await logIn("forgetful@accounts.example", PASSWORD);
    const token = await createApiToken(forgetful, { name: "made with the old password", scopes: ["leads:read"] });

    const known = await postForm("/forgot-password", { email: "forgetful@accounts.example" }, ownClientAddress());
    const unknown = await postForm("/forgot-password", { email: "nobody@accounts.example" }, ownClientAddress());
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    const shown = (html: string, email: string) => html.replace(email, "EMAIL").replace(/<script[\s\S]*$/, "");
    expect(shown(await known.text(), "forgetful@accounts.example")).toBe(
      shown(await unknown.text(), "nobody@accounts.example"),
    );

    const path = await linkMailedTo("forgetful@accounts.example", "/reset-password/");
    expect((await fetch(`${server.url}${path}`)).status).toBe(200);
    const reset = await postForm(path, { password: "a brand new password" });
    expect(reset.status).toBe(302);
    expect(reset.headers.get("Location")).toBe("/login?reset=1");
    expect((await apiClient(server.url, before.cookie)("GET", "/api/auth/me")).status).toBe(401);
    // Whatever was made with the account before ends with the reset.
    expect(
      (await apiClient(server.url, undefined, { Authorization: `Bearer ${token.token}` })("GET", "/api/leads")).status,
    ).toBe(401);
    expect(await db.auditEntry.count({ where: { action: "password.reset", actorId: forgetful.id } })).toBe(1);
    expect((await logIn("forgetful@accounts.example", PASSWORD)).status).toBe(401);
    expect((await logIn("forgetful@accounts.example", "a brand new password")).status).toBe(200);
    expect((await postForm(path, { password: "yet another password" })).status).toBe(410);
    // Nothing was ever sent to the unknown address.
    expect(smtp.received.some((mail) => to(mail) === "nobody@accounts.example")).toBe(false);
  });

  it("expires after an hour, and limits requests per address whether it has an account or not", async () => {
    await createOrResetUser({ email: "slow@accounts.example", password: PASSWORD, role: "agent" });
    await postForm("/forgot-password", { email: "slow@accounts.example" }, ownClientAddress());
    const path = await linkMailedTo("slow@accounts.example", "/reset-password/");
    await db.accountToken.updateMany({
      where: { user: { email: "slow@accounts.example" }, kind: "reset" },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect((await fetch(`${server.url}${path}`)).status).toBe(410);

    for (const email of ["slow@accounts.example", "ghost@accounts.example"]) {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++)
        statuses.push((await postForm("/forgot-password", { email }, ownClientAddress())).status);
      // slow@ used one request above.
      expect(statuses.filter((status) => status === 429).length).toBe(email.startsWith("slow") ? 2 : 1);
    }
  });
});
