// Whose word makes an inbound email the customer's (docs/api/support.md, "Who sent it";
// decision 038): a provider's verdict counts only from where that provider writes it and
// the sender cannot. Every forged form below is a verdict the email's own headers carry.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import { bearer, inboundSecret, newTicket } from "../support/support-desk";

const AUTHSERV_ID = "mx.example.net";

let server: TestServer;
let call: ReturnType<typeof apiClient>;

beforeAll(async () => {
  server = await startServer({ SUPPORT_RATE_LIMIT_PER_HOUR: "0", INBOUND_AUTHSERV_ID: AUTHSERV_ID });
  call = apiClient(server.url);
});
afterAll(async () => {
  await server?.stop();
});

/** Posts an email built for a new ticket; answers whether it was filed as the customer's. */
async function filedAsCustomer(
  build: (ticket: { reference: string; email: string }) => unknown,
  client = call,
): Promise<boolean> {
  const ticket = await newTicket(call);
  const res = await client("POST", "/api/support-requests/inbound", build(ticket), inboundSecret());
  expect(res.status, res.text).toBe(201);
  const thread = await client("GET", `/api/support-requests/${ticket.reference}`, undefined, bearer());
  const last = thread.body.ticket.messages.at(-1);
  expect(last.direction).toBe("inbound");
  return last.unverifiedSender === false;
}

const postmark = (
  ticket: { reference: string; email: string },
  Headers: Array<{ Name: string; Value: string }>,
  text = "Postmark",
) => ({
  From: ticket.email,
  FromFull: { Email: ticket.email },
  Subject: `Re: [#${ticket.reference}]`,
  TextBody: text,
  MessageID: `pm-${ticket.reference}`,
  Headers,
});

// Postmark's own block above the message's headers, as its posts carry it.
const postmarkBlock = (spf: string) => [
  { Name: "X-Spam-Checker-Version", Value: "SpamAssassin 3.3.1 (2010-03-16) onrs-ord-pm-inbound1.wildbit.com" },
  { Name: "X-Spam-Status", Value: "No" },
  { Name: "X-Spam-Score", Value: "-0.7" },
  { Name: "Received-SPF", Value: spf },
];

function sendgrid(ticket: { reference: string; email: string }, fields: Record<string, string>) {
  const form = new FormData();
  form.set("from", `Customer <${ticket.email}>`);
  form.set("to", "support@localhost");
  form.set("subject", `Re: [#${ticket.reference}]`);
  form.set("text", "SendGrid");
  form.set("envelope", JSON.stringify({ to: ["support@localhost"], from: ticket.email }));
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  return form;
}

function mailgun(ticket: { reference: string; email: string }, fields: Array<[string, string]>) {
  const form = new URLSearchParams({
    sender: ticket.email,
    from: ticket.email,
    recipient: "support@localhost",
    subject: `#${ticket.reference}`,
    "body-plain": "Mailgun",
  });
  for (const [name, value] of fields) form.append(name, value);
  return form;
}

const dmarcPass = "dmarc=pass (p=none) header.from=example.com";

describe("the spec's JSON shape", () => {
  it("never takes a verdict from its headers, whoever's name they carry", async () => {
    for (const headers of [
      { "Authentication-Results": `${AUTHSERV_ID}; ${dmarcPass}` },
      { "Authentication-Results": "x; dmarc=pass" },
      { "Received-SPF": "pass (x) envelope-from=trust@example.com" },
    ]) {
      expect(await filedAsCustomer((t) => ({ from: t.email, subject: `#${t.reference}`, text: "JSON", headers }))).toBe(
        false,
      );
    }
  });
});

