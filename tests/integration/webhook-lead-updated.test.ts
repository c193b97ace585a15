// lead.updated against a real local receiver: a lead's status, owner or tags changed from
// the API, the lead page or a bulk action is announced once per lead, signed, with what
// changed and who changed it; a change that changes nothing is not; a Slack endpoint hears
// of status changes only.
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrResetUser } from "~/staff/user.server";
import { db } from "~/storage/db.server";
import { apiClient, loginAsStaff, STAFF, type ApiClient } from "../support/http";
import { createForm, field } from "../support/leads";
import { startServer, type TestServer } from "../support/server";
import { startReceiver, type Receiver } from "../support/webhook-receiver";

let server: TestServer;
let receiver: Receiver;
let api: ApiClient;
let cookie: string;
let formId: string;
let secret: string;
let me: { id: string; email: string; name: string | null };
let colleague: { id: string; email: string; name: string | null };

beforeAll(async () => {
  [server, receiver] = await Promise.all([
    startServer({
      WEBHOOK_ALLOW_HTTP: "true",
      WEBHOOK_ALLOW_PRIVATE: "true",
      WEBHOOK_POLL_MS: "200",
      SUBMIT_RATE_LIMIT_PER_MINUTE: "0",
    }),
    startReceiver(),
  ]);
  cookie = await loginAsStaff(server.url);
  api = apiClient(server.url, cookie);
  const select = { id: true, email: true, name: true } as const;
  me = await db.user.update({ where: { email: STAFF.email }, data: { name: "Stella Staff" }, select });
  const created = await createOrResetUser({ email: "colin@example.com", password: "a colleague's password" });
  colleague = await db.user.update({ where: { id: created.user.id }, data: { name: "Colin" }, select });
  formId = (await createForm("Updates form", [[field("name", "Name")]])).id;
  const endpoint = await api("POST", "/api/webhooks", {
    url: `${receiver.url}/updates`,
    events: ["lead.updated"],
    formId,
  });
  expect(endpoint.status, endpoint.text).toBe(201);
  secret = endpoint.body.secret;
});
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

async function submit(name: string): Promise<string> {
  const res = await apiClient(server.url)("POST", "/api/leads/submit", { formId, data: { name } });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

type Update = { type: string; timestamp: string; data: { id: string; formId: string; changes: any; actor: any } };

/**
 * The verified lead.updated events of `leadId` received at `path`, once there are `count`,
 * in the order they were written (their webhook-ids are time-ordered; deliveries go out side
 * by side, so they may arrive in another).
 */
async function updatesOf(leadId: string, count: number, path = "/updates"): Promise<Update[]> {
  const matching = () =>
    receiver.received
      .filter((request) => request.path === path)
      .sort((a, b) => (a.headers["webhook-id"] < b.headers["webhook-id"] ? -1 : 1))
      .map((request) => new Webhook(secret).verify(request.body, request.headers) as Update)
      .filter((event) => event.data.id === leadId);
  await expect.poll(() => matching().length, { timeout: 15_000, interval: 50 }).toBeGreaterThanOrEqual(count);
  return matching();
}

const eventsWritten = (leadId: string) => db.webhookEvent.count({ where: { type: "lead.updated", leadId } });

describe("a lead changed through PATCH /api/leads/:id", () => {
  it("is announced once, signed, with each change and who made it", async () => {
    const id = await submit("Patty");
    await api("PATCH", `/api/leads/${id}`, { tags: ["old"] });
    // Past the second the subscriptions are cached for: read again, before the change's
    // transaction (on SQLite a read inside it would wait for its own connection).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const res = await api("PATCH", `/api/leads/${id}`, { status: "won", ownerId: colleague.id, tags: ["vip"] });
    expect(res.status, res.text).toBe(200);

    const [, event] = await updatesOf(id, 2);
    expect(event).toMatchObject({ type: "lead.updated" });
    expect(event.data).toEqual({
      id,
      formId,
      changes: {
        status: { from: "new", to: "won" },
        owner: { from: null, to: { id: colleague.id, email: "colin@example.com", name: "Colin" } },
        tags: { added: ["vip"], removed: ["old"] },
      },
      actor: { id: me.id, email: STAFF.email, name: "Stella Staff" },
    });
  });

  it("is not announced when nothing changed", async () => {
    const id = await submit("Noel");
    await api("PATCH", `/api/leads/${id}`, { status: "contacted" });
    await updatesOf(id, 1);
    const same = await api("PATCH", `/api/leads/${id}`, { status: "contacted", ownerId: null, tags: [] });
    expect(same.status, same.text).toBe(200);
    expect(await eventsWritten(id)).toBe(1);
  });

  it("names the token's owner as the actor when an API token made the change", async () => {
    const token = await api("POST", "/api/tokens", { name: "CRM sync", scopes: ["leads:read", "leads:write"] });
    expect(token.status, token.text).toBe(201);
    const id = await submit("Toby");
    const res = await apiClient(server.url)(
      "PATCH",
      `/api/leads/${id}`,
      { status: "lost" },
      { Authorization: `Bearer ${token.body.token}` },
    );
    expect(res.status, res.text).toBe(200);
    const [event] = await updatesOf(id, 1);
    expect(event.data.actor).toEqual({ id: me.id, email: STAFF.email, name: "Stella Staff" });
    expect(event.data.changes).toEqual({ status: { from: "new", to: "lost" } });
  });
});

describe("a lead changed on its page", () => {
  it("is announced with what the form changed", async () => {
    const id = await submit("Paige");
    const res = await fetch(`${server.url}/leads/${id}`, {
      method: "POST",
      headers: { Cookie: cookie, Origin: server.url, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ intent: "update", status: "qualified", ownerId: me.id, tags: "Hot" }).toString(),
      redirect: "manual",
    });
    expect(res.status).toBe(302);
    const [event] = await updatesOf(id, 1);
    expect(event.data.changes).toEqual({
      status: { from: "new", to: "qualified" },
      owner: { from: null, to: { id: me.id, email: STAFF.email, name: "Stella Staff" } },
      tags: { added: ["hot"], removed: [] },
    });
  });
});

