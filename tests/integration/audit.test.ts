// The audit log: each recorded action leaves one entry naming who, what and from where, read
// through GET /api/audit (filters, keyset pages) and /settings/audit by owners and admins only.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrResetUser } from "~/staff/user.server";
import { apiClient, cookieFrom, logIn as logInAs, type ApiClient } from "../support/http";
import { startServer, type TestServer } from "../support/server";

const PASSWORD = "audit log password";
let server: TestServer;
let owner: ApiClient;
let ownerCookie: string;
let ownerId: string;

const logIn = async (email: string, password = PASSWORD) => (await logInAs(server.url, email, password)).response;

type Entry = {
  id: string;
  action: string;
  actor: { id: string; email: string | null } | null;
  target: string | null;
  ipHash: string | null;
  at: string;
  details: Record<string, unknown>;
  summary: string;
};

async function latest(action: string): Promise<Entry> {
  const res = await owner("GET", `/api/audit?action=${action}&limit=1`);
  expect(res.status, res.text).toBe(200);
  return res.body.entries[0];
}

beforeAll(async () => {
  server = await startServer({ WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE: "true" });
  ({
    user: { id: ownerId },
  } = await createOrResetUser({ email: "owner@audit.example", password: PASSWORD, role: "owner" }));
  ownerCookie = cookieFrom(await logIn("owner@audit.example"));
  owner = apiClient(server.url, ownerCookie);
});
afterAll(async () => {
  await server?.stop();
});

