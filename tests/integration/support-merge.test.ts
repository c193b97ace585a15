// Merging support requests (decision 072): the source's thread, notes and attachments move
// into the target in time order, the source answers with a pointer, later replies to its
// reference are filed in the target, every bad merge is refused in the one error shape, and
// the merge is in the audit log. Also the spam filter of the list.
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { replyAddress } from "~/support/inbound/sender-trust.server";
import { apiClient, staffSession, type ApiClient } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import { bearer, inboundSecret, openTicket } from "../support/support-desk";
import { startReceiver } from "../support/webhook-receiver";

let server: TestServer;
let call: ApiClient;
let owner: Awaited<ReturnType<typeof staffSession>>;
let opened = 0;

beforeAll(async () => {
  server = await startServer({
    SUPPORT_RATE_LIMIT_PER_HOUR: "0",
    SUPPORT_ACKS_PER_RECIPIENT_PER_DAY: "0",
    WEBHOOK_ALLOW_HTTP: "true",
    WEBHOOK_ALLOW_PRIVATE: "true",
    WEBHOOK_POLL_MS: "200",
  });
  call = apiClient(server.url);
  owner = await staffSession(server.url, { email: "owner@merge.example", password: "merge password", role: "owner" });
});
afterAll(async () => {
  await server?.stop();
});

/** A ticket of `email` (a customer of its own by default). */
function ticket(email = `merge${++opened}@customer.example`) {
  return openTicket(call, { email, subject: `Merge ${++opened}`, message: `First message ${opened}.` });
}

function inbound(reference: string, from: string, text: string, extra: Record<string, unknown> = {}) {
  return call(
    "POST",
    "/api/support-requests/inbound",
    { from, to: replyAddress(reference), subject: `Re: [#${reference}]`, text, ...extra },
    inboundSecret(),
  );
}

const merge = (reference: string, body: unknown, client = owner.call) =>
  client("POST", `/api/support-requests/${reference}/merge`, body);

async function thread(reference: string) {
  const res = await call("GET", `/api/support-requests/${reference}`, undefined, bearer());
  expect(res.status, res.text).toBe(200);
  return res.body.ticket;
}

function expectError(res: { status: number; body: any }, status: number, code: string, path?: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toEqual({ error: expect.objectContaining({ code, message: expect.any(String) }) });
  if (path) expect(res.body.error.details.map((detail: { path: string }) => detail.path)).toContain(path);
}

