// /support/new: the public, no-JavaScript page where a customer opens a request, with
// the lead forms' spam defences and errors that keep what was typed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signTimestamp } from "~/models/lead-signatures.server";
import { db } from "~/utils/db.server";
import { startServer, type TestServer } from "../support/server";

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ SUPPORT_RATE_LIMIT_PER_HOUR: "0" });
});
afterAll(async () => {
  await server?.stop();
});

/** The timestamp of a page rendered `ago` ms before now, as the page signs it. */
const renderedAgo = (ago: number) => signTimestamp("support-request", Date.now() - ago);

function post(fields: Record<string, string>) {
  return fetch(`${server.url}/support/new`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: server.url },
    body: new URLSearchParams({ _ts: renderedAgo(10_000), website: "", ...fields }),
    redirect: "manual",
  });
}

describe("the public support page", () => {
  it("renders a plain form with a signed timestamp and a hidden honeypot", async () => {
    const res = await fetch(`${server.url}/support/new`);
    expect(res.status).toBe(200);
    const html = await res.text();
    for (const name of ["email", "name", "subject", "message", "website", "_ts"])
      expect(html).toContain(`name="${name}"`);
    expect(html).toMatch(/name="_ts" value="\d+\.[A-Za-z0-9_-]{32}"/);
  });

  it("opens a request and shows its reference, with the acknowledgement queued", async () => {
    const res = await post({
      email: "page@example.com",
      name: "Pat",
      subject: "Cannot log in",
      message: "It says my password is wrong.",
    });
    expect(res.status).toBe(200);
    const html = await res.text();
    const reference = /<strong>([A-Z]+-\d+)<\/strong>/.exec(html)?.[1];
    expect(reference).toBeDefined();
    const ticket = await db.ticket.findUniqueOrThrow({
      where: { reference },
      include: { outbox: true, messages: true },
    });
    expect(ticket).toMatchObject({ email: "page@example.com", subject: "Cannot log in" });
    expect(ticket.messages[0].body).toBe("It says my password is wrong.");
    expect(ticket.outbox).toHaveLength(1);
  });

  it("answers mistakes with the page again, the fields named and what was typed kept", async () => {
    const before = await db.ticket.count();
    const res = await post({ email: "not-an-email", name: "Sam", subject: "Billing <question>", message: "" });
    expect(res.status).toBe(422);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    const html = await res.text();
    expect(html).toContain("Please correct the fields marked below.");
    expect(html).toContain('value="not-an-email"');
    expect(html).toContain('value="Billing &lt;question&gt;"');
    expect(html).toMatch(/id="message-error"/);
    expect(await db.ticket.count()).toBe(before);

    const control = await post({ email: "ok@example.com", subject: "Hi", message: "bad\u0000byte" });
    expect(control.status).toBe(422);
    expect(await control.text()).toContain("Remove the control characters");
  });

  it("answers a bot like a person but stores and sends nothing: a filled honeypot, or a post faster than a person types", async () => {
    const before = await db.ticket.count();
    const outboxBefore = await db.outboxEmail.count();
    const filled = await post({
      email: "bot@example.com",
      subject: "Buy",
      message: "Cheap pills",
      website: "http://spam.example",
    });
    const fast = await post({
      email: "bot@example.com",
      subject: "Buy",
      message: "Cheap pills",
      _ts: renderedAgo(200),
    });
    const forged = await post({
      email: "bot@example.com",
      subject: "Buy",
      message: "Cheap pills",
      _ts: `${Date.now() - 60_000}.${"A".repeat(32)}`,
    });
    for (const res of [filled, fast, forged]) {
      expect(res.status).toBe(200);
      expect(await res.text()).toContain("We have your request");
    }
    expect(await db.ticket.count()).toBe(before);
    expect(await db.outboxEmail.count()).toBe(outboxBefore);
  });

  it("limits requests per recipient address with a page, not JSON", async () => {
    const limited = await startServer({ SUPPORT_ACKS_PER_RECIPIENT_PER_DAY: "1", SUPPORT_RATE_LIMIT_PER_HOUR: "0" });
    try {
      const send = () =>
        fetch(`${limited.url}/support/new`, {
          method: "POST",
          headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: limited.url },
          body: new URLSearchParams({
            _ts: renderedAgo(10_000),
            email: "once@example.com",
            subject: "Hi",
            message: "Hello",
          }),
        });
      expect((await send()).status).toBe(200);
      const second = await send();
      expect(second.status).toBe(429);
      expect(second.headers.get("content-type")).toMatch(/text\/html/);
      expect(await second.text()).toContain("several requests for this address today");
    } finally {
      await limited.stop();
    }
  });
});
