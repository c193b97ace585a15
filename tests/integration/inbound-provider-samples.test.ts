// What SendGrid, Mailgun and Postmark really posted (../shared/fixtures/providers, read in
// place), through the production server's inbound endpoint: each files into its ticket
// with the customer's text and no quoted block, its attachments byte for byte, and the
// provider's verdict on the sender. Variants (a failing SPF verdict, the ticket's reply
// address with a subject that lost the reference, bare LF line endings) are derived in code.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { replyAddress } from "~/support/inbound/sender-trust.server";
import { apiClient } from "../support/http";
import {
  readSample,
  toReplyAddress,
  withCrlf,
  withReference,
  withSpfFailing,
  type Sample,
} from "../support/provider-samples";
import { startServer, type TestServer } from "../support/server";
import { bearer, inboundSecret, openTicket } from "../support/support-desk";

let server: TestServer;
let call: ReturnType<typeof apiClient>;

beforeAll(async () => {
  // The samples' senders open many tickets here: no per-recipient acknowledgement limit.
  server = await startServer({ SUPPORT_RATE_LIMIT_PER_HOUR: "0", SUPPORT_ACKS_PER_RECIPIENT_PER_DAY: "0" });
  call = apiClient(server.url);
  // The worker thread loads its libraries as the server boots; in production that is long
  // before mail arrives. On a busy test machine the first sample could arrive while it
  // loads and spend its time budget waiting (then it is kept only as an excerpt, by design).
  const warmUp = await newTicket("warm-up@example.com");
  expect(
    (
      await post({
        contentType: "application/json",
        body: Buffer.from(JSON.stringify({ from: "warm-up@example.com", subject: `#${warmUp}`, text: "Warm" })),
      })
    ).status,
  ).toBe(201);
});
afterAll(async () => {
  await server?.stop();
});

type Message = {
  body: string;
  fullBody: string;
  unverifiedSender: boolean;
  notKept: string[];
  attachments: Array<{ filename: string; contentType: string; size: number; url: string }>;
};

// Opened by the sample's own sender, whom the provider's email must come from to be filed.
async function newTicket(email: string) {
  return (await openTicket(call, { email, subject: "Sample", message: "Hello" })).reference;
}