describe("merging a support request into another", () => {
  it("moves messages, notes and attachments in time order, closes the source with a pointer, and is audited", async () => {
    const source = await ticket("same@customer.example");
    const target = await ticket("same@customer.example");
    const file = {
      filename: "log.txt",
      contentType: "text/plain",
      content: Buffer.from("log lines").toString("base64"),
    };
    expect((await inbound(source.reference, source.email, "Later, with a log.", { attachments: [file] })).status).toBe(
      201,
    );
    const note = await owner.call("POST", `/api/support-requests/${source.reference}/notes`, { body: "VIP customer." });
    expect(note.status, note.text).toBe(201);

    const res = await merge(source.reference.toLowerCase(), { into: `#${target.reference}` });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      merged: {
        reference: source.reference,
        mergedInto: target.reference,
        moved: { messages: 2, notes: 1, emails: 1 },
      },
    });

    const merged = await thread(target.reference);
    // The source's first message, the target's, then the source's later reply: by time.
    expect(merged.messages.map((message: { body: string }) => message.body)).toEqual([
      `First message ${Number(source.subject.split(" ")[1])}.`,
      `First message ${Number(target.subject.split(" ")[1])}.`,
      "Later, with a log.",
    ]);
    const [attachment] = merged.messages[2].attachments;
    expect(attachment).toMatchObject({ filename: "log.txt", size: 9 });
    expect(attachment.url).toContain(`/support/${target.reference}/attachments/`);
    const download = await fetch(`${server.url}${attachment.url}`, { headers: { Cookie: owner.cookie } });
    expect(await download.text()).toBe("log lines");
    expect(merged.notes.map((n: { body: string }) => n.body)).toEqual(["VIP customer."]);
    expect(merged.mergedInto).toBeNull();

    const closed = await thread(source.reference);
    expect(closed).toMatchObject({ status: "closed", mergedInto: target.reference, messages: [], notes: [] });

    const audit = await owner.call("GET", "/api/audit?action=support.merge&limit=1");
    expect(audit.body.entries[0]).toMatchObject({
      action: "support.merge",
      actor: { id: owner.id, email: "owner@merge.example" },
      target: `ticket:${source.reference}`,
      details: { into: target.reference, messages: 2, notes: 1, emails: 1 },
      summary: expect.stringMatching(
        new RegExp(
          `merged the support request ${source.reference} into ${target.reference} \\(2 messages, 1 note moved\\)\\.$`,
        ),
      ),
    });
  });

  it("files a later reply to the old reference into the target, verified, and a redelivery finds it there", async () => {
    const source = await ticket();
    const target = await ticket();
    const before = await inbound(source.reference, source.email, "Filed before the merge.", { messageId: "<m1@x>" });
    expect(before.status).toBe(201);
    await owner.call("PATCH", `/api/support-requests/${target.reference}`, { status: "pending" });
    expect((await merge(source.reference, { into: target.reference })).status).toBe(200);

    const reply = await inbound(source.reference, source.email, "A reply to the old reference.");
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body.ticketReference).toBe(target.reference);
    const merged = await thread(target.reference);
    expect(merged.messages.at(-1)).toMatchObject({ body: "A reply to the old reference.", unverifiedSender: false });
    // The source's customer answered: the target waits on staff again.
    expect(merged.status).toBe("open");
    expect((await thread(source.reference)).messages).toEqual([]);

    const again = await inbound(source.reference, source.email, "Filed before the merge.", { messageId: "<m1@x>" });
    expect(again.body).toEqual({
      duplicate: true,
      ticketReference: target.reference,
      messageId: before.body.messageId,
    });
    expect(await db.ticketMessage.count({ where: { body: "Filed before the merge." } })).toBe(1);
  });

  it("refuses bad merges in the one error shape, and moves nothing", async () => {
    const a = await ticket();
    const b = await ticket();
    expectError(await merge(a.reference, { into: a.reference }), 422, "validation_failed", "into");
    expectError(await merge(a.reference, { into: "SR-999999" }), 422, "validation_failed", "into");
    expectError(await merge(a.reference, { into: "" }), 422, "validation_failed", "into");
    expectError(await merge(a.reference, {}), 422, "validation_failed", "into");
    expectError(await merge(a.reference, { into: b.reference, also: 1 }), 422, "validation_failed", "also");
    expectError(await merge(a.reference, { into: 42 }), 422, "validation_failed", "into");
    expectError(await merge("SR-999999", { into: b.reference }), 404, "not_found");
    const get = await owner.call("GET", `/api/support-requests/${a.reference}/merge`);
    expectError(get, 405, "method_not_allowed");
    expectError(
      await call("POST", `/api/support-requests/${a.reference}/merge`, { into: b.reference }),
      401,
      "unauthorized",
    );
    expect((await thread(a.reference)).messages).toHaveLength(1);
    expect((await thread(b.reference)).messages).toHaveLength(1);
  });

  it("keeps every pointer one hop: a chain is re-pointed, a cycle and a merged target are refused", async () => {
    const a = await ticket();
    const b = await ticket();
    const c = await ticket();
    expect((await merge(a.reference, { into: b.reference })).status).toBe(200);
    // Into a ticket that was itself merged: refused, naming where it went.
    const intoMerged = await merge(c.reference, { into: a.reference });
    expectError(intoMerged, 409, "conflict", "into");
    expect(intoMerged.body.error.message).toContain(b.reference);
    expectError(await merge(a.reference, { into: c.reference }), 409, "conflict");

    // The API key merges too (no staff actor): b, holding a's thread, into c.
    const byKey = await call("POST", `/api/support-requests/${b.reference}/merge`, { into: c.reference }, bearer());
    expect(byKey.status, byKey.text).toBe(200);
    expect((await thread(a.reference)).mergedInto).toBe(c.reference);
    expect((await thread(b.reference)).mergedInto).toBe(c.reference);
    expect((await thread(c.reference)).messages).toHaveLength(3);
    // Back round to a would close the cycle: a is merged, so it cannot be a target.
    expectError(await merge(c.reference, { into: a.reference }), 409, "conflict", "into");
    const reply = await inbound(a.reference, a.email, "Via the first reference.");
    expect(reply.body.ticketReference).toBe(c.reference);
  });

  it("refuses staff replies and notes on a merged request (409), pointing to the target", async () => {
    const a = await ticket();
    const b = await ticket();
    await merge(a.reference, { into: b.reference });
    const reply = await owner.call("POST", `/api/support-requests/${a.reference}/replies`, { message: "Hello?" });
    expectError(reply, 409, "conflict");
    expect(reply.body.error.message).toContain(b.reference);
    expectError(await owner.call("POST", `/api/support-requests/${a.reference}/notes`, { body: "x" }), 409, "conflict");
  });

  it("merges crossed requests (a into b, b into a) at once: one wins, the other is refused", async () => {
    const a = await ticket();
    const b = await ticket();
    const [first, second] = await Promise.all([
      merge(a.reference, { into: b.reference }),
      merge(b.reference, { into: a.reference }),
    ]);
    expect([first.status, second.status].sort()).toEqual([200, 409]);
    const pointers = await db.ticket.findMany({
      where: { reference: { in: [a.reference, b.reference] } },
      select: { mergedIntoId: true },
    });
    expect(pointers.filter((row) => row.mergedIntoId !== null)).toHaveLength(1);
    expect(await db.ticketMessage.count({ where: { ticket: { reference: { in: [a.reference, b.reference] } } } })).toBe(
      2,
    );
  });
});

