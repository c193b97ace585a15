// Outbound webhooks against real local receivers: the endpoints API, signed deliveries
// verified with the `standardwebhooks` package, retries with the same webhook-id, time-outs,
// redirects and huge answers, rotation, and refused destinations.
import net from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { apiClient, loginAsStaff, type ApiClient } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import { startReceiver, type Receiver } from "../support/webhook-receiver";

const QUICK = {
  WEBHOOK_ALLOW_HTTP: "true",
  WEBHOOK_ALLOW_PRIVATE: "true",
  WEBHOOK_RETRY_DELAYS: "0.5,0.5",
  WEBHOOK_TIMEOUT_MS: "1500",
  WEBHOOK_POLL_MS: "200",
  SUBMIT_RATE_LIMIT_PER_MINUTE: "0",
  SUPPORT_RATE_LIMIT_PER_HOUR: "0",
  SUPPORT_ACKS_PER_RECIPIENT_PER_DAY: "0",
};

let server: TestServer;
let call: ApiClient;
let receiver: Receiver;
let formId: string;

beforeAll(async () => {
  [server, receiver] = await Promise.all([startServer(QUICK), startReceiver()]);
  call = apiClient(server.url, await loginAsStaff(server.url));
  const form = await call("POST", "/api/forms", {
    name: "Webhook form",
    fields: [
      { key: "name", label: "Name", type: "text", required: true },
      { key: "email", label: "Email", type: "email" },
    ],
  });
  formId = form.body.id;
});
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

async function createEndpoint(body: Record<string, unknown>) {
  const res = await call("POST", "/api/webhooks", body);
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; secret: string };
}

