// Whole emails (Content-Type: message/rfc822, as Amazon SES, Cloudflare Email Workers or a
// Postfix pipe deliver them) through the production server's inbound endpoint: real mail
// clients' replies (talon's, read in place) filed into their tickets with the reply text
// only, attachments kept, the receiving server's Authentication-Results believed only under
// INBOUND_AUTHSERV_ID; the secret, the size limit and malformed messages answered as for
// the providers' posts; and, with INBOUND_NEW_TICKETS unset, a message naming no ticket
// still refused with 422.
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { replyAddress } from "~/support/inbound/sender-trust.server";
import { apiClient } from "../support/http";
import { buildEmail, postRaw, prependHeader, talonDir, talonReply, withHeader } from "../support/raw-email";
import { startServer, type TestServer } from "../support/server";
import { bearer, openTicket } from "../support/support-desk";

let server: TestServer;
let call: ReturnType<typeof apiClient>;
const AUTHSERV = "mx.raw-mime.test";
const emls = fs.readdirSync(talonDir).filter((name) => name.endsWith(".eml"));

beforeAll(async () => {
  server = await startServer({
    SUPPORT_RATE_LIMIT_PER_HOUR: "0",
    SUPPORT_ACKS_PER_RECIPIENT_PER_DAY: "0",
    INBOUND_AUTHSERV_ID: AUTHSERV,
  });
  call = apiClient(server.url);
  // The worker thread loads its libraries as the server boots, and the cleaning ones (jsdom,
  // the quotation rules) on first use; in production long before mail arrives. On a busy test
  // machine a first reply could otherwise spend its time budget there (then it is kept only
  // as an excerpt, by design): every client's reply goes through once first.
  const warm = await ticketOf("warm-up@example.com");
  for (const eml of emls) {
    const source = withHeader(withHeader(talonReply(eml), "From", "warm-up@example.com"), "Subject", `Re: #${warm}`);
    const res = await postRaw(server.url, source);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

async function ticketOf(email: string): Promise<string> {
  return (await openTicket(call, { email, subject: "Test", message: "Hi" })).reference;
}

type Message = {
  body: string;
  fullBody: string;
  unverifiedSender: boolean;
  isAutoReply: boolean;
  notKept: string[];
  attachments: Array<{ filename: string; contentType: string; size: number; url: string }>;
};

async function messages(reference: string): Promise<Message[]> {
  const res = await call("GET", `/api/support-requests/${reference}`, undefined, bearer());
  expect(res.status).toBe(200);
  return res.body.ticket.messages;
}

const lines = (text: string) =>
  text
    .split(/\r?\n/)
    .map((line) => line.trimEnd())
    .join("\n")
    .trim();

/** What talon says a reader should see (../shared/fixtures/README.md). */
function expectedFor(eml: string): string {
  const file = `${talonDir}/${eml.replace(/\.eml$/, "_reply_text")}`;
  return fs.existsSync(file) ? lines(fs.readFileSync(file, "utf8")) : "Hello";
}

describe("raw MIME replies", () => {
  it.each(emls)("standard_replies/%s is filed into its ticket with the reply text only", async (eml) => {
    const source = talonReply(eml);
    // Its own sender opens the ticket; the reply's subject gets the reference, as a client keeps it.
    const from = /^From:.*?<?([^\s<>]+@[^\s<>]+)>?\s*$/im.exec(source.toString("latin1"))![1].toLowerCase();
    const reference = await ticketOf(from);
    const res = await postRaw(server.url, withHeader(source, "Subject", `Re: Test [#${reference}]`));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.ticketReference).toBe(reference);
    const message = (await messages(reference)).at(-1)!;
    expect(lines(message.body)).toBe(expectedFor(eml));
    expect(message.fullBody.length).toBeGreaterThan(message.body.length);
    // Nothing in a raw message vouches for its sender without the receiving server's word.
    expect(message.unverifiedSender).toBe(true);
  });

  it("reaches its ticket through the reply address when the subject lost the reference", async () => {
    const reference = await ticketOf("lost-subject@example.com");
    const email = buildEmail({
      from: "Lost <lost-subject@example.com>",
      to: replyAddress(reference),
      subject: "Re: your question",
      text: "Still broken.",
    });
    const res = await postRaw(server.url, email);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.ticketReference).toBe(reference);
    const message = (await messages(reference)).at(-1)!;
    expect(message.body).toBe("Still broken.");
    // Our reply address with its token proves the sender.
    expect(message.unverifiedSender).toBe(false);
  });

  it("keeps its attachments byte for byte", async () => {
    const reference = await ticketOf("files@example.com");
    const png = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7) % 256));
    const email = buildEmail({
      from: "files@example.com",
      subject: `Re: #${reference}`,
      text: "Screenshot attached.",
      attachments: [{ filename: "shot.png", contentType: "image/png", data: png }],
    });
    expect((await postRaw(server.url, email)).status).toBe(201);
    const [file] = (await messages(reference)).at(-1)!.attachments;
    expect(file).toMatchObject({ filename: "shot.png", contentType: "image/png", size: png.length });
    const stored = await db.ticketAttachment.findFirstOrThrow({
      where: { filename: "shot.png" },
      select: { id: true },
    });
    const chunks = await db.attachmentChunk.findMany({
      where: { attachmentId: stored.id },
      orderBy: { seq: "asc" },
      select: { data: true },
    });
    expect(Buffer.concat(chunks.map((chunk) => Buffer.from(chunk.data))).equals(png)).toBe(true);
  });

  it("believes only the topmost Authentication-Results, and only under INBOUND_AUTHSERV_ID", async () => {
    const reference = await ticketOf("trusted@example.com");
    const email = (text: string) => buildEmail({ from: "trusted@example.com", subject: `Re: #${reference}`, text });
    const results = (id: string, verdict: string) => `${id}; dmarc=${verdict} (p=none) header.from=example.com`;
    const cases: Array<[string, Buffer, boolean]> = [
      // The sender wrote a pass under our name; our server's own verdict is on top.
      [
        "forged below ours",
        prependHeader(
          prependHeader(email("Forged below"), "Authentication-Results", results(AUTHSERV, "pass")),
          "Authentication-Results",
          results(AUTHSERV, "fail"),
        ),
        false,
      ],
      [
        "another server's pass",
        prependHeader(email("Elsewhere"), "Authentication-Results", results("mx.elsewhere.test", "pass")),
        false,
      ],
      [
        "our server's pass",
        prependHeader(email("Verified!"), "Authentication-Results", results(AUTHSERV, "pass")),
        true,
      ],
    ];
    for (const [name, source, verified] of cases) {
      expect((await postRaw(server.url, source)).status, name).toBe(201);
      expect((await messages(reference)).at(-1)!.unverifiedSender, name).toBe(!verified);
    }
  });

  it("marks an out-of-office reply as automatic and leaves the status alone", async () => {
    const reference = await ticketOf("away@example.com");
    await db.ticket.update({ where: { reference }, data: { status: "pending" } });
    const email = buildEmail({
      from: "away@example.com",
      subject: `Auto: Re: #${reference}`,
      text: "I am out of the office.",
      headers: { "Auto-Submitted": "auto-replied" },
    });
    expect((await postRaw(server.url, email)).status).toBe(201);
    expect((await messages(reference)).at(-1)!.isAutoReply).toBe(true);
    expect((await db.ticket.findUniqueOrThrow({ where: { reference } })).status).toBe("pending");
  });
});