describe("merging with a webhook subscribed", () => {
  it("announces the source's closing, with its pointer, in the merge's own transaction", async () => {
    const receiver = await startReceiver();
    try {
      const endpoint = await owner.call("POST", "/api/webhooks", {
        url: `${receiver.url}/merge`,
        events: ["support_request.status_changed"],
      });
      expect(endpoint.status, endpoint.text).toBe(201);
      const a = await ticket();
      const b = await ticket();
      expect((await merge(a.reference, { into: b.reference })).status).toBe(200);
      await expect.poll(() => receiver.received.length, { timeout: 15_000, interval: 50 }).toBe(1);
      const event = new Webhook(endpoint.body.secret).verify(receiver.received[0].body, receiver.received[0].headers);
      expect(event).toMatchObject({
        type: "support_request.status_changed",
        data: { reference: a.reference, status: "closed", mergedInto: b.reference, messages: [] },
      });
      expect((await thread(b.reference)).messages).toHaveLength(2);
      await owner.call("DELETE", `/api/webhooks/${endpoint.body.id}`);
    } finally {
      await receiver.close();
    }
  });
});

describe("spam in the support list", () => {
  it("shows spam-flagged requests by default, hides them with spam=hide, lists only them with spam=only", async () => {
    const spam = await ticket();
    const ham = await ticket();
    await db.ticket.update({ where: { reference: spam.reference }, data: { spam: true } });
    const list = async (query: string) => {
      const res = await owner.call("GET", `/api/support-requests?limit=100${query}`);
      expect(res.status, res.text).toBe(200);
      return res.body.tickets.map((t: { reference: string }) => t.reference);
    };
    expect(await list("")).toEqual(expect.arrayContaining([spam.reference, ham.reference]));
    const hidden = await list("&spam=hide");
    expect(hidden).toContain(ham.reference);
    expect(hidden).not.toContain(spam.reference);
    const only = await list("&spam=only");
    expect(only).toContain(spam.reference);
    expect(only).not.toContain(ham.reference);
    expectError(await owner.call("GET", "/api/support-requests?spam=maybe"), 422, "validation_failed", "spam");

    const html = await (await fetch(`${server.url}/support?spam=only`, { headers: { Cookie: owner.cookie } })).text();
    expect(html).toContain('<span class="badge spam">spam</span>');
  });
});