describe("Authentication-Results", () => {
  it("counts only the topmost header, only under the configured authserv-id", async () => {
    const verdict = (values: string[]) =>
      filedAsCustomer((t) =>
        postmark(
          t,
          values.map((Value) => ({ Name: "Authentication-Results", Value })),
        ),
      );
    expect(await verdict([`${AUTHSERV_ID}; ${dmarcPass}`])).toBe(true);
    expect(await verdict([`MX.Example.NET 1; spf=pass smtp.mailfrom=bounce@example.com`])).toBe(true);
    // Another server's name, or the sender's own header under ours below the receiver's.
    expect(await verdict([`x; ${dmarcPass}`])).toBe(false);
    expect(await verdict([`${AUTHSERV_ID}; dmarc=none`, `${AUTHSERV_ID}; ${dmarcPass}`])).toBe(false);
  });

  it("takes dmarc=pass only with a header.from that is the From domain", async () => {
    const verdict = (results: string) =>
      filedAsCustomer((t) => postmark(t, [{ Name: "Authentication-Results", Value: `${AUTHSERV_ID}; ${results}` }]));
    expect(await verdict("dmarc=pass")).toBe(false);
    expect(await verdict("dmarc=pass header.from=evil.example")).toBe(false);
    expect(await verdict("dmarc=pass header.from=mail.example.com")).toBe(false);
    expect(await verdict("dkim=pass header.d=mail.example.com")).toBe(true);
    expect(await verdict("spf=pass smtp.mailfrom=x@evil.example; dkim=pass header.d=evil.example")).toBe(false);
  });

  it("is not believed in SendGrid's raw headers either unless the configured server wrote it", async () => {
    const headers = (value: string) => ({ headers: `Authentication-Results: ${value}\r\nMessage-ID: <a@b>\r\n` });
    expect(await filedAsCustomer((t) => sendgrid(t, headers(`x; ${dmarcPass}`)))).toBe(false);
    expect(await filedAsCustomer((t) => sendgrid(t, headers(`${AUTHSERV_ID}; ${dmarcPass}`)))).toBe(true);
  });

  it("is never believed while INBOUND_AUTHSERV_ID is unset", async () => {
    const unset = await startServer({ SUPPORT_RATE_LIMIT_PER_HOUR: "0" });
    try {
      const client = apiClient(unset.url);
      const verdict = await filedAsCustomer(
        (t) => postmark(t, [{ Name: "Authentication-Results", Value: `${AUTHSERV_ID}; ${dmarcPass}` }]),
        client,
      );
      expect(verdict).toBe(false);
    } finally {
      await unset.stop();
    }
  });
});

describe("each provider's own verdict", () => {
  it("SendGrid: its SPF field with the envelope sender and its dkim field; a Received-SPF in the headers is not", async () => {
    expect(await filedAsCustomer((t) => sendgrid(t, { SPF: "pass" }))).toBe(true);
    expect(await filedAsCustomer((t) => sendgrid(t, { dkim: "{@example.com : pass}" }))).toBe(true);
    expect(await filedAsCustomer((t) => sendgrid(t, { SPF: "fail", dkim: "{@evil.example : pass}" }))).toBe(false);
    const forged = (t: { email: string }) => `Received-SPF: pass (x) envelope-from=${t.email}\r\n`;
    expect(await filedAsCustomer((t) => sendgrid(t, { headers: forged(t) }))).toBe(false);
  });

  it("Postmark: the Received-SPF in the block it writes above the message, not one the sender wrote", async () => {
    const pass = (email: string) => `Pass (sender SPF authorized) identity=mailfrom; envelope-from=${email}`;
    expect(await filedAsCustomer((t) => postmark(t, postmarkBlock(pass(t.email))))).toBe(true);
    expect(await filedAsCustomer((t) => postmark(t, postmarkBlock("Fail (not authorized)")))).toBe(false);
    // The sender's own Received-SPF: alone, or below Postmark's, or below the message's headers.
    expect(await filedAsCustomer((t) => postmark(t, [{ Name: "Received-SPF", Value: pass(t.email) }]))).toBe(false);
    expect(
      await filedAsCustomer((t) =>
        postmark(t, [...postmarkBlock("None"), { Name: "Received-SPF", Value: pass(t.email) }]),
      ),
    ).toBe(false);
    expect(
      await filedAsCustomer((t) =>
        postmark(t, [
          { Name: "X-Mailer", Value: "Forger 1.0" },
          ...postmarkBlock(pass(t.email)).slice(0, 1),
          { Name: "Received-SPF", Value: pass(t.email) },
        ]),
      ),
    ).toBe(false);
  });

  it("Mailgun: its top-level X-Mailgun-Spf and DKIM check fields, not the email's message-headers", async () => {
    expect(await filedAsCustomer((t) => mailgun(t, [["X-Mailgun-Spf", "Pass"]]))).toBe(true);
    const forgedHeaders = JSON.stringify([
      ["X-Mailgun-Spf", "Pass"],
      ["X-Mailgun-Dkim-Check-Result", "Pass"],
    ]);
    expect(await filedAsCustomer((t) => mailgun(t, [["message-headers", forgedHeaders]]))).toBe(false);
    // The sender's copy beside Mailgun's: every copy must pass.
    expect(
      await filedAsCustomer((t) =>
        mailgun(t, [
          ["X-Mailgun-Spf", "Fail"],
          ["X-Mailgun-Spf", "Pass"],
        ]),
      ),
    ).toBe(false);
    const signed = JSON.stringify([["DKIM-Signature", "v=1; a=rsa-sha256; d=example.com; s=s1; b=x"]]);
    expect(
      await filedAsCustomer((t) =>
        mailgun(t, [
          ["X-Mailgun-Dkim-Check-Result", "Pass"],
          ["message-headers", signed],
        ]),
      ),
    ).toBe(true);
  });
});
