// Invitations sent again or revoked, and disabling asked first, through the API and the
// /settings/staff page, with a real SMTP server: a new link makes the old one dead, a
// revoked invitation's account and link are gone, someone who has joined is disabled
// instead, and a disable post without its confirmation changes nothing. Each is audited.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrResetUser } from "~/staff/user.server";
import { db } from "~/storage/db.server";
import { ownClientAddress, staffSession, type ApiClient } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import { startSmtp, type TestSmtp } from "../support/smtp";
import type { ParsedMail } from "mailparser";

const PASSWORD = "staff invitations password";
let server: TestServer;
let smtp: TestSmtp;
let owner: ApiClient;
let cookie: string;

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({ SMTP_URL: smtp.url, OUTBOX_POLL_MS: "100", TRUST_PROXY: "true" });
  ({ cookie, call: owner } = await staffSession(
    server.url,
    { email: "owner@invitations.example", password: PASSWORD, role: "owner" },
    ownClientAddress(),
  ));
});
afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

const to = (mail: ParsedMail) => (Array.isArray(mail.to) ? undefined : mail.to?.value[0]?.address);

/** The path of the invitation link in the `count`-th email to `address`. */
async function invitationMailedTo(address: string, count: number): Promise<string> {
  const find = () => smtp.received.filter((mail) => to(mail) === address);
  await expect.poll(() => find().length, { timeout: 15_000, interval: 50 }).toBe(count);
  const match = find()
    .at(-1)!
    .text!.match(/https?:\/\/\S+(\/invite\/[A-Za-z0-9_-]+)/);
  expect(match).not.toBeNull();
  return match![1];
}

async function invite(email: string): Promise<string> {
  const res = await owner("POST", "/api/staff", { email, role: "agent" });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

function postStaffPage(fields: Record<string, string>) {
  return fetch(`${server.url}/settings/staff`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: server.url, Cookie: cookie },
    body: new URLSearchParams(fields).toString(),
    redirect: "manual",
  });
}

const accept = (path: string) =>
  fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: server.url, ...ownClientAddress() },
    body: new URLSearchParams({ name: "Joined", password: "a long enough password" }).toString(),
    redirect: "manual",
  });

const audited = (action: string, userId: string) =>
  db.auditEntry.count({ where: { action, target: `user:${userId}` } });

describe("POST /api/staff/:id/invitation", () => {
  it("emails a new link and makes the one sent before dead; once they joined there is nothing to send (409)", async () => {
    const id = await invite("again@invitations.example");
    const first = await invitationMailedTo("again@invitations.example", 1);
    const res = await owner("POST", `/api/staff/${id}/invitation`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id, email: "again@invitations.example", status: "invited" });
    const second = await invitationMailedTo("again@invitations.example", 2);
    expect(second).not.toBe(first);

    expect((await fetch(`${server.url}${first}`)).status).toBe(410);
    expect((await accept(first)).status).toBe(410);
    expect((await accept(second)).status).toBe(302);
    expect(await audited("staff.invite_resend", id)).toBe(1);

    const joined = await owner("POST", `/api/staff/${id}/invitation`);
    expect(joined.status).toBe(409);
    expect(joined.body.error).toMatchObject({ code: "conflict" });
    expect(joined.body.error.message).toMatch(/has joined already/);
    expect((await owner("POST", "/api/staff/no-such-user/invitation")).status).toBe(404);
  });
});

describe("DELETE /api/staff/:id", () => {
  it("revokes a never-joined user's invitation: the account and its link are gone", async () => {
    const id = await invite("revoked@invitations.example");
    const link = await invitationMailedTo("revoked@invitations.example", 1);
    const res = await owner("DELETE", `/api/staff/${id}`);
    expect(res.status, res.text).toBe(204);
    expect(await db.user.count({ where: { id } })).toBe(0);
    expect(await db.accountToken.count({ where: { userId: id } })).toBe(0);
    expect((await fetch(`${server.url}${link}`)).status).toBe(410);
    const listed = (await owner("GET", "/api/staff")).body.items.map((item: { id: string }) => item.id);
    expect(listed).not.toContain(id);
    expect(await audited("staff.invite_revoke", id)).toBe(1);
    // The address can be invited afresh.
    expect((await owner("POST", "/api/staff", { email: "revoked@invitations.example", role: "agent" })).status).toBe(
      201,
    );
  });

  it("refuses a user who has joined (409: disable them instead) and an unknown id (404)", async () => {
    const { user } = await createOrResetUser({
      email: "joined@invitations.example",
      password: PASSWORD,
      role: "agent",
    });
    const res = await owner("DELETE", `/api/staff/${user.id}`);
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/disable them instead/);
    expect(await db.user.count({ where: { id: user.id, disabledAt: null } })).toBe(1);
    expect(await audited("staff.invite_revoke", user.id)).toBe(0);
    expect((await owner("DELETE", "/api/staff/no-such-user")).status).toBe(404);
  });
});

describe("/settings/staff", () => {
  it("disables someone only once the post says it was confirmed, and asks otherwise", async () => {
    const { user } = await createOrResetUser({ email: "ada@invitations.example", password: PASSWORD, role: "agent" });
    const unconfirmed = await postStaffPage({ intent: "disable", id: user.id });
    expect(unconfirmed.status).toBe(200);
    const question = await unconfirmed.text();
    expect(question).toContain("Disable ada@invitations.example?");
    expect(question).toMatch(/name="confirmed" value="yes"/);
    expect((await db.user.findUniqueOrThrow({ where: { id: user.id } })).disabledAt).toBeNull();
    expect(await audited("staff.update", user.id)).toBe(0);

    const confirmed = await postStaffPage({ intent: "disable", id: user.id, confirmed: "yes" });
    expect(confirmed.status).toBe(200);
    expect(await confirmed.text()).toContain("ada@invitations.example is disabled.");
    expect((await db.user.findUniqueOrThrow({ where: { id: user.id } })).disabledAt).not.toBeNull();
    expect(await audited("staff.update", user.id)).toBe(1);
  });

  it("sends an invitation again and revokes one with plain form posts, each audited", async () => {
    const id = await invite("page@invitations.example");
    await invitationMailedTo("page@invitations.example", 1);
    const resent = await postStaffPage({ intent: "resend", id });
    expect(await resent.text()).toContain("A new invitation went to page@invitations.example");
    await invitationMailedTo("page@invitations.example", 2);
    expect(await audited("staff.invite_resend", id)).toBe(1);

    const revoked = await postStaffPage({ intent: "revoke", id });
    expect(revoked.status).toBe(200);
    expect(await revoked.text()).toContain("The invitation of page@invitations.example is revoked.");
    expect(await db.user.count({ where: { id } })).toBe(0);
    expect(await audited("staff.invite_revoke", id)).toBe(1);

    const again = await postStaffPage({ intent: "revoke", id });
    expect(again.status).toBe(404);
  });
});
