// The support desk for a team: assignment (API, filters, the assignee told of customer
// replies), internal notes that are never emailed, and the collision notice when another
// agent replied after the page was loaded.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, staffSession } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import { startSmtp, type TestSmtp } from "../support/smtp";
import { bearer, inboundSecret, openTicket } from "../support/support-desk";
import type { ParsedMail } from "mailparser";

const PASSWORD = "support desk password";
let server: TestServer;
let smtp: TestSmtp;

const agent = async (email: string) => ({
  email,
  ...(await staffSession(server.url, { email, password: PASSWORD, role: "agent" })),
});

let ann: Awaited<ReturnType<typeof agent>>;
let bob: Awaited<ReturnType<typeof agent>>;

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    OUTBOX_POLL_MS: "100",
    SUPPORT_RATE_LIMIT_PER_HOUR: "0",
    SUPPORT_ACKS_PER_RECIPIENT_PER_DAY: "0",
  });
  ann = await agent("ann@desk.example");
  bob = await agent("bob@desk.example");
});
afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

// One customer's tickets, each with the subject the test names (not support-desk.ts's newTicket: a customer a ticket).
async function newTicket(subject: string): Promise<string> {
  const ticket = await openTicket(apiClient(server.url), {
    email: "customer@desk.example",
    subject,
    message: "Hello, I need help.",
  });
  return ticket.reference;
}

const to = (mail: ParsedMail) => (Array.isArray(mail.to) ? undefined : mail.to?.value[0]?.address);

describe("assignment", () => {
  it("assigns and unassigns through the API, refusing anyone but an enabled staff user (422)", async () => {
    const reference = await newTicket("Assign me");
    const assigned = await ann.call("PATCH", `/api/support-requests/${reference}`, { assigneeId: bob.id });
    expect(assigned.status, assigned.text).toBe(200);
    expect(assigned.body.ticket.assignee).toEqual({ id: bob.id, email: bob.email, name: null });
    expect((await ann.call("GET", `/api/support-requests/${reference}`)).body.ticket.assignee.id).toBe(bob.id);

    const unknown = await ann.call("PATCH", `/api/support-requests/${reference}`, { assigneeId: "no-such-user" });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.details).toEqual([{ path: "assigneeId", message: "No enabled staff user has this id." }]);
    const empty = await ann.call("PATCH", `/api/support-requests/${reference}`, {});
    expect(empty.status).toBe(422);
    const blank = await ann.call("PATCH", `/api/support-requests/${reference}`, { assigneeId: "" });
    expect(blank.status).toBe(422);
    expect(blank.body.error.details[0].path).toBe("assigneeId");

    const cleared = await ann.call("PATCH", `/api/support-requests/${reference}`, {
      assigneeId: null,
      status: "pending",
    });
    expect(cleared.body.ticket).toMatchObject({ assignee: null, status: "pending" });
  });

  it("filters the list by mine, unassigned and agent; 'mine' needs a staff user", async () => {
    const mine = await newTicket("Filter mine");
    const bobs = await newTicket("Filter bob");
    const nobody = await newTicket("Filter nobody");
    await ann.call("PATCH", `/api/support-requests/${mine}`, { assigneeId: ann.id });
    await ann.call("PATCH", `/api/support-requests/${bobs}`, { assigneeId: bob.id });
    const references = async (query: string) =>
      (await ann.call("GET", `/api/support-requests?limit=100&${query}`)).body.tickets.map(
        (ticket: { reference: string }) => ticket.reference,
      );
    expect(await references("assignee=mine")).toContain(mine);
    expect(await references("assignee=mine")).not.toContain(bobs);
    expect(await references(`assignee=${bob.id}`)).toEqual(expect.arrayContaining([bobs]));
    expect(await references(`assignee=${bob.id}`)).not.toContain(mine);
    expect(await references("assignee=unassigned")).toContain(nobody);
    expect(await references("assignee=unassigned")).not.toContain(mine);
    const withKey = await apiClient(server.url, undefined, bearer())("GET", "/api/support-requests?assignee=mine");
    expect(withKey.status).toBe(422);

    const page = await (
      await fetch(`${server.url}/support?assignee=mine&status=&q=`, { headers: { Cookie: ann.cookie } })
    ).text();
    expect(page).toContain(mine);
    expect(page).not.toContain(bobs);
  });

  it("tells the assignee of a customer's reply by email", async () => {
    const reference = await newTicket("Tell the assignee");
    await ann.call("PATCH", `/api/support-requests/${reference}`, { assigneeId: bob.id });
    const res = await fetch(`${server.url}/api/support-requests/inbound`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...inboundSecret() },
      body: JSON.stringify({
        from: "customer@desk.example",
        subject: `Re: Tell the assignee [#${reference}]`,
        text: "Any news about my request?",
      }),
    });
    expect(res.status).toBe(201);
    await expect
      .poll(() => smtp.received.filter((mail) => to(mail) === bob.email && mail.subject?.includes(reference)).length, {
        timeout: 15_000,
      })
      .toBe(1);
    expect(smtp.received.some((mail) => to(mail) === ann.email && mail.subject?.includes(reference))).toBe(false);
  });
});

