// People (issue 33, items 4 and 5; decision 071): one person per address, made as their first
// lead or support request arrives (a submit, the support form, an email that opens a ticket),
// listed and found by address or name, shown with their addresses and timeline, and merged.
// Everything through the production server's API, on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { createFormThroughApi } from "../support/forms";
import { apiClient, loginAsStaff, type ApiClient } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import { inboundSecret } from "../support/support-desk";

let server: TestServer;
let call: ApiClient;
let formId: string;

beforeAll(async () => {
  server = await startServer({
    SUBMIT_RATE_LIMIT_PER_MINUTE: "0",
    SUPPORT_RATE_LIMIT_PER_HOUR: "0",
    SUPPORT_ACKS_PER_RECIPIENT_PER_DAY: "0",
    INBOUND_NEW_TICKETS: "true",
  });
  call = apiClient(server.url, await loginAsStaff(server.url));
  const form = await createFormThroughApi(call, {
    name: "Demo request",
    fields: [
      { key: "full_name", label: "Full name", type: "text" },
      { key: "email", label: "Email", type: "email", required: true },
    ],
  });
  formId = form.id;
});
afterAll(async () => {
  await server?.stop();
});

async function submit(email: string, extra: Record<string, unknown> = {}, name?: string): Promise<string> {
  const res = await call("POST", "/api/leads/submit", {
    formId,
    data: { email, ...(name ? { full_name: name } : {}) },
    ...extra,
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

async function find(q: string) {
  const res = await call("GET", `/api/people?q=${encodeURIComponent(q)}`);
  expect(res.status, res.text).toBe(200);
  return res.body.people as Array<Record<string, any>>;
}

async function personOf(email: string) {
  const found = (await find(email)).filter((person) => person.email === email);
  expect(found).toHaveLength(1);
  return found[0];
}

describe("people as leads and tickets arrive", () => {
  it("a submitted lead makes its person, with the name, counts and first touch", async () => {
    await submit(
      "Ada@Example.COM",
      {
        utm: { utm_source: "spring", utm_campaign: "launch" },
        referrerUrl: "https://news.example/post",
        landingPageUrl: "https://site.example/demo",
      },
      "Ada Lovelace",
    );
    await submit("ada@example.com", { utm: { utm_source: "later" } });
    const ada = await personOf("ada@example.com");
    expect(ada).toMatchObject({
      name: "Ada Lovelace",
      leadCount: 2,
      ticketCount: 0,
      firstTouch: {
        utm_source: "spring",
        utm_campaign: "launch",
        referrerHost: "news.example",
        landingPage: "https://site.example/demo",
        formId,
      },
    });
    expect(Object.keys(ada).sort()).toEqual(
      ["email", "firstSeenAt", "firstTouch", "id", "lastSeenAt", "leadCount", "name", "ticketCount"].sort(),
    );
    expect(ada.firstTouch.at).toBe(ada.firstSeenAt);
    expect(ada.lastSeenAt >= ada.firstSeenAt).toBe(true);
    // Found by a part of the name, in any case.
    expect((await find("LOVELACE")).map((person) => person.id)).toEqual([ada.id]);
  });

  it("a support request joins the same person; an email opening a ticket makes a new one without a first touch", async () => {
    const form = await call("POST", "/api/support-requests", {
      email: "ada@example.com",
      name: "Ada",
      subject: "Pricing",
      message: "How much is it?",
    });
    expect(form.status, form.text).toBe(201);
    const inbound = await call(
      "POST",
      "/api/support-requests/inbound",
      { from: "Grace <grace_h@navy.example>", subject: "A question", text: "Hello there." },
      inboundSecret(),
    );
    expect(inbound.status, inbound.text).toBe(201);
    expect(await personOf("ada@example.com")).toMatchObject({ leadCount: 2, ticketCount: 1, name: "Ada Lovelace" });
    // `_` is a literal in a search, not a wildcard.
    expect((await find("grace_h")).map((person) => person.email)).toEqual(["grace_h@navy.example"]);
    expect(await find("grace%h")).toEqual([]);
    expect(await personOf("grace_h@navy.example")).toMatchObject({ leadCount: 0, ticketCount: 1, firstTouch: null });
  });

  it("the sources page counts support requests by their person's first-touch source", async () => {
    const res = await call("GET", `/leads/sources?formId=${formId}`);
    expect(res.status).toBe(200);
    const table = res.text.slice(res.text.indexOf('aria-label="Support requests by first-touch source"'));
    const rows = [...table.matchAll(/<th scope="row"[^>]*>([^<]*)<\/th><td data-label="Support requests">(\d+)</g)];
    // Ada's one request, from her first lead's source; Grace sent no lead through any form.
    expect(rows.map((row) => [row[1], Number(row[2])])).toEqual([["spring", 1]]);
  });

  it("leads of one new address sent at once make one person", async () => {
    const address = "burst@example.com";
    await Promise.all(Array.from({ length: 30 }, (_, i) => submit(i % 2 ? address : address.toUpperCase())));
    expect(await db.person.count({ where: { email: address } })).toBe(1);
    expect(await db.personAddress.count({ where: { email: address } })).toBe(1);
    expect(await personOf(address)).toMatchObject({ leadCount: 30 });
  });

  it("one person shows their addresses and a timeline, newest first", async () => {
    const ada = await personOf("ada@example.com");
    const res = await call("GET", `/api/people/${ada.id}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ ...ada, addresses: ["ada@example.com"], nextCursor: null });
    const kinds = (res.body.timeline as Array<{ kind: string }>).map((item) => item.kind);
    // The ticket and its first message share their moment; the leads came before both.
    expect(kinds.slice(0, 2).sort()).toEqual(["message", "ticket"]);
    expect(kinds.slice(2)).toEqual(["lead", "lead"]);
    const times = (res.body.timeline as Array<{ at: string }>).map((item) => item.at);
    expect([...times].sort().reverse()).toEqual(times);
  });
});

describe("paging", () => {
  it("the list pages by cursor, every person once", async () => {
    for (let i = 0; i < 53; i++) await submit(`page${String(i).padStart(2, "0")}@pages.example`);
    const first = await call("GET", "/api/people?q=pages.example");
    expect(first.body.people).toHaveLength(50);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await call("GET", `/api/people?q=pages.example&cursor=${first.body.nextCursor}`);
    expect(second.status, second.text).toBe(200);
    expect(second.body.nextCursor).toBeNull();
    const emails = [...first.body.people, ...second.body.people].map((person: { email: string }) => person.email);
    expect(new Set(emails).size).toBe(53);
    // Newest first: the last submitted comes first.
    expect(emails[0]).toBe("page52@pages.example");
  });

  it("the timeline pages by cursor, every item once", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 55; i++) ids.push(await submit("busy@example.com"));
    const busy = await personOf("busy@example.com");
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await call("GET", `/api/people/${busy.id}${cursor ? `?cursor=${cursor}` : ""}`);
      expect(res.status, res.text).toBe(200);
      seen.push(...res.body.timeline.map((item: { id: string }) => item.id));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
  });

  it("refuses what it does not understand with the one error shape", async () => {
    const cases: Array<[string, number, string]> = [
      ["/api/people?cursor=nonsense", 422, "cursor"],
      [`/api/people?q=${"x".repeat(201)}`, 422, "q"],
      ["/api/people?sort=name", 422, "sort"],
      ["/api/people/no-such-person", 404, ""],
      ["/api/people/no-such-person?limit=5", 422, "limit"],
    ];
    for (const [url, status, path] of cases) {
      const res = await call("GET", url);
      expect(res.status, `${url}: ${res.text}`).toBe(status);
      expect(res.body.error.code).toBe(status === 404 ? "not_found" : "validation_failed");
      if (path) expect(res.body.error.details.map((detail: { path: string }) => detail.path)).toContain(path);
    }
  });
});

describe("merging", () => {
  it("joins two people: the addresses stay as aliases, leads and tickets move, nothing is lost", async () => {
    await submit("ada.work@corp.example", { utm: { utm_source: "webinar" } }, "Ada L.");
    const home = await personOf("ada@example.com");
    const work = await personOf("ada.work@corp.example");
    const res = await call("POST", `/api/people/${work.id}/merge`, { into: home.id });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      id: home.id,
      name: "Ada Lovelace",
      addresses: ["ada.work@corp.example", "ada@example.com"],
      leadCount: 3,
      ticketCount: 1,
      firstSeenAt: home.firstSeenAt,
      firstTouch: { utm_source: "spring" },
    });
    expect((await call("GET", `/api/people/${work.id}`)).status).toBe(404);
    // A later lead from the alias is this person's.
    await submit("ADA.work@corp.example");
    expect(await personOf("ada@example.com")).toMatchObject({ id: home.id, leadCount: 4 });
    expect(await db.person.count({ where: { email: "ada.work@corp.example" } })).toBe(0);
    const audit = await db.auditEntry.findFirst({ where: { action: "people.merge" }, orderBy: { createdAt: "desc" } });
    expect(audit).toMatchObject({ target: `person:${home.id}` });
    expect(JSON.parse(audit!.details)).toEqual({ merged: work.id, addresses: 1 });
  });

  it("the earlier person's first touch and first seen win when the later one is merged into", async () => {
    const early = await personOf("page00@pages.example");
    const late = await personOf("page01@pages.example");
    const res = await call("POST", `/api/people/${early.id}/merge`, { into: late.id });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: late.id, firstSeenAt: early.firstSeenAt, leadCount: 2 });
    expect(res.body.firstTouch.at).toBe(early.firstSeenAt);
  });

  it("refuses a merge into itself, into no one, of no one, and a bad body, with clear errors", async () => {
    const ada = await personOf("ada@example.com");
    const grace = await personOf("grace_h@navy.example");
    const cases: Array<[string, unknown, number, string, string]> = [
      [ada.id, { into: ada.id }, 422, "validation_failed", "into"],
      [ada.id, { into: "no-such-person" }, 422, "validation_failed", "into"],
      [ada.id, {}, 422, "validation_failed", "into"],
      [ada.id, { into: grace.id, extra: 1 }, 422, "validation_failed", "extra"],
      [ada.id, { into: 42 }, 422, "validation_failed", "into"],
      ["no-such-person", { into: ada.id }, 404, "not_found", ""],
      [ada.id, "{not json", 400, "malformed_json", ""],
    ];
    for (const [id, body, status, code, path] of cases) {
      const res = await call("POST", `/api/people/${id}/merge`, body, { "Content-Type": "application/json" });
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(status);
      expect(res.body.error.code).toBe(code);
      if (path) expect(res.body.error.details.map((detail: { path: string }) => detail.path)).toContain(path);
    }
    expect(await personOf("grace_h@navy.example")).toMatchObject({ id: grace.id, ticketCount: 1 });
    expect((await call("GET", `/api/people/${ada.id}/merge`)).status).toBe(405);
  });
});

describe("erasure (decision 069)", () => {
  it("takes the address off its person, and the person with their last one", async () => {
    const page02 = await personOf("page02@pages.example");
    const erased = await call("POST", "/api/people/erase", { email: "page02@pages.example", confirm: true });
    expect(erased.status, erased.text).toBe(200);
    expect(await db.person.count({ where: { id: page02.id } })).toBe(0);
    expect(await db.personAddress.count({ where: { email: "page02@pages.example" } })).toBe(0);
    // An alias erased: the person keeps their other address as the primary one, and no name
    // that came with the erased one. Before, an export through one address shows only that one.
    const ada = await personOf("ada@example.com");
    const exported = await call("GET", "/api/people/export?email=ada@example.com");
    expect(exported.body.people).toEqual([
      { id: ada.id, name: null, firstSeenAt: null, addresses: [{ email: "ada@example.com" }] },
    ]);
    expect(exported.text).not.toContain("ada.work@corp.example");
    const again = await call("POST", "/api/people/erase", { email: "ada@example.com", confirm: true });
    expect(again.status, again.text).toBe(200);
    const left = await db.person.findUniqueOrThrow({ where: { id: ada.id }, include: { addresses: true } });
    expect(left.email).toBe("ada.work@corp.example");
    expect(left.name).toBeNull();
    expect(left.addresses.map((address) => address.email)).toEqual(["ada.work@corp.example"]);
  });
});