describe("leads changed by a bulk action", () => {
  it("are announced one event per lead changed, a lead already in that state not at all", async () => {
    const ids = [await submit("Bulk A"), await submit("Bulk B"), await submit("Bulk C")];
    await api("PATCH", `/api/leads/${ids[2]}`, { status: "won" });
    await updatesOf(ids[2], 1);
    const res = await api("POST", "/api/leads/bulk", { ids, action: "set_status", value: "won" });
    expect(res.body).toEqual({ affected: 2 });
    for (const id of ids.slice(0, 2)) {
      const [event] = await updatesOf(id, 1);
      expect(event.data).toMatchObject({ formId, changes: { status: { from: "new", to: "won" } } });
    }
    expect(await eventsWritten(ids[2])).toBe(1);

    await api("POST", "/api/leads/bulk", { ids, action: "assign", value: colleague.id });
    await api("POST", "/api/leads/bulk", { ids: ids.slice(0, 1), action: "tag", value: "fair" });
    const [, assigned, tagged] = await updatesOf(ids[0], 3);
    expect(assigned.data.changes).toEqual({
      owner: { from: null, to: { id: colleague.id, email: "colin@example.com", name: "Colin" } },
    });
    expect(tagged.data.changes).toEqual({ tags: { added: ["fair"], removed: [] } });
    expect(tagged.data.actor).toEqual({ id: me.id, email: STAFF.email, name: "Stella Staff" });
  });

  it("from the lead list are announced too", async () => {
    const id = await submit("Listed");
    const body = new URLSearchParams([
      ["intent", "bulk"],
      ["filter", ""],
      ["scope", "selected"],
      ["operation", "owner:none"],
      ["tag", ""],
      ["ids", id],
    ]);
    await api("PATCH", `/api/leads/${id}`, { ownerId: me.id });
    const res = await fetch(`${server.url}/leads`, {
      method: "POST",
      headers: { Cookie: cookie, Origin: server.url, "Content-Type": "application/x-www-form-urlencoded" },
      body: body.toString(),
      redirect: "manual",
    });
    expect(res.status).toBe(302);
    const [, unassigned] = await updatesOf(id, 2);
    expect(unassigned.data.changes).toEqual({
      owner: { from: { id: me.id, email: STAFF.email, name: "Stella Staff" }, to: null },
    });
  });
});

describe("a Slack endpoint subscribed to lead.updated", () => {
  it("gets a line for a status change and nothing for an owner or tags change", async () => {
    const slack = await api("POST", "/api/webhooks", {
      url: `${receiver.url}/slack-updates`,
      events: ["lead.updated"],
      formId,
      kind: "slack",
    });
    expect(slack.status, slack.text).toBe(201);
    const id = await submit("Sally");
    await api("PATCH", `/api/leads/${id}`, { tags: ["quiet"] });
    await api("PATCH", `/api/leads/${id}`, { status: "won" });
    await updatesOf(id, 2);
    await expect.poll(() => receiver.received.filter((request) => request.path === "/slack-updates").length).toBe(1);
    const [message] = receiver.received.filter((request) => request.path === "/slack-updates");
    expect(Object.keys(JSON.parse(message.body))).toEqual(["text"]);
    expect(JSON.parse(message.body).text).toMatch(
      new RegExp(`^Lead status: new → won, by Stella Staff\\. <https?://[^|]+/leads/${id}\\|Open the lead>$`),
    );
    const tagsEvent = await db.webhookEvent.findFirstOrThrow({
      where: { type: "lead.updated", leadId: id, payload: { contains: "quiet" } },
      select: { deliveries: { select: { endpointId: true } } },
    });
    expect(tagsEvent.deliveries.map((delivery) => delivery.endpointId)).not.toContain(slack.body.id);
    await api("DELETE", `/api/webhooks/${slack.body.id}`);
  });
});