describe("internal notes", () => {
  it("are added by API and page, shown apart from the conversation, and never emailed", async () => {
    const reference = await newTicket("Notes");
    const added = await ann.call("POST", `/api/support-requests/${reference}/notes`, {
      body: "Customer is on the old plan; check billing first.",
    });
    expect(added.status, added.text).toBe(201);
    expect(added.body.note).toMatchObject({ body: "Customer is on the old plan; check billing first." });
    expect(added.body.note.authorUser).toMatchObject({ id: ann.id, email: ann.email });
    expect((await ann.call("POST", `/api/support-requests/${reference}/notes`, { body: "   " })).status).toBe(422);
    expect((await ann.call("POST", "/api/support-requests/SR-999999/notes", { body: "x" })).status).toBe(404);

    const page = await fetch(`${server.url}/support/${reference}`, {
      method: "POST",
      headers: { Cookie: bob.cookie, Origin: server.url, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ intent: "note", body: "Billing confirmed: refund due." }).toString(),
      redirect: "manual",
    });
    expect(page.status).toBe(302);
    const thread = (await ann.call("GET", `/api/support-requests/${reference}`)).body.ticket;
    expect(thread.notes.map((note: { body: string }) => note.body)).toEqual([
      "Customer is on the old plan; check billing first.",
      "Billing confirmed: refund due.",
    ]);
    expect(JSON.stringify(thread.messages)).not.toContain("refund due");
    // Give the outbox its turn, then check no email carried a note.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(smtp.received.some((mail) => mail.text?.includes("refund due") || mail.text?.includes("old plan"))).toBe(
      false,
    );
  });
});

describe("the collision notice", () => {
  it("asks for confirmation when another agent replied after the page was loaded, then sends", async () => {
    const reference = await newTicket("Collision");
    const thread = (await ann.call("GET", `/api/support-requests/${reference}`)).body.ticket;
    const seen = thread.messages.at(-1).id;
    // Bob answers while Ann is still typing.
    expect(
      (await bob.call("POST", `/api/support-requests/${reference}/replies`, { message: "Bob here." })).status,
    ).toBe(201);
    const send = (extra: Record<string, string>) =>
      fetch(`${server.url}/support/${reference}`, {
        method: "POST",
        headers: { Cookie: ann.cookie, Origin: server.url, "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ intent: "reply", message: "Ann here.", seen, ...extra }).toString(),
        redirect: "manual",
      });
    const asked = await send({});
    expect(asked.status).toBe(409);
    const html = await asked.text();
    expect(html).toContain("Another reply was sent after you opened this page");
    expect(html).toContain('name="confirm" value="1"');
    expect(html).toContain("Ann here.");
    const messages = async () => (await ann.call("GET", `/api/support-requests/${reference}`)).body.ticket.messages;
    expect((await messages()).map((message: { body: string }) => message.body)).not.toContain("Ann here.");

    expect((await send({ confirm: "1" })).status).toBe(302);
    expect((await messages()).map((message: { body: string }) => message.body)).toContain("Ann here.");

    // Her own earlier reply does not count as a collision.
    const latest = (await messages()).at(-1).id;
    const again = await fetch(`${server.url}/support/${reference}`, {
      method: "POST",
      headers: { Cookie: ann.cookie, Origin: server.url, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ intent: "reply", message: "One more thing.", seen: latest }).toString(),
      redirect: "manual",
    });
    expect(again.status).toBe(302);
  });
});

