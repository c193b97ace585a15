import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrResetUser } from "~/staff/user.server";
import { db } from "~/storage/db.server";
import { replyAddress } from "~/support/inbound/sender-trust.server";
import { apiClient, ownClientAddress } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import { bearer, inboundSecret, newTicket } from "../support/support-desk";

let server: TestServer;
let call: ReturnType<typeof apiClient>;

beforeAll(async () => {
  server = await startServer({ SUPPORT_RATE_LIMIT_PER_HOUR: "0" });
  call = apiClient(server.url);
});
afterAll(async () => {
  await server?.stop();
});

function inbound(body: unknown, headers: Record<string, string> = inboundSecret()) {
  return call("POST", "/api/support-requests/inbound", body, headers);
}

async function thread(reference: string) {
  const res = await call("GET", `/api/support-requests/${reference}`, undefined, bearer());
  expect(res.status).toBe(200);
  return res.body.ticket as {
    status: string;
    messages: Array<{
      id: string;
      author: string;
      direction: string;
      fromEmail: string;
      body: string;
      fullBody: string;
      hasQuotedText: boolean;
      unverifiedSender: boolean;
      isAutoReply: boolean;
    }>;
  };
}

function expectError(res: { status: number; body: any }, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ error: expect.objectContaining({ code, message: expect.any(String) }) });
}

describe("inbound webhook authentication", () => {
  it("accepts the secret in x-inbound-secret and answers 201 with the reference and message id", async () => {
    const ticket = await newTicket(call);
    const res = await inbound({
      from: ticket.email,
      to: replyAddress(ticket.reference),
      subject: `Re: ${ticket.subject} [#${ticket.reference}]`,
      text: "Still broken.",
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ ticketReference: ticket.reference, messageId: expect.any(String) });
    const last = (await thread(ticket.reference)).messages.at(-1)!;
    expect(last).toMatchObject({
      id: res.body.messageId,
      direction: "inbound",
      author: "customer",
      fromEmail: ticket.email,
      body: "Still broken.",
      unverifiedSender: false,
    });
  });

  it("accepts the secret as Authorization: Bearer", async () => {
    const ticket = await newTicket(call);
    const res = await inbound(
      { from: ticket.email, subject: `#${ticket.reference}`, text: "Via bearer." },
      { Authorization: `Bearer ${process.env.INBOUND_SECRET}` },
    );
    expect(res.status).toBe(201);
  });

  it("accepts the secret as the password of HTTP Basic, whatever the user name, as providers send it from the URL", async () => {
    const ticket = await newTicket(call);
    for (const user of ["inbound", "", "sendgrid"]) {
      const basic = Buffer.from(`${user}:${process.env.INBOUND_SECRET}`).toString("base64");
      const res = await inbound(
        { from: ticket.email, subject: `#${ticket.reference}`, text: `Via basic ${user}.` },
        { Authorization: `Basic ${basic}` },
      );
      expect(res.status).toBe(201);
    }
  });

  it("refuses a wrong or missing secret with 401 and records nothing", async () => {
    const ticket = await newTicket(call);
    const payload = { from: ticket.email, subject: `#${ticket.reference}`, text: "Sneaky" };
    expectError(await inbound(payload, { "x-inbound-secret": "wrong" }), 401, "unauthorized");
    expectError(await inbound(payload, { Authorization: "Bearer wrong" }), 401, "unauthorized");
    // The secret itself as the Basic credentials (no user:password pair), or as the user name, is not it.
    expectError(await inbound(payload, { Authorization: `Basic ${process.env.INBOUND_SECRET}` }), 401, "unauthorized");
    const asUser = Buffer.from(`${process.env.INBOUND_SECRET}:x`).toString("base64");
    expectError(await inbound(payload, { Authorization: `Basic ${asUser}` }), 401, "unauthorized");
    expectError(await inbound(payload, {}), 401, "unauthorized");
    expect(await db.ticketMessage.count({ where: { ticketId: ticket.id } })).toBe(1);
  });

  it("answers 429 after 10 wrong secrets from one address, in parallel too, and still takes the right one", async () => {
    const guarded = await startServer({ TRUST_PROXY: "true" });
    try {
      const ticket = await newTicket(call);
      const payload = { from: ticket.email, subject: `#${ticket.reference}`, text: "Guess" };
      const address = ownClientAddress();
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          apiClient(guarded.url, undefined, address)("POST", "/api/support-requests/inbound", payload, {
            "x-inbound-secret": `guess-${i}`,
          }),
        ),
      );
      expect(answers.filter((res) => res.status === 401).length).toBe(10);
      expect(answers.filter((res) => res.status === 429).length).toBe(20);
      expectError(
        answers.find((res) => res.status === 429)!,
        429,
        "rate_limited",
      );
      // A stranger at the provider's shared address cannot lock the provider out.
      const right = await apiClient(guarded.url, undefined, address)("POST", "/api/support-requests/inbound", payload, {
        "x-inbound-secret": process.env.INBOUND_SECRET!,
      });
      expect(right.status, right.text).toBeLessThan(300);
      expect(guarded.output()).toMatch(/wrong inbound secret from address [0-9a-f]{12}: over 10 in 15 minutes/);
      expect(guarded.output()).not.toContain("guess-");
    } finally {
      await guarded.stop();
    }
  });

  it("answers 503 not_configured when INBOUND_SECRET is unset, whatever is sent", async () => {
    const unset = await startServer({ INBOUND_SECRET: "" });
    try {
      const res = await apiClient(unset.url)(
        "POST",
        "/api/support-requests/inbound",
        { from: "a@example.com", subject: "#SR-1001", text: "x" },
        { "x-inbound-secret": "" },
      );
      expectError(res, 503, "not_configured");
      const withBearer = await apiClient(unset.url)(
        "POST",
        "/api/support-requests/inbound",
        { from: "a@example.com", subject: "#SR-1001", text: "x" },
        {
          Authorization: `Bearer ${process.env.INBOUND_SECRET}`,
        },
      );
      expectError(withBearer, 503, "not_configured");
    } finally {
      await unset.stop();
    }
  });
});