async function post(sample: Sample) {
  const response = await fetch(`${server.url}/api/support-requests/inbound`, {
    method: "POST",
    headers: { ...inboundSecret(), "Content-Type": sample.contentType },
    body: new Uint8Array(sample.body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

async function lastMessage(reference: string): Promise<Message> {
  const res = await call("GET", `/api/support-requests/${reference}`, undefined, bearer());
  expect(res.status).toBe(200);
  return res.body.ticket.messages.at(-1);
}

/** Posts the sample for a new ticket of its sender, as the bar does; the message filed. */
async function file(sample: Sample, from: string): Promise<Message> {
  const reference = await newTicket(from);
  const res = await post(withReference(sample, reference));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(res.body.ticketReference).toBe(reference);
  return lastMessage(reference);
}

const LOREM = "Lorem ipsum dolor sit amet, consectetur adipiscing elit.";
const NAM = "Nam accumsan euismod eros et rhoncus.";
// Apple Mail's message: bold, more bold and italic text, a quoted block, a "--" signature.
const APPLE_REPLY = ["bold text", "some more bold text", "some italic text"];

/** The customer's three lines, in order, and nothing of the quoted block. */
function expectAppleReply(message: Message) {
  const lines = message.body.split("\n").filter((line) => line.trim() !== "");
  expect(lines.slice(0, 3)).toEqual(APPLE_REPLY);
  expect(message.body).not.toMatch(/multiline|quoted|^>/m);
  expect(message.fullBody).toContain("> multiline");
}

async function expectFiles(message: Message, files: Array<[string, string]>) {
  expect(message.attachments.map((a) => [a.filename, a.size])).toEqual(
    files.map(([name, content]) => [name, Buffer.byteLength(content)]),
  );
  for (const [index, [, content]] of files.entries()) {
    const download = await fetch(`${server.url}${message.attachments[index].url}`, { headers: bearer() });
    expect(await download.text()).toBe(content);
  }
  expect(message.notKept).toEqual([]);
}

const sendgridPython = () => readSample("sendgrid-python/default_data.txt", "multipart/form-data; boundary=xYzZY");

describe("the provider samples file correctly", () => {
  it("SendGrid, Apple Mail with two files (sendgrid-valid): the whole text, not the first HTML piece", async () => {
    const message = await file(readSample("multi_mail/sendgrid-valid.txt"), "james@opennorth.ca");
    expectAppleReply(message);
    // Multipart keeps each file's CRLF; the HTML pieces Apple Mail split off are not files.
    await expectFiles(message, [
      ["foo.txt", `${LOREM}\r\n`],
      ["bar.txt", `${NAM}\r\n`],
    ]);
    expect(message.unverifiedSender).toBe(false);
  });

  it("SendGrid, windows-1252 (sendgrid-encoding): the text decoded as its charsets field says", async () => {
    const message = await file(readSample("multi_mail/sendgrid-encoding.txt"), "james@opennorth.ca");
    expect(message.body).toBe("World €");
    expect(message.attachments).toEqual([]);
    expect(message.unverifiedSender).toBe(false);
  });

  it("SendGrid's own sample (sendgrid-python), with CRLF as SendGrid posts it", async () => {
    const message = await file(withCrlf(sendgridPython()), "test@example.com");
    expect(message.body).toBe("Hello Twilio SendGrid!");
    expect(message.attachments).toEqual([]);
    // SPF passed for the envelope sender test@example.com (the DKIM pass is sendgrid.com's).
    expect(message.unverifiedSender).toBe(false);
  });

  it("SendGrid's own sample with bare LF line endings, as its send.py posts it", async () => {
    const message = await file(sendgridPython(), "test@example.com");
    expect(message.body).toBe("Hello Twilio SendGrid!");
  });

  it("Mailgun, Apple Mail with two files (mailgun-parsed-valid, multipart)", async () => {
    const message = await file(readSample("multi_mail/mailgun-parsed-valid.txt"), "james@opennorth.ca");
    expectAppleReply(message);
    await expectFiles(message, [
      ["foo.txt", `${LOREM}\r\n`],
      ["bar.txt", `${NAM}\r\n`],
    ]);
    expect(message.unverifiedSender).toBe(false);
  });

  it("Mailgun, urlencoded with an empty subject (mailgun-parsed-spam)", async () => {
    const message = await file(readSample("multi_mail/mailgun-parsed-spam.txt"), "james@opennorth.ca");
    expect(message.body).toBe("XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X");
    expect(message.unverifiedSender).toBe(false);
  });

  it("Postmark, Apple Mail with two files (postmark-valid): the text part, not the escaped HTML", async () => {
    const message = await file(readSample("multi_mail/postmark-valid.txt"), "james@opennorth.ca");
    expectAppleReply(message);
    expect(message.body).not.toContain("&lt;");
    // Postmark's base64 decodes to LF-ended files (its ContentLength is the base64's length).
    await expectFiles(message, [
      ["foo.txt", `${LOREM}\n`],
      ["bar.txt", `${NAM}\n`],
    ]);
    expect(message.unverifiedSender).toBe(false);
  });

  it("Postmark's Check payload (anymail): its attachment in Data, its stripped reply, no verdict", async () => {
    const message = await file(
      readSample("anymail/postmark-inbound-test-payload.json", "application/json"),
      "support@postmarkapp.com",
    );
    expect(message.body).toBe("This is the reply text");
    await expectFiles(message, [["test.txt", "This is attachment contents, base-64 encoded."]]);
    expect(message.unverifiedSender).toBe(true);
  });
});

describe("variants of the samples", () => {
  it.each([
    ["multi_mail/sendgrid-valid.txt", "james@opennorth.ca"],
    ["multi_mail/sendgrid-encoding.txt", "james@opennorth.ca"],
    ["multi_mail/mailgun-parsed-valid.txt", "james@opennorth.ca"],
    ["multi_mail/mailgun-parsed-spam.txt", "james@opennorth.ca"],
    ["multi_mail/postmark-valid.txt", "james@opennorth.ca"],
  ])("%s with its SPF verdict failing is filed as an unverified sender", async (name, from) => {
    const message = await file(withSpfFailing(readSample(name)), from);
    expect(message.unverifiedSender).toBe(true);
  });

  it("sendgrid-python with its SPF verdict failing: sendgrid.com's DKIM pass does not vouch for example.com", async () => {
    const message = await file(withSpfFailing(withCrlf(sendgridPython())), "test@example.com");
    expect(message.unverifiedSender).toBe(true);
  });

  it.each([
    ["multi_mail/sendgrid-valid.txt", "james@opennorth.ca"],
    ["multi_mail/mailgun-parsed-valid.txt", "james@opennorth.ca"],
    ["multi_mail/mailgun-parsed-spam.txt", "james@opennorth.ca"],
    ["multi_mail/postmark-valid.txt", "james@opennorth.ca"],
    ["anymail/postmark-inbound-test-payload.json", "support@postmarkapp.com"],
  ])("%s sent to the ticket's reply address is filed there though its subject names no ticket", async (name, from) => {
    const sample = name.endsWith(".json") ? readSample(name, "application/json") : readSample(name);
    const reference = await newTicket(from);
    const res = await post(toReplyAddress(sample, replyAddress(reference)));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.ticketReference).toBe(reference);
    // The reply address with its token proves the customer too.
    expect((await lastMessage(reference)).unverifiedSender).toBe(false);
  });
});