describe("raw MIME refusals", () => {
  it("401 without the right secret, before the body is read", async () => {
    const email = buildEmail({ from: "x@example.com", subject: "#SR-1", text: "Hi" });
    const wrong = await postRaw(server.url, email, { "x-inbound-secret": "not-the-secret-not-the-secret-xx" });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe("unauthorized");
    expect((await postRaw(server.url, email, {})).status).toBe(401);
  });

  it("413 past the inbound size limit (25 MiB)", async () => {
    const reference = await ticketOf("huge@example.com");
    const email = buildEmail({
      from: "huge@example.com",
      subject: `Re: #${reference}`,
      text: "Too big.",
      attachments: [
        { filename: "big.bin", contentType: "application/octet-stream", data: Buffer.alloc(20 * 1024 * 1024, 1) },
      ],
    });
    expect(email.length).toBeGreaterThan(25 * 1024 * 1024);
    const res = await postRaw(server.url, email);
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe("payload_too_large");
    expect((await messages(reference)).length).toBe(1);
  });

  it.each([
    ["not an email at all", Buffer.from("this is not an email")],
    ["no sender", Buffer.from("Subject: Re: #SR-1001\r\nTo: support@localhost\r\n\r\nHello\r\n")],
    ["a From without an address", Buffer.from("From: nobody\r\nSubject: Re: #SR-1001\r\n\r\nHello\r\n")],
    ["binary noise", Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 131) % 256))],
    ["an empty body", Buffer.alloc(0)],
  ])("422 for %s (never a 500)", async (_name, email) => {
    const res = await postRaw(server.url, email);
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error.code).toBe("validation_failed");
  });

  it("answers a message naming no ticket with 422 while INBOUND_NEW_TICKETS is unset", async () => {
    const before = await db.ticket.count();
    const res = await postRaw(
      server.url,
      buildEmail({ from: "new-question@example.com", subject: "A new question", text: "Do you ship to Norway?" }),
    );
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("ticket_reference_missing");
    expect(await db.ticket.count()).toBe(before);
  });

  it("415 for a media type it does not read", async () => {
    const res = await fetch(`${server.url}/api/support-requests/inbound`, {
      method: "POST",
      headers: { "Content-Type": "text/plain", "x-inbound-secret": process.env.INBOUND_SECRET! },
      body: "hello",
    });
    expect(res.status).toBe(415);
    expect(((await res.json()) as any).error.message).toContain("message/rfc822");
  });
});