describe("finding the ticket", () => {
  it("finds the reference anywhere in the subject, in any case, after Re: and Fwd:", async () => {
    const ticket = await newTicket(call);
    const res = await inbound({
      from: ticket.email,
      subject: `Fwd: RE: about my order (#${ticket.reference.toLowerCase()}) thanks`,
      text: "Forwarded",
    });
    expect(res.status).toBe(201);
    expect(res.body.ticketReference).toBe(ticket.reference);
  });

  it("answers 422 ticket_reference_missing when the subject has no reference", async () => {
    const res = await inbound({ from: "someone@example.com", subject: "Help me please", text: "Hi" });
    expectError(res, 422, "ticket_reference_missing");
  });

  it("files a reply sent to the ticket's own reply address whose subject lost the reference", async () => {
    const ticket = await newTicket(call);
    const res = await inbound({
      from: ticket.email,
      to: `Support <${replyAddress(ticket.reference)}>`,
      subject: "Re: your question",
      text: "The subject lost the number, the address did not.",
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.ticketReference).toBe(ticket.reference);
    expect((await thread(ticket.reference)).messages.at(-1)).toMatchObject({
      body: "The subject lost the number, the address did not.",
      unverifiedSender: false,
    });
  });

  it("does not find a ticket by a reply address with a wrong token: 422 ticket_reference_missing", async () => {
    const ticket = await newTicket(call);
    const [local, domain] = replyAddress(ticket.reference).split("@");
    const forged = `${local.slice(0, -1)}${local.endsWith("0") ? "1" : "0"}@${domain}`;
    const res = await inbound({ from: ticket.email, to: forged, subject: "Re: your question", text: "Guessing" });
    expectError(res, 422, "ticket_reference_missing");
    expect(await db.ticketMessage.count({ where: { ticketId: ticket.id } })).toBe(1);
  });

  it("answers 404 ticket_not_found for a reference to no ticket", async () => {
    const res = await inbound({ from: "someone@example.com", subject: "Re: [#SR-987654]", text: "Hi" });
    expectError(res, 404, "ticket_not_found");
  });

  it("answers 422 naming the field when the sender or the body is missing", async () => {
    const ticket = await newTicket(call);
    const noBody = await inbound({ from: ticket.email, subject: `#${ticket.reference}` });
    expectError(noBody, 422, "validation_failed");
    expect(noBody.body.error.details[0].path).toBe("text");
    const noFrom = await inbound({ subject: `#${ticket.reference}`, text: "x" });
    expectError(noFrom, 422, "validation_failed");
    expect(noFrom.body.error.details[0].path).toBe("from");
    const badFrom = await inbound({ from: "nobody", subject: `#${ticket.reference}`, text: "x" });
    expectError(badFrom, 422, "validation_failed");
  });

  it("refuses a body over 25 MiB with 413, declared or streamed", async () => {
    const ticket = await newTicket(call);
    const big = "x".repeat(25 * 1024 * 1024 + 10);
    const declared = await inbound({ from: ticket.email, subject: `#${ticket.reference}`, text: big });
    expectError(declared, 413, "payload_too_large");

    const chunk = new TextEncoder().encode("y".repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 25 * 16 + 1) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const streamed = await fetch(`${server.url}/api/support-requests/inbound`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...inboundSecret() },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(await db.ticketMessage.count({ where: { ticketId: ticket.id } })).toBe(1);
  });
});

describe("the body", () => {
  it("converts an html-only email to plain text without scripts or styles, keeping links readable", async () => {
    const ticket = await newTicket(call);
    const html = `<html><head><style>p { color: red }</style><script>alert("x")</script></head>
      <body><p>Hello <b>team</b>,</p><p>see <a href="https://example.com/docs">the docs</a>.</p></body></html>`;
    const res = await inbound({ from: ticket.email, subject: `#${ticket.reference}`, html });
    expect(res.status).toBe(201);
    const message = (await thread(ticket.reference)).messages.at(-1)!;
    expect(message.body).toContain("Hello team,");
    expect(message.body).toContain("the docs");
    expect(message.body).toContain("https://example.com/docs");
    expect(message.body).not.toMatch(/<|alert|color: red/);
  });

  it("shows only the new text of a reply, keeping the quoted original for staff", async () => {
    const ticket = await newTicket(call);
    const text = [
      "Thanks, restarting fixed it.",
      "",
      `On Mon, 3 Mar 2025 at 10:00, Support <support@localhost> wrote:`,
      "> ##- Please type your reply above this line -##",
      ">",
      "> Have you tried turning it off and on again?",
    ].join("\n");
    const res = await inbound({ from: ticket.email, subject: `Re: ${ticket.subject} [#${ticket.reference}]`, text });
    expect(res.status).toBe(201);
    const message = (await thread(ticket.reference)).messages.at(-1)!;
    expect(message.body).toBe("Thanks, restarting fixed it.");
    expect(message.fullBody).toContain("Have you tried turning it off and on again?");
    expect(message.hasQuotedText).toBe(true);
  });

  it("cuts the text at an unquoted reply-above-this-line marker", async () => {
    const ticket = await newTicket(call);
    const text = "New details here.\n\n##- Please type your reply above this line -##\n\nOld staff message";
    await inbound({ from: ticket.email, subject: `#${ticket.reference}`, text });
    const message = (await thread(ticket.reference)).messages.at(-1)!;
    expect(message.body).toBe("New details here.");
    expect(message.fullBody).toContain("Old staff message");
  });
});

describe("duplicate deliveries", () => {
  it("stores an email redelivered with the same Message-ID once and answers 200 with the first message", async () => {
    const ticket = await newTicket(call);
    const payload = {
      from: ticket.email,
      subject: `#${ticket.reference}`,
      text: "Only once please",
      headers: { "Message-ID": "<dup-1@mail.example.com>" },
    };
    const first = await inbound(payload);
    expect(first.status).toBe(201);
    const second = await inbound({ ...payload, text: "Only once please (the provider re-encoded it)" });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({
      ticketReference: ticket.reference,
      messageId: first.body.messageId,
      duplicate: true,
    });
    expect(await db.ticketMessage.count({ where: { ticketId: ticket.id } })).toBe(2);
  });

  it("stores an email without Message-ID once when sender, subject and body repeat", async () => {
    const ticket = await newTicket(call);
    const payload = { from: ticket.email, subject: `#${ticket.reference}`, text: "Same again" };
    const first = await inbound(payload);
    const results = await Promise.all([inbound(payload), inbound(payload)]);
    expect(first.status).toBe(201);
    for (const res of results) {
      expect(res.status).toBe(200);
      expect(res.body.messageId).toBe(first.body.messageId);
    }
    const different = await inbound({ ...payload, text: "Something else" });
    expect(different.status).toBe(201);
    expect(await db.ticketMessage.count({ where: { ticketId: ticket.id } })).toBe(3);
  });

  it("dedupes per ticket and sender: a Message-ID posted elsewhere first cannot drop the genuine reply", async () => {
    const victim = await newTicket(call);
    const decoy = await newTicket(call);
    const messageId = "<genuine-1@mail.example.com>";
    const planted = await inbound({
      from: "mallory@evil.example",
      subject: `#${decoy.reference}`,
      text: "Planted",
      messageId,
    });
    expect(planted.status).toBe(201);
    const genuine = await inbound({
      from: victim.email,
      subject: `#${victim.reference}`,
      text: "The real reply",
      messageId,
    });
    expect(genuine.status).toBe(201);
    expect(genuine.body.duplicate).toBeUndefined();
    expect((await thread(victim.reference)).messages.at(-1)?.body).toBe("The real reply");
    // The same Message-ID from another sender on the same ticket is not a redelivery either.
    const sameTicket = await inbound({
      from: "someone@else.example",
      subject: `#${victim.reference}`,
      text: "Another",
      messageId,
    });
    expect(sameTicket.status).toBe(201);
  });

  it("stores two simultaneous deliveries of one email once", async () => {
    const ticket = await newTicket(call);
    const payload = {
      from: ticket.email,
      subject: `#${ticket.reference}`,
      text: "Race",
      messageId: "<race@mail.example.com>",
    };
    const results = await Promise.all([inbound(payload), inbound(payload), inbound(payload)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 201]);
    expect(new Set(results.map((r) => r.body.messageId)).size).toBe(1);
    expect(await db.ticketMessage.count({ where: { ticketId: ticket.id } })).toBe(2);
  });
});

describe("senders and status rules", () => {
  it("records a stranger quoting the reference as an unverified sender without reopening the ticket", async () => {
    const ticket = await newTicket(call);
    await call("PATCH", `/api/support-requests/${ticket.reference}`, { status: "closed" }, bearer());
    const res = await inbound({
      from: "Mallory <mallory@evil.example>",
      subject: `#${ticket.reference}`,
      text: "I am the customer, honest",
    });
    expect(res.status).toBe(201);
    const t = await thread(ticket.reference);
    expect(t.messages.at(-1)).toMatchObject({
      fromEmail: "mallory@evil.example",
      unverifiedSender: true,
      author: "customer",
    });
    expect(t.status).toBe("closed");
  });

  it("recognises the requester whatever the case and display name of the address", async () => {
    const ticket = await newTicket(call);
    await inbound({
      from: `"The Customer" <${ticket.email.toUpperCase()}>`,
      to: replyAddress(ticket.reference).toUpperCase(),
      subject: `#${ticket.reference}`,
      text: "Me again",
    });
    expect((await thread(ticket.reference)).messages.at(-1)).toMatchObject({
      fromEmail: ticket.email,
      unverifiedSender: false,
    });
  });

  it("keeps mail whose From names a staff address on the customer's side, unverified, linked to no user", async () => {
    await createOrResetUser({ email: "helper@example.com", password: "a long staff password" });
    const ticket = await newTicket(call);
    await inbound({ from: "helper@example.com", subject: `#${ticket.reference}`, text: "I am staff, trust me" });
    const last = (await thread(ticket.reference)).messages.at(-1)!;
    expect(last).toMatchObject({ author: "customer", direction: "inbound", unverifiedSender: true });
    const stored = await db.ticketMessage.findUniqueOrThrow({ where: { id: last.id } });
    expect(stored.authorUserId).toBeNull();
  });

  it("does not believe a From naming the customer without proof: recorded unverified, the ticket stays as it was", async () => {
    const ticket = await newTicket(call);
    await call("PATCH", `/api/support-requests/${ticket.reference}`, { status: "closed" }, bearer());
    const forged = await inbound({
      from: ticket.email,
      subject: `#${ticket.reference}`,
      text: "Please send the invoice to another address",
      headers: {
        "Authentication-Results":
          "mx.example.net; spf=fail smtp.mailfrom=evil.example; dkim=fail; dmarc=fail header.from=example.com",
      },
    });
    expect(forged.status).toBe(201);
    const t = await thread(ticket.reference);
    expect(t.messages.at(-1)).toMatchObject({ fromEmail: ticket.email, unverifiedSender: true, author: "customer" });
    expect(t.status).toBe("closed");
  });

  it("does not take a guessed or borrowed reply token as proof", async () => {
    const ticket = await newTicket(call);
    const other = await newTicket(call);
    const [local, domain] = replyAddress(ticket.reference).split("@");
    const guesses = [
      `${local.replace(/\.[0-9a-f]+$/, ".0123456789abcdef")}@${domain}`,
      replyAddress(other.reference),
      `support+${ticket.reference.toLowerCase()}@${domain}`,
    ];
    for (const to of guesses) {
      await inbound({ from: ticket.email, to, subject: `#${ticket.reference}`, text: `Guess ${to}` });
      expect((await thread(ticket.reference)).messages.at(-1)).toMatchObject({ unverifiedSender: true });
    }
  });

  it("verifies a reply that answers one of the ticket's Message-IDs, and not one of another ticket's", async () => {
    const ticket = await newTicket(call);
    const other = await newTicket(call);
    const ours = await db.ticket.findUniqueOrThrow({ where: { id: ticket.id }, select: { threadMessageId: true } });
    const theirs = await db.ticket.findUniqueOrThrow({ where: { id: other.id }, select: { threadMessageId: true } });
    await inbound({
      from: ticket.email,
      subject: `#${ticket.reference}`,
      text: "Borrowed thread",
      inReplyTo: theirs.threadMessageId,
    });
    expect((await thread(ticket.reference)).messages.at(-1)).toMatchObject({ unverifiedSender: true });
    await inbound({
      from: ticket.email,
      subject: `#${ticket.reference}`,
      text: "Answering you",
      inReplyTo: ours.threadMessageId,
    });
    expect((await thread(ticket.reference)).messages.at(-1)).toMatchObject({ unverifiedSender: false });
    await inbound({
      from: ticket.email,
      subject: `#${ticket.reference}`,
      text: "Via references",
      headers: { References: `<unrelated@x.example> ${ours.threadMessageId}` },
    });
    expect((await thread(ticket.reference)).messages.at(-1)).toMatchObject({ unverifiedSender: false });
  });

  it("reopens a pending ticket when the customer replies", async () => {
    const ticket = await newTicket(call);
    await call(
      "POST",
      `/api/support-requests/${ticket.reference}/replies`,
      { message: "Can you send a photo?" },
      bearer(),
    );
    expect((await thread(ticket.reference)).status).toBe("pending");
    await inbound({
      from: ticket.email,
      to: replyAddress(ticket.reference),
      subject: `Re: [#${ticket.reference}]`,
      text: "Here it is.",
    });
    expect((await thread(ticket.reference)).status).toBe("open");
  });

  it("reopens a closed ticket when the customer replies", async () => {
    const ticket = await newTicket(call);
    await call("PATCH", `/api/support-requests/${ticket.reference}`, { status: "closed" }, bearer());
    await inbound({
      from: ticket.email,
      to: replyAddress(ticket.reference),
      subject: `Re: [#${ticket.reference}]`,
      text: "It broke again.",
    });
    expect((await thread(ticket.reference)).status).toBe("open");
  });

  it.each([
    { header: "Auto-Submitted", value: "auto-replied" },
    { header: "X-Autoreply", value: "yes" },
    { header: "Precedence", value: "bulk" },
    { header: "Precedence", value: "auto_reply" },
  ])("records an auto-reply marked $header: $value without reopening the ticket", async ({ header, value }) => {
    const ticket = await newTicket(call);
    await call("POST", `/api/support-requests/${ticket.reference}/replies`, { message: "Any news?" }, bearer());
    const res = await inbound({
      from: ticket.email,
      subject: `Out of office: Re: [#${ticket.reference}]`,
      text: "I am away until Monday.",
      headers: { [header]: value },
    });
    expect(res.status).toBe(201);
    const t = await thread(ticket.reference);
    expect(t.messages.at(-1)).toMatchObject({ isAutoReply: true, body: "I am away until Monday." });
    expect(t.status).toBe("pending");
  });

  it("treats Auto-Submitted: no as a human reply", async () => {
    const ticket = await newTicket(call);
    await call("POST", `/api/support-requests/${ticket.reference}/replies`, { message: "Any news?" }, bearer());
    await inbound({
      from: ticket.email,
      to: replyAddress(ticket.reference),
      subject: `#${ticket.reference}`,
      text: "Yes!",
      headers: { "Auto-Submitted": "no" },
    });
    const t = await thread(ticket.reference);
    expect(t.messages.at(-1)?.isAutoReply).toBe(false);
    expect(t.status).toBe("open");
  });
});

describe("provider payloads", () => {
  it("accepts SendGrid Inbound Parse (multipart form with raw headers)", async () => {
    const ticket = await newTicket(call);
    const form = new FormData();
    form.set("from", `Customer <${ticket.email}>`);
    form.set("to", "support@localhost");
    form.set("subject", `Re: ${ticket.subject} [#${ticket.reference}]`);
    form.set("text", "Reply via SendGrid\n\nOn Tue, Support wrote:\n> old text");
    form.set("html", "<p>Reply via SendGrid</p>");
    form.set(
      "headers",
      "Received: by mx.sendgrid.net\r\nMessage-ID: <sg-1@mail.example.com>\r\nSubject: Re: something\r\n  folded\r\nX-Autoreply: yes\r\n",
    );
    form.set("envelope", JSON.stringify({ to: ["support@localhost"], from: ticket.email }));
    form.set("attachment1", new Blob([new Uint8Array([0, 255, 1, 2])]), "file.bin");
    const res = await inbound(form);
    expect(res.status, res.text).toBe(201);
    const message = (await thread(ticket.reference)).messages.at(-1)!;
    expect(message).toMatchObject({ fromEmail: ticket.email, body: "Reply via SendGrid", isAutoReply: true });
    const again = await inbound(form);
    expect(again.status).toBe(200);
    expect(again.body.messageId).toBe(res.body.messageId);
  });

  it("accepts Postmark inbound JSON, preferring its StrippedTextReply", async () => {
    const ticket = await newTicket(call);
    const payload = {
      From: `Customer <${ticket.email}>`,
      FromFull: { Email: ticket.email, Name: "Customer" },
      Subject: `RE: ${ticket.subject} [#${ticket.reference}]`,
      TextBody: "Reply via Postmark\n\nOn Tue, Support wrote:\n> earlier",
      HtmlBody: "<p>Reply via Postmark</p>",
      StrippedTextReply: "Reply via Postmark",
      MessageID: "22c74902-a0c1-4511-804f-341342852c90",
      Headers: [{ Name: "Precedence", Value: "list" }],
    };
    const res = await inbound(payload);
    expect(res.status, res.text).toBe(201);
    const message = (await thread(ticket.reference)).messages.at(-1)!;
    expect(message).toMatchObject({ fromEmail: ticket.email, body: "Reply via Postmark", isAutoReply: false });
    expect(message.fullBody).toContain("> earlier");
    const again = await inbound(payload);
    expect(again.status).toBe(200);
    expect(again.body.messageId).toBe(res.body.messageId);
  });

  it("accepts a Postmark post with only an HtmlBody", async () => {
    const ticket = await newTicket(call);
    const res = await inbound({
      From: ticket.email,
      Subject: `#${ticket.reference}`,
      TextBody: "",
      HtmlBody: "<div>Only <i>html</i> here</div>",
      MessageID: "html-only-1",
    });
    expect(res.status).toBe(201);
    expect((await thread(ticket.reference)).messages.at(-1)?.body).toBe("Only html here");
  });

  it("accepts a Mailgun route post (urlencoded, message-headers as JSON)", async () => {
    const ticket = await newTicket(call);
    const form = new URLSearchParams({
      sender: ticket.email,
      from: `Customer <${ticket.email}>`,
      recipient: "support@localhost",
      subject: `Re: [#${ticket.reference}] ${ticket.subject}`,
      "body-plain": "Reply via Mailgun\n\nOn Tue, Support wrote:\n> before",
      "body-html": "<p>Reply via Mailgun</p>",
      "stripped-text": "Reply via Mailgun",
      "message-headers": JSON.stringify([
        ["Message-Id", "<mg-1@mail.example.com>"],
        ["Auto-Submitted", "auto-generated"],
      ]),
      timestamp: "1700000000",
      token: "t",
      signature: "s",
    });
    const res = await inbound(form);
    expect(res.status, res.text).toBe(201);
    const message = (await thread(ticket.reference)).messages.at(-1)!;
    expect(message).toMatchObject({ fromEmail: ticket.email, body: "Reply via Mailgun", isAutoReply: true });
    expect(message.fullBody).toContain("> before");
    expect((await inbound(form)).status).toBe(200);
  });

  it("refuses a Mailgun post with broken message-headers and an unknown content type", async () => {
    const ticket = await newTicket(call);
    const broken = new URLSearchParams({
      sender: ticket.email,
      subject: `#${ticket.reference}`,
      "body-plain": "x",
      "message-headers": "{",
    });
    expectError(await inbound(broken), 422, "validation_failed");
    expectError(
      await call("POST", "/api/support-requests/inbound", "hello", {
        ...inboundSecret(),
        "Content-Type": "text/plain",
      }),
      415,
      "unsupported_media_type",
    );
    expectError(
      await call("POST", "/api/support-requests/inbound", "{nope", {
        ...inboundSecret(),
        "Content-Type": "application/json",
      }),
      400,
      "malformed_json",
    );
  });
});