describe("saved replies", () => {
  it("are kept team-wide through the API, with names unique and texts checked", async () => {
    const created = await ann.call("POST", "/api/saved-replies", {
      name: "Refund",
      body: "Your refund is on its way.",
    });
    expect(created.status, created.text).toBe(201);
    const again = await bob.call("POST", "/api/saved-replies", { name: "Refund", body: "Another." });
    expect(again.status).toBe(422);
    expect(again.body.error.details).toEqual([{ path: "name", message: 'A saved reply is already named "Refund".' }]);
    expect((await bob.call("POST", "/api/saved-replies", { name: "", body: "" })).status).toBe(422);
    const listed = await bob.call("GET", "/api/saved-replies");
    expect(listed.body.items.map((item: { name: string }) => item.name)).toContain("Refund");
    const renamed = await bob.call("PATCH", `/api/saved-replies/${created.body.id}`, { name: "Refund sent" });
    expect(renamed.body).toMatchObject({ name: "Refund sent", body: "Your refund is on its way." });
    expect((await bob.call("DELETE", `/api/saved-replies/${created.body.id}`)).status).toBe(204);
    expect((await bob.call("DELETE", `/api/saved-replies/${created.body.id}`)).status).toBe(404);
    expect((await bob.call("PATCH", "/api/saved-replies/nope", { name: "x" })).status).toBe(404);
  });

  it("fill the reply box with their placeholders filled, without JavaScript, and on the page for JavaScript", async () => {
    const { cookie: cleo } = await staffSession(server.url, {
      email: "cleo@desk.example",
      password: PASSWORD,
      role: "agent",
      name: "Cleo",
    });
    const reference = await newTicket("Placeholders");
    const saved = await ann.call("POST", "/api/saved-replies", {
      name: "Greeting",
      body: "Hello {{customer.name}}, about {{ticket.reference}} ({{ticket.subject}}): {{agent.name}} here. {{unknown.thing}}",
    });
    const expected = `Hello customer@desk.example, about ${reference} (Placeholders): Cleo here. {{unknown.thing}}`;
    const used = await fetch(`${server.url}/support/${reference}`, {
      method: "POST",
      headers: { Cookie: cleo, Origin: server.url, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams([
        ["intent", "reply"],
        ["seen", ""],
        ["message", ""],
        ["savedReplyId", saved.body.id],
        ["intent", "use-saved"],
      ]).toString(),
    });
    expect(used.status).toBe(200);
    const html = await used.text();
    expect(html).toContain(expected.replace(/"/g, "&quot;"));
    // Nothing was sent: picking only fills the box.
    const thread = (await ann.call("GET", `/api/support-requests/${reference}`)).body.ticket;
    expect(thread.messages).toHaveLength(1);
    // With JavaScript the page already holds each reply filled for this ticket and agent.
    const pageHtml = await (await fetch(`${server.url}/support/${reference}`, { headers: { Cookie: cleo } })).text();
    expect(pageHtml).toContain("Greeting");
    expect(pageHtml).toContain(`Cleo here.`);
  });
});
