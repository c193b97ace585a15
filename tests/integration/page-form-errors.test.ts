// Page forms without JavaScript (Conform on the server): a refused post answers with the
// form again, each message next to its field (aria-invalid, aria-describedby) and what was
// typed kept, passwords excepted.
import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrResetUser } from "~/staff/user.server";
import { db } from "~/storage/db.server";
import { apiClient, cookieFrom, ownClientAddress, postForm } from "../support/http";
import { shownField } from "../support/page-fields";
import { startServer, type TestServer } from "../support/server";
import { openTicket } from "../support/support-desk";

const OWNER = { email: "owner@page-forms.example", password: "page forms password", role: "owner" as const };
let server: TestServer;
let owner: string;

beforeAll(async () => {
  server = await startServer({ TRUST_PROXY: "true" });
  await createOrResetUser(OWNER);
  const login = await fetch(`${server.url}/api/auth/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...ownClientAddress() },
    body: JSON.stringify({ email: OWNER.email, password: OWNER.password }),
  });
  owner = cookieFrom(login);
});
afterAll(async () => {
  await server?.stop();
});

const post = (path: string, fields: Record<string, string> | Array<[string, string]>, cookie?: string) =>
  postForm(`${server.url}${path}`, fields, {
    Origin: server.url,
    ...(cookie ? { Cookie: cookie } : {}),
    ...ownClientAddress(),
  });

/** A working link of `kind` for `userId`, made as the emailed one is. */
async function accountLink(userId: string, kind: "invite" | "reset"): Promise<string> {
  const token = randomBytes(32).toString("base64url");
  await db.accountToken.create({
    data: {
      userId,
      kind,
      tokenHash: createHash("sha256").update(token).digest("hex"),
      expiresAt: new Date(Date.now() + 60 * 60_000),
    },
  });
  return token;
}

describe("pages without an account", () => {
  it("/login: a wrong password is refused with 401, said next to the email, which is kept", async () => {
    await createOrResetUser({ email: "someone@page-forms.example", password: "someone's password", role: "agent" });
    const refused = await post("/login", { email: "someone@page-forms.example", password: "not it at all" });
    expect(refused.status).toBe(401);
    expect(shownField(refused.html, "email")).toEqual({
      invalid: true,
      message: "Invalid email or password.",
      value: "someone@page-forms.example",
    });
    expect(refused.html).not.toContain("not it at all");
  });

  it("/forgot-password: an address that is not one is refused with 422 next to the field, kept", async () => {
    const refused = await post("/forgot-password", { email: "not an address" });
    expect(refused.status).toBe(422);
    expect(shownField(refused.html, "email")).toEqual({
      invalid: true,
      message: "Enter a valid email address.",
      value: "not an address",
    });
  });

  it("/reset-password/:token: a short password is refused with 422 next to the field, never sent back", async () => {
    const { user } = await createOrResetUser({
      email: "reset@page-forms.example",
      password: "reset password 1",
      role: "agent",
    });
    const token = await accountLink(user.id, "reset");
    const refused = await post(`/reset-password/${token}`, { password: "short pass" });
    expect(refused.status).toBe(422);
    expect(shownField(refused.html, "password")).toEqual({
      invalid: true,
      message: "Use at least 12 characters.",
      value: null,
    });
    expect(refused.html).not.toContain("short pass");
  });

  it("/invite/:token: an empty name and a short password are refused with 422, each next to its field", async () => {
    const invited = await apiClient(server.url, owner)("POST", "/api/staff", {
      email: "invited@page-forms.example",
      role: "agent",
    });
    expect(invited.status).toBe(201);
    const token = await accountLink(invited.body.id, "invite");
    const refused = await post(`/invite/${token}`, { name: "", password: "short pass" });
    expect(refused.status).toBe(422);
    expect(shownField(refused.html, "name")).toMatchObject({ invalid: true, message: "Enter a name." });
    expect(shownField(refused.html, "password")).toEqual({
      invalid: true,
      message: "Use at least 12 characters.",
      value: null,
    });
    const tooLong = await post(`/invite/${token}`, { name: "N".repeat(101), password: "long enough password" });
    expect(tooLong.status).toBe(422);
    expect(shownField(tooLong.html, "name")).toEqual({
      invalid: true,
      message: "At most 100 characters.",
      value: "N".repeat(101),
    });
  });
});

describe("dashboard pages", () => {
  it("/settings/staff: an invitation to a bad address is refused with 422 next to the field, the name kept", async () => {
    const refused = await post(
      "/settings/staff",
      { intent: "invite", email: "nobody at all", name: "Kept Name", role: "agent" },
      owner,
    );
    expect(refused.status).toBe(422);
    expect(shownField(refused.html, "invite-email")).toEqual({
      invalid: true,
      message: "Enter a valid email address.",
      value: "nobody at all",
    });
    expect(shownField(refused.html, "invite-name")).toMatchObject({ invalid: false, value: "Kept Name" });
    expect(await db.user.count({ where: { name: "Kept Name" } })).toBe(0);
  });

  it("/settings/replies: a saved reply without a name is refused with 422 next to the field, the text kept", async () => {
    const refused = await post("/settings/replies", { intent: "create", name: "", body: "Kept text" }, owner);
    expect(refused.status).toBe(422);
    expect(shownField(refused.html, "reply-name")).toMatchObject({ invalid: true, message: "Name the reply." });
    expect(shownField(refused.html, "reply-body")).toEqual({ invalid: false, message: "", value: "Kept text" });
  });

  it("/account/tokens: a token without scopes is refused with 422 next to them, the name kept", async () => {
    const refused = await post("/account/tokens", { intent: "create", name: "Kept token" }, owner);
    expect(refused.status).toBe(422);
    expect(refused.html).toMatch(/<fieldset[^>]*aria-invalid="true"[^>]*aria-describedby="token-scopes-error"/);
    expect(refused.html).toMatch(/<p id="token-scopes-error" class="field-error">Give at least one scope.<\/p>/);
    expect(shownField(refused.html, "token-name")).toMatchObject({ invalid: false, value: "Kept token" });
  });

  it("/support/:reference: assigning someone who is not staff is refused with 422 next to the choice", async () => {
    const { reference } = await openTicket(apiClient(server.url), {
      email: "customer@page-forms.example",
      subject: "Assign me",
      message: "Who works this?",
    });
    const refused = await post(`/support/${reference}`, { intent: "assign", assigneeId: "no-such-user" }, owner);
    expect(refused.status).toBe(422);
    expect(shownField(refused.html, "assigneeId")).toMatchObject({
      invalid: true,
      message: "No enabled staff user has this id.",
    });
    const ticket = await db.ticket.findFirst({ where: { subject: "Assign me" }, select: { assigneeId: true } });
    expect(ticket?.assigneeId).toBeNull();
  });
});
