import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { apiClient, loginAsStaff, STAFF, ownClientAddress } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import { bearer } from "../support/support-desk";

let server: TestServer;
let call: ReturnType<typeof apiClient>;

beforeAll(async () => {
  // No rate limit here: the concurrency test posts 50 requests from one address.
  server = await startServer({ SUPPORT_RATE_LIMIT_PER_HOUR: "0", SUPPORT_ACKS_PER_RECIPIENT_PER_DAY: "0" });
  call = apiClient(server.url);
});
afterAll(async () => {
  await server?.stop();
});

let counter = 0;
async function createTicket(overrides: Record<string, unknown> = {}) {
  counter++;
  const res = await call("POST", "/api/support-requests", {
    email: `customer${counter}@example.com`,
    name: "Ada Customer",
    subject: `Printer on fire ${counter}`,
    message: "It started smoking after the update.",
    ...overrides,
  });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; reference: string; status: string };
}

function expectError(res: { status: number; body: any }, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ error: expect.objectContaining({ code, message: expect.any(String) }) });
}

describe("opening a support request", () => {
  it("answers 201 with id, a reference SR-<number> and status open, and stores the customer's message", async () => {
    const ticket = await createTicket({ email: "Mixed.Case@Example.com", subject: "Cannot log in" });
    expect(ticket).toEqual({ id: expect.any(String), reference: expect.stringMatching(/^SR-\d{4,}$/), status: "open" });
    const res = await call("GET", `/api/support-requests/${ticket.reference}`, undefined, bearer());
    expect(res.status).toBe(200);
    expect(res.body.ticket).toMatchObject({
      id: ticket.id,
      reference: ticket.reference,
      email: "mixed.case@example.com",
      name: "Ada Customer",
      subject: "Cannot log in",
      status: "open",
    });
    expect(res.body.ticket.messages).toEqual([
      expect.objectContaining({
        direction: "inbound",
        author: "customer",
        fromEmail: "mixed.case@example.com",
        body: "It started smoking after the update.",
        unverifiedSender: false,
      }),
    ]);
  });

  it("queues an acknowledgement email to the customer that carries the reference", async () => {
    const ticket = await createTicket({ email: "ack@example.com", subject: "Where is my invoice" });
    const emails = await db.outboxEmail.findMany({
      where: { ticketId: ticket.id },
      select: { toEmail: true, subject: true, text: true },
    });
    expect(emails).toHaveLength(1);
    expect(emails[0].toEmail).toBe("ack@example.com");
    expect(emails[0].subject).toBe(`We received your support request [#${ticket.reference}]`);
    expect(emails[0].text).toContain(ticket.reference);
    expect(emails[0].text).toMatch(/reply above this line/i);
  });

  it("refuses missing or bad fields with 422 naming each field, and stores nothing", async () => {
    const before = await db.ticket.count();
    const res = await call("POST", "/api/support-requests", { email: "not-an-email", subject: "  ", message: "" });
    expectError(res, 422, "validation_failed");
    const paths = res.body.error.details.map((d: { path: string }) => d.path);
    expect(paths).toEqual(expect.arrayContaining(["email", "subject", "message"]));
    expect(await db.ticket.count()).toBe(before);
  });

  it("refuses malformed JSON with 400 and other content types with 415", async () => {
    expectError(
      await call("POST", "/api/support-requests", "{nope", { "Content-Type": "application/json" }),
      400,
      "malformed_json",
    );
    expectError(
      await call("POST", "/api/support-requests", "hello", { "Content-Type": "text/plain" }),
      415,
      "unsupported_media_type",
    );
  });

  it("accepts a plain HTML form post (urlencoded)", async () => {
    const res = await call(
      "POST",
      "/api/support-requests",
      new URLSearchParams({ email: "form@example.com", subject: "From the site", message: "Hi" }),
    );
    expect(res.status).toBe(201);
    expect(res.body.reference).toMatch(/^SR-\d+$/);
  });

  it("gives a bot that fills the hidden website field a normal-looking 201 but creates nothing", async () => {
    const before = await db.ticket.count();
    const res = await call("POST", "/api/support-requests", {
      email: "bot@example.com",
      subject: "Cheap pills",
      message: "Buy now",
      website: "https://spam.example",
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(String), reference: expect.stringMatching(/^SR-\d+$/), status: "open" });
    expect(await db.ticket.count()).toBe(before);
    expect(await db.outboxEmail.count({ where: { toEmail: "bot@example.com" } })).toBe(0);
    expectError(
      await call("GET", `/api/support-requests/${res.body.reference}`, undefined, bearer()),
      404,
      "not_found",
    );
    // The decoy's number is used up: the next real ticket does not repeat it.
    const next = await createTicket();
    expect(Number(next.reference.split("-")[1])).toBeGreaterThan(Number(res.body.reference.split("-")[1]));
  });

  it("gives 50 tickets created at once 50 different references, all above the ones before", async () => {
    const first = await createTicket();
    const firstNumber = Number(first.reference.split("-")[1]);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        call("POST", "/api/support-requests", {
          email: `burst${i}@example.com`,
          subject: `Burst ${i}`,
          message: "At once",
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(201));
    const numbers = results.map((r) => Number(r.body.reference.split("-")[1]));
    expect(new Set(numbers).size).toBe(50);
    expect(Math.min(...numbers)).toBeGreaterThan(firstNumber);
    const stored = await db.ticket.findMany({
      where: { reference: { in: results.map((r) => r.body.reference) } },
      select: { number: true, reference: true },
    });
    expect(stored).toHaveLength(50);
    for (const ticket of stored) expect(ticket.reference).toBe(`SR-${ticket.number}`);
    // Numbers come in creation order: the next one is above all of them.
    const after = await createTicket();
    expect(Number(after.reference.split("-")[1])).toBeGreaterThan(Math.max(...numbers));
  });
});

describe("staff access", () => {
  it("refuses the staff endpoints without credentials with 401 JSON", async () => {
    const ticket = await createTicket();
    expectError(await call("GET", "/api/support-requests"), 401, "unauthorized");
    expectError(await call("GET", `/api/support-requests/${ticket.reference}`), 401, "unauthorized");
    expectError(
      await call("PATCH", `/api/support-requests/${ticket.reference}`, { status: "closed" }),
      401,
      "unauthorized",
    );
    expectError(
      await call("POST", `/api/support-requests/${ticket.reference}/replies`, { message: "Hi" }),
      401,
      "unauthorized",
    );
  });

  it("refuses a wrong bearer key and a non-bearer Authorization header with 401", async () => {
    expectError(await call("GET", "/api/support-requests", undefined, bearer("wrong-key")), 401, "unauthorized");
    expectError(
      await call("GET", "/api/support-requests", undefined, { Authorization: `Basic ${process.env.SUPPORT_API_KEY}` }),
      401,
      "unauthorized",
    );
  });

  it("answers 429 after 10 wrong bearer keys from one address, and never holds back the right key", async () => {
    const guarded = await startServer({ TRUST_PROXY: "true" });
    try {
      const guess = apiClient(guarded.url, undefined, ownClientAddress());
      for (let i = 0; i < 20; i++) {
        expect((await guess("GET", "/api/support-requests", undefined, bearer())).status).toBe(200);
      }
      const wrong = await Promise.all(
        Array.from({ length: 30 }, (_, i) => guess("GET", "/api/support-requests", undefined, bearer(`guess-${i}`))),
      );
      expect(wrong.filter((res) => res.status === 401).length).toBe(10);
      const limited = wrong.filter((res) => res.status === 429);
      expect(limited.length).toBe(20);
      expectError(limited[0], 429, "rate_limited");
      expect(Number(limited[0].headers.get("retry-after"))).toBeGreaterThan(0);
      // Wrong keys stay refused; the right one still works from this address (nobody can lock
      // the real caller out by guessing from its shared address).
      expect((await guess("GET", "/api/support-requests", undefined, bearer("guess-again"))).status).toBe(429);
      expect((await guess("GET", "/api/support-requests", undefined, bearer())).status).toBe(200);
    } finally {
      await guarded.stop();
    }
  });

  it("records a reply made with the API key as author api", async () => {
    const ticket = await createTicket();
    const res = await call(
      "POST",
      `/api/support-requests/${ticket.reference}/replies`,
      { message: "We are on it." },
      bearer(),
    );
    expect(res.status).toBe(201);
    expect(res.body.ticket).toEqual({ reference: ticket.reference, status: "pending" });
    expect(res.body.message).toMatchObject({
      direction: "outbound",
      author: "api",
      authorUser: null,
      body: "We are on it.",
    });
  });

  it("records a reply made with a staff session as that staff user", async () => {
    const cookie = await loginAsStaff(server.url);
    const ticket = await createTicket();
    const res = await apiClient(server.url, cookie)("POST", `/api/support-requests/${ticket.reference}/replies`, {
      message: "Hello from staff",
    });
    expect(res.status).toBe(201);
    expect(res.body.message).toMatchObject({
      author: "staff",
      authorUser: expect.objectContaining({ email: STAFF.email }),
    });
    const list = await apiClient(server.url, cookie)("GET", "/api/support-requests");
    expect(list.status).toBe(200);
  });

  it("refuses a cross-site reply carrying the staff cookie with 403", async () => {
    const cookie = await loginAsStaff(server.url);
    const ticket = await createTicket();
    const res = await apiClient(server.url, cookie)(
      "POST",
      `/api/support-requests/${ticket.reference}/replies`,
      { message: "forged" },
      { Origin: "https://evil.example" },
    );
    expectError(res, 403, "forbidden");
    expect(await db.ticketMessage.count({ where: { ticketId: ticket.id } })).toBe(1);
  });

  it("answers a bearer attempt with 503 not_configured when SUPPORT_API_KEY is unset, while sessions still work", async () => {
    const unkeyed = await startServer({ SUPPORT_API_KEY: "" });
    try {
      const res = await apiClient(unkeyed.url)("GET", "/api/support-requests", undefined, bearer());
      expectError(res, 503, "not_configured");
      const cookie = await loginAsStaff(unkeyed.url);
      expect((await apiClient(unkeyed.url, cookie)("GET", "/api/support-requests")).status).toBe(200);
    } finally {
      await unkeyed.stop();
    }
  });
});

describe("status rules and changes", () => {
  it("sets a ticket to pending on a staff reply and lets staff close and reopen it", async () => {
    const ticket = await createTicket();
    await call("POST", `/api/support-requests/${ticket.id}/replies`, { message: "Try turning it off." }, bearer());
    const afterReply = await call("GET", `/api/support-requests/${ticket.id}`, undefined, bearer());
    expect(afterReply.body.ticket.status).toBe("pending");
    expect(afterReply.body.ticket.messages.map((m: { author: string }) => m.author)).toEqual(["customer", "api"]);

    const closed = await call(
      "PATCH",
      `/api/support-requests/${ticket.reference.toLowerCase()}`,
      { status: "closed" },
      bearer(),
    );
    expect(closed.status).toBe(200);
    expect(closed.body.ticket).toMatchObject({ reference: ticket.reference, status: "closed" });
    const reopened = await call("PATCH", `/api/support-requests/${ticket.reference}`, { status: "open" }, bearer());
    expect(reopened.body.ticket.status).toBe("open");
  });

  it("refuses an unknown status with 422 and an empty reply with 422", async () => {
    const ticket = await createTicket();
    const bad = await call("PATCH", `/api/support-requests/${ticket.reference}`, { status: "done" }, bearer());
    expectError(bad, 422, "validation_failed");
    expect(bad.body.error.details[0].path).toBe("status");
    const empty = await call("POST", `/api/support-requests/${ticket.reference}/replies`, { message: "   " }, bearer());
    expectError(empty, 422, "validation_failed");
    expect((await db.ticket.findUnique({ where: { id: ticket.id }, select: { status: true } }))?.status).toBe("open");
  });

  it("answers 404 for a reference or id that names no ticket", async () => {
    expectError(await call("GET", "/api/support-requests/SR-999999", undefined, bearer()), 404, "not_found");
    expectError(await call("GET", "/api/support-requests/no-such-id", undefined, bearer()), 404, "not_found");
    expectError(
      await call("PATCH", "/api/support-requests/SR-999999", { status: "closed" }, bearer()),
      404,
      "not_found",
    );
    expectError(
      await call("POST", "/api/support-requests/SR-999999/replies", { message: "Hi" }, bearer()),
      404,
      "not_found",
    );
  });

  it("answers 405 for methods a path does not take", async () => {
    expectError(await call("DELETE", "/api/support-requests", undefined, bearer()), 405, "method_not_allowed");
    expectError(await call("GET", "/api/support-requests/inbound"), 405, "method_not_allowed");
  });
});

describe("listing support requests", () => {
  it("filters by status and searches reference, email and subject in any letter case", async () => {
    const unique = `zebra${Date.now()}`;
    const a = await createTicket({ subject: `Billing ${unique} question`, email: `${unique}@example.com` });
    const b = await createTicket({ subject: `Shipping ${unique} delay` });
    await call("PATCH", `/api/support-requests/${b.reference}`, { status: "closed" }, bearer());

    const bySubject = await call("GET", `/api/support-requests?q=${unique.toUpperCase()}`, undefined, bearer());
    expect(bySubject.status).toBe(200);
    expect(bySubject.body.tickets.map((t: { reference: string }) => t.reference).sort()).toEqual(
      [a.reference, b.reference].sort(),
    );

    const closedOnly = await call("GET", `/api/support-requests?q=${unique}&status=closed`, undefined, bearer());
    expect(closedOnly.body.tickets.map((t: { reference: string }) => t.reference)).toEqual([b.reference]);

    const byWord = await call("GET", "/api/support-requests?q=billing", undefined, bearer());
    expect(byWord.body.tickets.map((t: { reference: string }) => t.reference)).toContain(a.reference);

    const byReference = await call("GET", `/api/support-requests?q=${a.reference.toLowerCase()}`, undefined, bearer());
    expect(byReference.body.tickets.map((t: { reference: string }) => t.reference)).toEqual([a.reference]);

    const byEmail = await call("GET", `/api/support-requests?q=${unique.toUpperCase()}@EXAMPLE`, undefined, bearer());
    expect(byEmail.body.tickets.map((t: { reference: string }) => t.reference)).toEqual([a.reference]);
  });

  it("pages through every ticket once, latest activity first, with a keyset cursor", async () => {
    for (let i = 0; i < 5; i++) await createTicket();
    const total = await db.ticket.count();
    const seen: string[] = [];
    let cursor: string | null = null;
    let previous = Infinity;
    do {
      const query: string = cursor ? `?limit=7&cursor=${cursor}` : "?limit=7";
      const page = await call("GET", `/api/support-requests${query}`, undefined, bearer());
      expect(page.status).toBe(200);
      expect(page.body.tickets.length).toBeLessThanOrEqual(7);
      for (const ticket of page.body.tickets) {
        const at = new Date(ticket.lastMessageAt).getTime();
        expect(at).toBeLessThanOrEqual(previous);
        previous = at;
        seen.push(ticket.id);
      }
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(total);
  });

  it("refuses a bad status, limit or cursor with 4xx", async () => {
    expectError(await call("GET", "/api/support-requests?status=lost", undefined, bearer()), 422, "validation_failed");
    expectError(await call("GET", "/api/support-requests?limit=1000", undefined, bearer()), 422, "validation_failed");
    expectError(
      await call("GET", "/api/support-requests?cursor=garbage", undefined, bearer()),
      422,
      "validation_failed",
    );
  });
});

describe("public rate limit", () => {
  it("refuses the request over SUPPORT_RATE_LIMIT_PER_HOUR from one address with 429 and Retry-After", async () => {
    const limited = await startServer({ SUPPORT_RATE_LIMIT_PER_HOUR: "3" });
    try {
      const post = () =>
        apiClient(limited.url)("POST", "/api/support-requests", {
          email: "rl@example.com",
          subject: "Hi",
          message: "Hello",
        });
      for (let i = 0; i < 3; i++) expect((await post()).status).toBe(201);
      const blocked = await post();
      expectError(blocked, 429, "rate_limited");
      expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    } finally {
      await limited.stop();
    }
  });

  it("limits acknowledgements per recipient address, whatever client address asks", async () => {
    const limited = await startServer({ SUPPORT_ACKS_PER_RECIPIENT_PER_DAY: "2", TRUST_PROXY: "true" });
    try {
      const post = (email: string, ip: string) =>
        apiClient(limited.url)(
          "POST",
          "/api/support-requests",
          { email, subject: "Hi", message: "Hello" },
          { "X-Forwarded-For": ip },
        );
      expect((await post("victim@example.com", "203.0.113.1")).status).toBe(201);
      expect((await post("victim@example.com", "203.0.113.2")).status).toBe(201);
      const blocked = await post("victim@example.com", "203.0.113.3");
      expectError(blocked, 429, "rate_limited");
      expect(await db.ticket.count({ where: { email: "victim@example.com" } })).toBe(2);
      expect((await post("someone-else@example.com", "203.0.113.3")).status).toBe(201);
    } finally {
      await limited.stop();
    }
  });
});

describe("the acknowledgement email", () => {
  it("carries the reference and no word the requester chose: no name, subject or message", async () => {
    const res = await call("POST", "/api/support-requests", {
      email: "target@example.com",
      name: "Click http://evil.example now",
      subject: "You won a prize at evil.example",
      message: "Visit http://evil.example/claim to claim it",
    });
    expect(res.status).toBe(201);
    const ack = await db.outboxEmail.findFirstOrThrow({ where: { ticket: { reference: res.body.reference } } });
    expect(ack.subject).toBe(`We received your support request [#${res.body.reference}]`);
    expect(ack.text).toContain(res.body.reference);
    for (const chosen of ["evil.example", "prize", "Click", "claim"]) {
      expect(ack.subject).not.toContain(chosen);
      expect(ack.text).not.toContain(chosen);
    }
  });
});

describe("the staff thread page's forms", () => {
  async function postThread(reference: string, cookie: string, fields: Record<string, string>) {
    return fetch(`${server.url}/support/${reference}`, {
      method: "POST",
      headers: { Cookie: cookie, Origin: server.url, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields),
      redirect: "manual",
    });
  }

  it("refuses an unknown status or a blank reply with the page and the shared schema's message, changing nothing", async () => {
    const ticket = await createTicket();
    const cookie = await loginAsStaff(server.url);

    const badStatus = await postThread(ticket.reference, cookie, { intent: "status", status: "archived" });
    expect(badStatus.status).toBe(422);
    expect(await badStatus.text()).toContain("Use open, pending or closed.");

    const blank = await postThread(ticket.reference, cookie, { intent: "reply", message: " \n " });
    expect(blank.status).toBe(422);
    expect(await blank.text()).toContain("Write a message.");

    const unknown = await postThread(ticket.reference, cookie, { intent: "teleport" });
    expect(unknown.status).toBe(400);

    const stored = await db.ticket.findUniqueOrThrow({
      where: { reference: ticket.reference },
      include: { messages: true },
    });
    expect(stored.status).toBe("open");
    expect(stored.messages).toHaveLength(1);

    const closed = await postThread(ticket.reference, cookie, { intent: "status", status: "closed" });
    expect(closed.status).toBe(302);
    expect((await db.ticket.findUniqueOrThrow({ where: { reference: ticket.reference } })).status).toBe("closed");
  });
});