async function submitLead(name: string, target = server) {
  const res = await apiClient(target.url)("POST", "/api/leads/submit", {
    formId,
    data: { name, email: "a@example.com" },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

/** The requests of one path, once there are `count` of them. */
async function receivedAt(path: string, count: number, timeout = 15_000) {
  const matching = () => receiver.received.filter((request) => request.path === path);
  await expect.poll(() => matching().length, { timeout, interval: 50 }).toBeGreaterThanOrEqual(count);
  return matching();
}

function verify(secret: string, request: { body: string; headers: Record<string, string> }) {
  return new Webhook(secret).verify(request.body, request.headers) as { type: string; data: any };
}

describe("the endpoints API", () => {
  it("creates an endpoint with a secret shown once, then reads, changes and deletes it", async () => {
    const created = await createEndpoint({ url: `${receiver.url}/crud`, events: ["lead.created"], description: "CRM" });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const read = await call("GET", `/api/webhooks/${created.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      url: `${receiver.url}/crud`,
      events: ["lead.created"],
      enabled: true,
      kind: "standard",
    });
    expect(read.text).not.toContain(created.secret);
    expect((await call("GET", "/api/webhooks")).body.items.map((item: { id: string }) => item.id)).toContain(
      created.id,
    );

    const changed = await call("PATCH", `/api/webhooks/${created.id}`, { events: ["lead.deleted"], enabled: false });
    expect(changed.body).toMatchObject({ events: ["lead.deleted"], enabled: false });
    expect((await call("DELETE", `/api/webhooks/${created.id}`)).status).toBe(204);
    expect((await call("GET", `/api/webhooks/${created.id}`)).status).toBe(404);
  });

  it("answers 422 naming the field for a bad URL, an unknown event or an unknown form, and 404 for unknown ids", async () => {
    const refused = async (body: Record<string, unknown>, path: string) => {
      const res = await call("POST", "/api/webhooks", { url: `${receiver.url}/x`, events: ["lead.created"], ...body });
      expect(res.status, res.text).toBe(422);
      expect(res.body.error.details.map((detail: { path: string }) => detail.path)).toContain(path);
    };
    await refused({ url: "not a url" }, "url");
    await refused({ url: "ftp://example.com/hook" }, "url");
    await refused({ url: "http://user:pass@127.0.0.1/hook" }, "url");
    await refused({ events: ["lead.exploded"] }, "events.0");
    await refused({ events: [] }, "events");
    await refused({ formId: "no-such-form" }, "formId");
    await refused({ kind: "teams" }, "kind");
    for (const [method, path] of [
      ["GET", "/api/webhooks/nope"],
      ["PATCH", "/api/webhooks/nope"],
      ["DELETE", "/api/webhooks/nope"],
      ["POST", "/api/webhooks/nope/rotate-secret"],
      ["POST", "/api/webhooks/nope/test"],
      ["GET", "/api/webhooks/nope/deliveries"],
      ["POST", "/api/webhooks/nope/deliveries/nope/retry"],
    ]) {
      const res = await call(method, path, method === "PATCH" ? { description: "x" } : undefined);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code).toBe("not_found");
    }
  });

  it("needs a staff session", async () => {
    const anonymous = apiClient(server.url);
    expect((await anonymous("GET", "/api/webhooks")).status).toBe(401);
    expect(
      (await anonymous("POST", "/api/webhooks", { url: `${receiver.url}/x`, events: ["lead.created"] })).status,
    ).toBe(401);
  });
});

describe("delivering lead.created", () => {
  it("signs with the endpoint's secret (verified by standardwebhooks) and carries the lead as the API shows it", async () => {
    const endpoint = await createEndpoint({ url: `${receiver.url}/signed`, events: ["lead.created"], formId });
    const leadId = await submitLead("Signed Sam");
    const [request] = await receivedAt("/signed", 1);
    const event = verify(endpoint.secret, request);
    expect(event.type).toBe("lead.created");
    const shown = await call("GET", `/api/leads/${leadId}`);
    // The lead itself: staff's notes and timeline, and the person's other records, stay in.
    const { notes: _n, timeline: _t, history: _h, stage: _s, ...lead } = shown.body.lead;
    expect(event.data).toEqual(lead);
    expect(request.headers["webhook-id"]).toMatch(/^msg_/);
    expect(() => verify(`whsec_${Buffer.alloc(32, 1).toString("base64")}`, request)).toThrow();
    await call("DELETE", `/api/webhooks/${endpoint.id}`);
  });

  it("retries a 500 with the same webhook-id until it succeeds, and logs each attempt", async () => {
    let failures = 1;
    receiver.answer = (request, response) => {
      if (request.path === "/flaky" && failures-- > 0) response.writeHead(500).end("down for a moment");
      else response.writeHead(200).end("ok");
    };
    const endpoint = await createEndpoint({ url: `${receiver.url}/flaky`, events: ["lead.created"], formId });
    await submitLead("Retry Rita");
    const [first, second] = await receivedAt("/flaky", 2);
    expect(second.headers["webhook-id"]).toBe(first.headers["webhook-id"]);
    expect(second.at - first.at).toBeGreaterThanOrEqual(400);
    verify(endpoint.secret, second);
    await expect
      .poll(async () => (await call("GET", `/api/webhooks/${endpoint.id}/deliveries`)).body.items[0]?.status)
      .toBe("succeeded");
    const [delivery] = (await call("GET", `/api/webhooks/${endpoint.id}/deliveries`)).body.items;
    expect(delivery).toMatchObject({ eventType: "lead.created", attemptCount: 2 });
    expect(delivery.attempts.map((attempt: { statusCode: number }) => attempt.statusCode)).toEqual([500, 200]);
    expect(delivery.attempts[0].responseBody).toBe("down for a moment");
    await call("DELETE", `/api/webhooks/${endpoint.id}`);
  });

  it("gives up after the last retry, and a manual retry sends it again", async () => {
    receiver.answer = (request, response) => response.writeHead(request.path === "/broken" ? 503 : 204).end();
    const endpoint = await createEndpoint({ url: `${receiver.url}/broken`, events: ["lead.created"], formId });
    await submitLead("Failing Fay");
    await receivedAt("/broken", 3);
    const deliveries = async () => (await call("GET", `/api/webhooks/${endpoint.id}/deliveries`)).body.items;
    await expect.poll(async () => (await deliveries())[0]?.status).toBe("failed");
    const [failed] = await deliveries();
    expect(failed.attemptCount).toBe(3);

    receiver.answer = (_, response) => response.writeHead(204).end();
    const retried = await call("POST", `/api/webhooks/${endpoint.id}/deliveries/${failed.id}/retry`);
    expect(retried.status).toBe(202);
    await expect.poll(async () => (await deliveries())[0]?.status).toBe("succeeded");
    await call("DELETE", `/api/webhooks/${endpoint.id}`);
  });

  it("is not held up by a receiver that never answers, follows no redirect and keeps 1 KB of a huge answer", async () => {
    receiver.answer = (request, response) => {
      if (request.path === "/silent") return; // never answers
      if (request.path === "/redirect") return response.writeHead(302, { Location: "/elsewhere" }).end();
      if (request.path === "/huge") return response.writeHead(200).end("x".repeat(5_000_000));
      response.writeHead(204).end();
    };
    const silent = await createEndpoint({ url: `${receiver.url}/silent`, events: ["lead.created"], formId });
    const redirect = await createEndpoint({ url: `${receiver.url}/redirect`, events: ["lead.created"], formId });
    const huge = await createEndpoint({ url: `${receiver.url}/huge`, events: ["lead.created"], formId });
    const submitted = Date.now();
    await submitLead("Slow Sid");
    const [hugeRequest] = await receivedAt("/huge", 1);
    // Delivered side by side: the silent receiver's 1.5 s time-out did not come first.
    expect(hugeRequest.at - submitted).toBeLessThan(1_400);
    const firstAttempt = async (id: string) =>
      (await call("GET", `/api/webhooks/${id}/deliveries`)).body.items[0]?.attempts[0];
    await expect.poll(() => firstAttempt(silent.id), { timeout: 10_000 }).toMatchObject({ statusCode: null });
    expect((await firstAttempt(silent.id)).error).toMatch(/No answer within 1500 ms/);
    await expect.poll(() => firstAttempt(redirect.id)).toMatchObject({ statusCode: 302 });
    expect(receiver.received.some((request) => request.path === "/elsewhere")).toBe(false);
    await expect.poll(() => firstAttempt(huge.id)).toMatchObject({ statusCode: 200 });
    expect((await firstAttempt(huge.id)).responseBody).toHaveLength(1024);
    for (const endpoint of [silent, redirect, huge]) await call("DELETE", `/api/webhooks/${endpoint.id}`);
    receiver.answer = (_, response) => response.writeHead(204).end();
  });

  it("yields to a saturated server: delivers at most a batch a second while 16 requests are in flight, at once after", async () => {
    await createEndpoint({ url: `${receiver.url}/yield`, events: ["lead.created"], formId });
    // Twenty submissions whose bodies never finish arriving: twenty requests in flight.
    const { hostname, port } = new URL(server.url);
    const held = await Promise.all(
      Array.from(
        { length: 20 },
        () =>
          new Promise<net.Socket>((resolve) => {
            const socket = net.connect(Number(port), hostname, () => {
              socket.write(
                `POST /api/leads/submit HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`,
              );
              resolve(socket);
            });
          }),
      ),
    );
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const submitted = Date.now();
      await submitLead("Busy Bea");
      // Idle, it goes out within the 50 ms nudge; busy, it waits for the next pass a second allows.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.received.filter((request) => request.path === "/yield")).toHaveLength(0);
      const [first] = await receivedAt("/yield", 1, 3_000);
      expect(first.at - submitted).toBeLessThan(2_000);
    } finally {
      for (const socket of held) socket.destroy();
    }
    const freed = Date.now();
    await submitLead("Idle Ida");
    const [, second] = await receivedAt("/yield", 2);
    expect(second.at - freed).toBeLessThan(1_000);
  });

  it("sends nothing for spam, and nothing to an endpoint of another form or another event", async () => {
    const other = await call("POST", "/api/forms", {
      name: "Other",
      fields: [{ key: "name", label: "Name", type: "text" }],
    });
    const elsewhere = await createEndpoint({
      url: `${receiver.url}/other-form`,
      events: ["lead.created"],
      formId: other.body.id,
    });
    const deletions = await createEndpoint({ url: `${receiver.url}/deletions`, events: ["lead.deleted"] });
    const mine = await createEndpoint({ url: `${receiver.url}/mine`, events: ["lead.created"], formId });
    const spam = await apiClient(server.url)("POST", "/api/leads/submit", {
      formId,
      data: { name: "Bot" },
      _hp: "filled honeypot",
    });
    expect(spam.status).toBe(201);
    await submitLead("Quiet Quinn");
    await receivedAt("/mine", 1);
    await new Promise((resolve) => setTimeout(resolve, 800));
    const mineReceived = receiver.received.filter((r) => r.path === "/mine");
    expect(mineReceived.map((r) => JSON.parse(r.body).data.data.name)).toEqual(["Quiet Quinn"]);
    expect(receiver.received.filter((r) => ["/other-form", "/deletions"].includes(r.path))).toHaveLength(0);
    for (const endpoint of [elsewhere, deletions, mine]) await call("DELETE", `/api/webhooks/${endpoint.id}`);
  });
});

describe("an endpoint deleted meanwhile", () => {
  it("costs no lead: one deleted on another instance (this server's cache still names it) is skipped", async () => {
    const endpoint = await createEndpoint({ url: `${receiver.url}/vanishing`, events: ["lead.created"], formId });
    await submitLead("Cache Carl"); // this server now caches the endpoint for up to a second
    await db.webhookEndpoint.delete({ where: { id: endpoint.id } }); // as another instance would
    const leadId = await submitLead("Orphan Olga");
    expect(await db.lead.count({ where: { id: leadId } })).toBe(1);
    // Its event is fanned out to no delivery, and is done with.
    await expect.poll(() => db.webhookEvent.count({ where: { fanOutTo: { contains: endpoint.id } } })).toBe(0);
    expect(await db.webhookDelivery.count({ where: { endpointId: endpoint.id } })).toBe(0);
  });

  it("while its delivery is in flight, does not undo the other deliveries of the batch", async () => {
    receiver.answer = (request, response) => {
      if (request.path === "/deleted-in-flight") setTimeout(() => response.writeHead(204).end(), 400);
      else response.writeHead(204).end();
    };
    const doomed = await createEndpoint({ url: `${receiver.url}/deleted-in-flight`, events: ["lead.created"], formId });
    const mate = await createEndpoint({ url: `${receiver.url}/batch-mate`, events: ["lead.created"], formId });
    await submitLead("Batch Bea");
    await receivedAt("/deleted-in-flight", 1);
    expect((await call("DELETE", `/api/webhooks/${doomed.id}`)).status).toBe(204);
    await expect
      .poll(async () => (await call("GET", `/api/webhooks/${mate.id}/deliveries`)).body.items[0]?.status, {
        timeout: 5_000,
      })
      .toBe("succeeded");
    expect(receiver.received.filter((r) => r.path === "/batch-mate")).toHaveLength(1);
    receiver.answer = (_, response) => response.writeHead(204).end();
    await call("DELETE", `/api/webhooks/${mate.id}`);
  });
});

describe("delivering lead.deleted", () => {
  it("carries the lead as it was, once it is deleted, and nothing for a lead that did not exist", async () => {
    const endpoint = await createEndpoint({ url: `${receiver.url}/deleted`, events: ["lead.deleted"], formId });
    const leadId = await submitLead("Gone Gina");
    const {
      notes: _n,
      timeline: _t,
      history: _h,
      stage: _s,
      ...before
    } = (await call("GET", `/api/leads/${leadId}`)).body.lead;
    expect((await call("DELETE", `/api/leads/${leadId}`)).status).toBe(204);
    const [request] = await receivedAt("/deleted", 1);
    const event = verify(endpoint.secret, request);
    expect(event.type).toBe("lead.deleted");
    expect(event.data).toEqual(before);
    expect((await call("DELETE", `/api/leads/${leadId}`)).status).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received.filter((r) => r.path === "/deleted")).toHaveLength(1);
    await call("DELETE", `/api/webhooks/${endpoint.id}`);
  });
});

describe("support request events", () => {
  it("announces a new request, a status change and a received email, each with the request as the API shows it", async () => {
    const endpoint = await createEndpoint({
      url: `${receiver.url}/support`,
      events: ["support_request.created", "support_request.status_changed", "support_request.message_received"],
    });
    // An endpoint limited to a form gets no support events: they belong to no form.
    const formOnly = await createEndpoint({
      url: `${receiver.url}/support-form`,
      events: ["support_request.created"],
      formId,
    });
    const events = async (count: number) =>
      (await receivedAt("/support", count)).map((request) => verify(endpoint.secret, request));

    const created = await apiClient(server.url)("POST", "/api/support-requests", {
      email: "hooked@example.com",
      subject: "Where is my invoice?",
      message: "I cannot find it.",
    });
    expect(created.status).toBe(201);
    const reference = created.body.reference as string;
    const [first] = await events(1);
    expect(first.type).toBe("support_request.created");
    expect(first.data).toMatchObject({ reference, status: "open", subject: "Where is my invoice?" });
    expect(first.data.messages.map((message: { body: string }) => message.body)).toEqual(["I cannot find it."]);

    expect((await call("PATCH", `/api/support-requests/${reference}`, { status: "closed" })).status).toBe(200);
    // The same status again changes nothing, and announces nothing.
    expect((await call("PATCH", `/api/support-requests/${reference}`, { status: "closed" })).status).toBe(200);
    const [, second] = await events(2);
    expect(second.type).toBe("support_request.status_changed");
    expect(second.data).toMatchObject({ reference, status: "closed" });

    const inbound = await apiClient(server.url)(
      "POST",
      "/api/support-requests/inbound",
      { from: "someone-else@example.com", subject: `Re: invoice [#${reference}]`, text: "Any news?" },
      { "x-inbound-secret": process.env.INBOUND_SECRET! },
    );
    expect(inbound.status).toBe(201);
    const all = await events(3);
    expect(all[2].type).toBe("support_request.message_received");
    expect(all[2].data.messages.at(-1)).toMatchObject({ body: "Any news?", unverifiedSender: true });
    // A stranger's email reopens nothing, so no status change came with it.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received.filter((r) => r.path === "/support")).toHaveLength(3);
    expect(receiver.received.filter((r) => r.path === "/support-form")).toHaveLength(0);
    for (const each of [endpoint, formOnly]) await call("DELETE", `/api/webhooks/${each.id}`);
  });
});

describe("a Slack endpoint", () => {
  it("gets a Slack message with the form's name and the lead's fields, not the signed body", async () => {
    const endpoint = await createEndpoint({
      url: `${receiver.url}/slack`,
      events: ["lead.created"],
      formId,
      kind: "slack",
    });
    await submitLead("Slack Sally");
    const [request] = await receivedAt("/slack", 1);
    const message = JSON.parse(request.body);
    expect(message.text).toBe("New lead in “Webhook form”");
    expect(message.blocks[1].fields[0].text).toBe("*Name*\nSlack Sally");
    expect(request.headers["webhook-signature"]).toBeUndefined();
    await call("DELETE", `/api/webhooks/${endpoint.id}`);
  });
});

describe("secrets and test events", () => {
  it("signs under both secrets for 24 hours after a rotation, and a test sends a ping", async () => {
    const endpoint = await createEndpoint({ url: `${receiver.url}/rotated`, events: ["lead.created"] });
    const rotated = await call("POST", `/api/webhooks/${endpoint.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    expect(Date.parse(rotated.body.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(23.9 * 3600_000);

    const ping = await call("POST", `/api/webhooks/${endpoint.id}/test`);
    expect(ping.status).toBe(202);
    const [request] = await receivedAt("/rotated", 1);
    expect(request.headers["webhook-id"]).toBe(ping.body.eventId);
    expect(request.headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(verify(endpoint.secret, request).type).toBe("ping");
    expect(verify(rotated.body.secret, request).type).toBe("ping");
    // A second rotation within the 24 hours would drop the secret the receiver may still use.
    const again = await call("POST", `/api/webhooks/${endpoint.id}/rotate-secret`);
    expect(again.status).toBe(409);
    expect(again.body.error.message).toMatch(/rotated less than 24 hours ago/);
    await call("DELETE", `/api/webhooks/${endpoint.id}`);
  });
});

describe("refused destinations", () => {
  it("refuses loopback, private and metadata addresses unless WEBHOOK_ALLOW_PRIVATE is set, and http unless allowed", async () => {
    const strict = await startServer({ SUBMIT_RATE_LIMIT_PER_MINUTE: "0" });
    try {
      const strictCall = apiClient(strict.url, await loginAsStaff(strict.url));
      for (const url of [
        "https://127.0.0.1/hook",
        "https://localhost/hook",
        "https://10.1.2.3/hook",
        "https://192.168.0.10/hook",
        "https://169.254.169.254/latest/meta-data",
        "https://[::1]/hook",
        "https://[::ffff:10.0.0.1]/hook",
        "https://[fd00:ec2::254]/hook",
        "https://224.0.0.1/hook",
        `${receiver.url}/plain-http`,
      ]) {
        const res = await strictCall("POST", "/api/webhooks", { url, events: ["lead.created"] });
        expect(res.status, url).toBe(422);
        expect(res.body.error.details[0].path).toBe("url");
      }
      expect(await db.webhookEndpoint.count({ where: { url: { contains: "plain-http" } } })).toBe(0);
    } finally {
      await strict.stop();
    }
  });
});