describe("the audit log", () => {
  it("records sign-ins and failed sign-ins, with the hashed client address", async () => {
    const login = await latest("session.login");
    expect(login).toMatchObject({ actor: { id: ownerId, email: "owner@audit.example" }, target: `user:${ownerId}` });
    expect(login.ipHash).toMatch(/^[0-9a-f]{16,}$/);
    expect((await logIn("owner@audit.example", "not the password")).status).toBe(401);
    expect(await latest("session.login_failed")).toMatchObject({
      actor: null,
      details: { email: "owner@audit.example" },
    });
  });

  it("records an export when it starts, and its row count in a second entry once the download ends, and lead and form deletions", async () => {
    const form = await owner("POST", "/api/forms", {
      name: "Audited",
      fields: [{ key: "name", label: "Name", type: "text", required: true }],
    });
    for (const name of ["A", "B", "C"]) {
      await apiClient(server.url)("POST", "/api/leads/submit", { formId: form.body.id, data: { name } });
    }
    const csv = await fetch(`${server.url}/api/leads/export?format=csv&formId=${form.body.id}`, {
      headers: { Cookie: ownerCookie },
    });
    // On record before the reader takes a byte: a download its reader stalls is not hidden.
    const started = await latest("lead.export_started");
    expect(started).toMatchObject({
      actor: { id: ownerId },
      details: { format: "csv", filters: { formId: form.body.id } },
    });
    await csv.text();
    await expect
      .poll(async () => (await latest("lead.export")).details)
      .toEqual({ format: "csv", filters: { formId: form.body.id }, rows: 3, complete: true, started: started.id });

    const leads = await owner("GET", `/api/leads?formId=${form.body.id}`);
    const leadId = leads.body.leads[0].id;
    expect((await owner("DELETE", `/api/leads/${leadId}`)).status).toBe(204);
    expect(await latest("lead.delete")).toMatchObject({ target: `lead:${leadId}`, actor: { id: ownerId } });

    await owner("PATCH", `/api/forms/${form.body.id}`, { status: "archived" });
    expect((await latest("form.archive")).target).toBe(`form:${form.body.id}`);
    await owner("DELETE", `/api/forms/${form.body.id}?deleteLeads=true`);
    expect(await latest("form.delete")).toMatchObject({
      target: `form:${form.body.id}`,
      details: { deleteLeads: true },
    });
  });

  it("records staff, token and webhook changes", async () => {
    const invited = await owner("POST", "/api/staff", { email: "new@audit.example", role: "agent" });
    expect(await latest("staff.invite")).toMatchObject({
      target: `user:${invited.body.id}`,
      details: { email: "new@audit.example", role: "agent" },
    });
    await owner("PATCH", `/api/staff/${invited.body.id}`, { role: "admin" });
    const update = await latest("staff.update");
    expect(update.details).toEqual({ email: "new@audit.example", change: { role: "admin" }, previousRole: "agent" });
    expect(update.summary).toMatch(/ changed new@audit\.example’s role from agent to admin\.$/);

    const token = await owner("POST", "/api/tokens", { name: "robot", scopes: ["leads:read"] });
    expect(await latest("token.create")).toMatchObject({
      target: `token:${token.body.id}`,
      details: { name: "robot", scopes: ["leads:read"] },
    });
    expect(JSON.stringify(await latest("token.create"))).not.toContain(token.body.token);
    await owner("DELETE", `/api/tokens/${token.body.id}`);
    expect((await latest("token.revoke")).target).toBe(`token:${token.body.id}`);

    const hook = await owner("POST", "/api/webhooks", {
      url: "http://127.0.0.1:9/in",
      events: ["lead.created"],
    });
    expect((await latest("webhook.create")).details).toEqual({
      url: "http://127.0.0.1:9/in",
      events: ["lead.created"],
    });
    expect(JSON.stringify(await latest("webhook.create"))).not.toContain(hook.body.secret);
    await owner("PATCH", `/api/webhooks/${hook.body.id}`, { enabled: false });
    expect((await latest("webhook.update")).details).toEqual({ fields: ["enabled"] });
    await owner("POST", `/api/webhooks/${hook.body.id}/rotate-secret`);
    expect((await latest("webhook.rotate_secret")).target).toBe(`webhook:${hook.body.id}`);
    await owner("DELETE", `/api/webhooks/${hook.body.id}`);
    expect((await latest("webhook.delete")).target).toBe(`webhook:${hook.body.id}`);
  });

  it("tells each entry as a sentence with names, not ids, in the API and on the page", async () => {
    const form = await owner("POST", "/api/forms", {
      name: "Contact us",
      fields: [{ key: "name", label: "Name", type: "text", required: true }],
    });
    await owner("PATCH", `/api/forms/${form.body.id}`, { status: "archived" });
    const archived = await latest("form.archive");
    expect(archived.summary).toMatch(/ archived the form Contact us\.$/);
    const hook = await owner("POST", "/api/webhooks", { url: "http://127.0.0.1:9/told", events: ["lead.created"] });
    await owner("DELETE", `/api/webhooks/${hook.body.id}`);
    // Gone from the table, still named by the URL its creation recorded.
    expect((await latest("webhook.delete")).summary).toMatch(/ deleted the webhook http:\/\/127\.0\.0\.1:9\/told\.$/);

    const html = await (await fetch(`${server.url}/settings/audit`, { headers: { Cookie: ownerCookie } })).text();
    expect(html).toContain("archived the form Contact us.");
    expect(html).toContain("deleted the webhook http://127.0.0.1:9/told.");
    expect(html).not.toContain(`>${archived.target}<`);
    expect(html).toContain("<summary>Details</summary>");
  });

  it("pages newest first with a cursor, filters by person, and refuses bad filters (422)", async () => {
    const first = await owner("GET", "/api/audit?limit=2");
    expect(first.body.entries).toHaveLength(2);
    const second = await owner("GET", `/api/audit?limit=2&cursor=${first.body.nextCursor}`);
    const all = await owner("GET", "/api/audit?limit=4");
    expect([...first.body.entries, ...second.body.entries].map((entry: Entry) => entry.id)).toEqual(
      all.body.entries.map((entry: Entry) => entry.id),
    );
    const times = all.body.entries.map((entry: Entry) => entry.at);
    expect([...times].sort().reverse()).toEqual(times);

    const mine = await owner("GET", `/api/audit?actorId=${ownerId}&limit=200`);
    expect(mine.body.entries.length).toBeGreaterThan(5);
    expect(mine.body.entries.every((entry: Entry) => entry.actor?.id === ownerId)).toBe(true);

    const bad = await owner("GET", "/api/audit?action=lead.steal&from=yesterday&cursor=zzz");
    expect(bad.status).toBe(422);
    expect([...new Set(bad.body.error.details.map((detail: { path: string }) => detail.path))].sort()).toEqual([
      "action",
      "from",
    ]);
  });

  it("is for owners and admins only, read-only, and never through a token", async () => {
    await createOrResetUser({ email: "agent@audit.example", password: PASSWORD, role: "agent" });
    const agentCookie = cookieFrom(await logIn("agent@audit.example"));
    const asAgent = await apiClient(server.url, agentCookie)("GET", "/api/audit");
    expect(asAgent.status).toBe(403);
    expect((await fetch(`${server.url}/settings/audit`, { headers: { Cookie: agentCookie } })).status).toBe(403);
    expect((await owner("DELETE", "/api/audit")).status).toBe(405);

    const token = await owner("POST", "/api/tokens", { name: "all", scopes: ["leads:read", "webhooks:manage"] });
    const viaToken = await apiClient(server.url, undefined, { Authorization: `Bearer ${token.body.token}` })(
      "GET",
      "/api/audit",
    );
    expect(viaToken.status).toBe(403);
    expect(viaToken.body.error.code).toBe("insufficient_scope");

    const html = await (
      await fetch(`${server.url}/settings/audit?action=token.create&actorId=&from=`, {
        headers: { Cookie: ownerCookie },
      })
    ).text();
    expect(html).toContain("token.create");
    expect(html).toContain("owner@audit.example");
    expect(html).toMatch(/created the API token “all” \(leads:read, webhooks:manage\)\./);
    expect(html).not.toContain("session.login_failed</td>");
  });
});
