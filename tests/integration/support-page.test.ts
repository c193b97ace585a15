// /support/new: the public, no-JavaScript page where a customer opens a request, with
// the lead forms' spam defences and errors that keep what was typed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signTimestamp } from "~/capture/lead-signatures.server";
import { db } from "~/storage/db.server";
import { sendForm } from "../support/http";
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

const post = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
  sendForm(
    `${server.url}/support/new`,
    { _ts: renderedAgo(10_000), website: "", ...fields },
    { Origin: server.url, ...headers },
  );

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

  it("answers a bot like a person but stores and sends nothing: a filled honeypot, a forged timestamp, or a script posting faster than a person types", async () => {
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

  it("opens the request of a person whose browser filled the form in under 3 s (autofill)", async () => {
    const res = await post(
      { email: "quick@example.com", subject: "Autofilled", message: "Fast but real.", _ts: renderedAgo(300) },
      {
        "User-Agent":
          "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36",
      },
    );
    expect(res.status).toBe(200);
    const reference = /<strong>([A-Z]+-\d+)<\/strong>/.exec(await res.text())?.[1];
    expect(await db.ticket.findUnique({ where: { reference }, select: { email: true } })).toEqual({
      email: "quick@example.com",
    });
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

const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

/** A site's own contact form posting to the API without JavaScript, as a browser sends it. */
function postToApi(fields: Record<string, string>, headers: Record<string, string> = {}, base = server.url) {
  return sendForm(`${base}/api/support-requests`, fields, {
    "Content-Type": "application/x-www-form-urlencoded",
    Accept: BROWSER_ACCEPT,
    Origin: "https://shop.example",
    Referer: "https://shop.example/contact",
    ...headers,
  });
}

describe("a site's plain contact form posting to /api/support-requests", () => {
  it("sends the visitor to our support page with the reference, not to JSON", async () => {
    const res = await postToApi({ email: "site@example.com", subject: "From the site", message: "Hello" });
    expect(res.status).toBe(303);
    const location = res.headers.get("location")!;
    expect(location).toMatch(/^\/support\/new\?draft=[A-Za-z0-9_-]{32}$/);
    const page = await (await fetch(new URL(location, server.url))).text();
    const reference = /<strong>([A-Z]+-\d+)<\/strong>/.exec(page)?.[1];
    expect(await db.ticket.findUnique({ where: { reference }, select: { email: true } })).toEqual({
      email: "site@example.com",
    });
  });

  it("brings a refused post back as our form, fields marked and filled in, the values never in the URL and shown once", async () => {
    const before = await db.ticket.count();
    const res = await postToApi({ email: "not-an-email", name: "Quinn", subject: "Refund <now>", message: "" });
    expect(res.status).toBe(303);
    const location = res.headers.get("location")!;
    expect(location).not.toMatch(/Quinn|not-an-email|Refund/);
    const html = await (await fetch(new URL(location, server.url))).text();
    expect(html).toContain("Please correct the fields marked below.");
    expect(html).toContain('value="not-an-email"');
    expect(html).toContain('value="Quinn"');
    expect(html).toContain('value="Refund &lt;now&gt;"');
    expect(html).toMatch(/id="email-error"/);
    expect(html).toMatch(/id="message-error"/);
    const again = await (await fetch(new URL(location, server.url))).text();
    expect(again).not.toContain("Quinn");
    expect(await db.ticket.count()).toBe(before);
  });

  it("keeps the JSON answers of scripts exactly as they were", async () => {
    const form = await postToApi({ email: "nope", subject: "x", message: "y" }, { Accept: "application/json" });
    expect(form.status).toBe(422);
    expect(form.headers.get("content-type")).toMatch(/application\/json/);
    expect((await form.json()).error.code).toBe("validation_failed");
    const plain = await postToApi({ email: "nope", subject: "x", message: "y" }, { Accept: "*/*" });
    expect(plain.status).toBe(422);
    expect((await plain.json()).error.details[0].path).toBe("email");
    const json = await fetch(`${server.url}/api/support-requests`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: BROWSER_ACCEPT },
      body: JSON.stringify({ email: "nope" }),
    });
    expect(json.status).toBe(422);
    expect(json.headers.get("content-type")).toMatch(/application\/json/);
    const ok = await postToApi(
      { email: "json@example.com", subject: "x", message: "y" },
      { Accept: "application/json" },
    );
    expect(ok.status).toBe(201);
    expect((await ok.json()).reference).toMatch(/^[A-Z]+-\d+$/);
  });

  it("answers a browser's other refusals with a page and a way back: wrong content type, rate limit with Retry-After", async () => {
    const wrongType = await fetch(`${server.url}/api/support-requests`, {
      method: "POST",
      headers: { "Content-Type": "text/plain", Accept: BROWSER_ACCEPT, Referer: "https://shop.example/contact" },
      body: "email=a@example.com",
    });
    expect(wrongType.status).toBe(415);
    expect(wrongType.headers.get("content-type")).toMatch(/text\/html/);
    expect(await wrongType.text()).toContain('<a href="https://shop.example/contact">');

    const limited = await startServer({ SUPPORT_RATE_LIMIT_PER_HOUR: "1" });
    try {
      const fields = { email: "limit@example.com", subject: "Hi", message: "Hello" };
      expect((await postToApi(fields, {}, limited.url)).status).toBe(303);
      const page = await postToApi(fields, {}, limited.url);
      expect(page.status).toBe(429);
      expect(page.headers.get("content-type")).toMatch(/text\/html/);
      expect(Number(page.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(await page.text()).toContain('<a href="https://shop.example/contact">');
      const script = await postToApi(fields, { Accept: "application/json" }, limited.url);
      expect(script.status).toBe(429);
      expect((await script.json()).error.code).toBe("rate_limited");
      expect(Number(script.headers.get("retry-after"))).toBeGreaterThan(0);
    } finally {
      await limited.stop();
    }
  });
});
