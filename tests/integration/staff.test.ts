// Staff and roles: the staff list, role changes and disabled accounts through the API and
// /settings/staff, with the rules the policy keeps: only an owner changes an owner, there is
// always an enabled owner, and disabling ends every session of the user at once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrResetUser } from "~/staff/user.server";
import { db } from "~/storage/db.server";
import { apiClient, logIn as logInAs } from "../support/http";
import { startServer, type TestServer } from "../support/server";

const PASSWORD = "staff and roles password";
let server: TestServer;

const logIn = (email: string) => logInAs(server.url, email, PASSWORD);

async function member(email: string, role: "owner" | "admin" | "agent") {
  const { user } = await createOrResetUser({ email, password: PASSWORD, role });
  const { cookie } = await logIn(email);
  return { id: user.id, email, call: apiClient(server.url, cookie), cookie };
}

let owner: Awaited<ReturnType<typeof member>>;
let admin: Awaited<ReturnType<typeof member>>;
let agent: Awaited<ReturnType<typeof member>>;

beforeAll(async () => {
  server = await startServer();
  owner = await member("owner@staff.example", "owner");
  admin = await member("admin@staff.example", "admin");
  agent = await member("agent@staff.example", "agent");
});
afterAll(async () => {
  await server?.stop();
});

describe("the staff API", () => {
  it("lists every staff user with role and status, to any staff user", async () => {
    const res = await agent.call("GET", "/api/staff");
    expect(res.status).toBe(200);
    const emails = res.body.items.map((item: { email: string }) => item.email);
    expect(emails).toEqual(expect.arrayContaining([owner.email, admin.email, agent.email]));
    expect(res.body.items.find((item: { email: string }) => item.email === admin.email)).toMatchObject({
      id: admin.id,
      role: "admin",
      status: "active",
    });
    expect(JSON.stringify(res.body)).not.toMatch(/passwordHash|argon2/);
  });

  it("lets a manager change an agent's role; refuses an agent (403), bad values (422) and unknown ids (404)", async () => {
    const target = await member("promoted@staff.example", "agent");
    const promoted = await admin.call("PATCH", `/api/staff/${target.id}`, { role: "admin" });
    expect(promoted.status, promoted.text).toBe(200);
    expect(promoted.body).toMatchObject({ id: target.id, role: "admin", status: "active" });
    // The change holds for the session the user already has.
    expect((await target.call("GET", "/api/webhooks")).status).toBe(200);

    const refused = await agent.call("PATCH", `/api/staff/${target.id}`, { role: "agent" });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: "forbidden", details: [{ message: "staff.manage" }] });

    const bad = await admin.call("PATCH", `/api/staff/${target.id}`, { role: "boss", disabled: "yes" });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.map((detail: { path: string }) => detail.path).sort()).toEqual(["disabled", "role"]);
    expect((await admin.call("PATCH", "/api/staff/no-such-user", { role: "agent" })).status).toBe(404);
  });

  it("lets only an owner change an owner or make one", async () => {
    const target = await member("would-be-owner@staff.example", "agent");
    expect((await admin.call("PATCH", `/api/staff/${target.id}`, { role: "owner" })).status).toBe(403);
    expect((await admin.call("PATCH", `/api/staff/${owner.id}`, { role: "agent" })).status).toBe(403);
    expect((await admin.call("PATCH", `/api/staff/${owner.id}`, { disabled: true })).status).toBe(403);
    const made = await owner.call("PATCH", `/api/staff/${target.id}`, { role: "owner" });
    expect(made.status).toBe(200);
    expect(made.body.role).toBe("owner");
    expect((await owner.call("PATCH", `/api/staff/${target.id}`, { role: "agent" })).body.role).toBe("agent");
  });

  it("keeps an enabled owner: the last one can be neither demoted nor disabled (409)", async () => {
    // Every other owner of this file's database stands down first.
    const others = await db.user.findMany({ where: { role: "owner", NOT: { id: owner.id } }, select: { id: true } });
    for (const other of others) await owner.call("PATCH", `/api/staff/${other.id}`, { role: "admin" });
    const demote = await owner.call("PATCH", `/api/staff/${owner.id}`, { role: "admin" });
    expect(demote.status).toBe(409);
    expect(demote.body.error.message).toMatch(/always be an enabled owner/);
    expect((await owner.call("PATCH", `/api/staff/${owner.id}`, { disabled: true })).status).toBe(409);
    expect((await db.user.findUnique({ where: { id: owner.id } }))?.role).toBe("owner");
  });

  it("disables a user: every session ends at once and login is refused; enabling lets them log in again", async () => {
    const target = await member("leaving@staff.example", "agent");
    const second = await logIn(target.email);
    const disabled = await admin.call("PATCH", `/api/staff/${target.id}`, { disabled: true });
    expect(disabled.body).toMatchObject({ status: "disabled" });
    expect((await target.call("GET", "/api/leads")).status).toBe(401);
    expect((await apiClient(server.url, second.cookie)("GET", "/api/leads")).status).toBe(401);
    expect((await logIn(target.email)).status).toBe(401);
    await admin.call("PATCH", `/api/staff/${target.id}`, { disabled: false });
    const back = await logIn(target.email);
    expect(back.status).toBe(200);
    expect((await apiClient(server.url, back.cookie)("GET", "/api/leads")).status).toBe(200);
  });
});

describe("/settings/staff", () => {
  const post = (cookie: string, fields: Record<string, string>) =>
    fetch(`${server.url}/settings/staff`, {
      method: "POST",
      headers: { Cookie: cookie, Origin: server.url, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });

  it("shows the staff with controls to managers only, and changes a role without JavaScript", async () => {
    const target = await member("page-target@staff.example", "agent");
    const asAdmin = await (await fetch(`${server.url}/settings/staff`, { headers: { Cookie: admin.cookie } })).text();
    expect(asAdmin).toContain(target.email);
    expect(asAdmin).toContain("Change role");
    const asAgent = await (await fetch(`${server.url}/settings/staff`, { headers: { Cookie: agent.cookie } })).text();
    expect(asAgent).toContain(target.email);
    expect(asAgent).not.toContain("Change role");

    const changed = await post(admin.cookie, { intent: "role", id: target.id, role: "admin" });
    expect(changed.status).toBe(200);
    expect(await changed.text()).toContain(`${target.email} is now admin.`);
    expect((await db.user.findUnique({ where: { id: target.id } }))?.role).toBe("admin");

    const refused = await post(agent.cookie, { intent: "disable", id: target.id });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain("As an agent you cannot manage the team.");
  });
});
