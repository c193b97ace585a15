// One policy for text from outside (docs/input-policy.md): control characters and lone
// surrogates are refused with 422 naming the field, or stripped from inbound email;
// dates and cursors outside what both databases store are refused, never a 500.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { apiClient, loginAsStaff, type ApiClient } from "../support/http";
import { createForm, field } from "../support/leads";
import { startServer, type TestServer } from "../support/server";
import { bearer, inboundSecret } from "../support/support-desk";

let server: TestServer;
let staff: ApiClient;
let formId: string;

beforeAll(async () => {
  server = await startServer({ SUBMIT_RATE_LIMIT_PER_MINUTE: "0", SUPPORT_RATE_LIMIT_PER_HOUR: "0" });
  staff = apiClient(server.url, await loginAsStaff(server.url));
  formId = (await createForm("Policy", [[field("name", "Name", "text", { required: true }), field("note", "Note")]]))
    .id;
});
afterAll(async () => {
  await server?.stop();
});

function expectRefused(res: { status: number; body: any }, path: string) {
  expect(res.status).toBe(422);
  expect(res.body.error.code).toBe("validation_failed");
  expect(res.body.error.details.map((detail: { path: string }) => detail.path)).toContain(path);
}

const HOSTILE = ["a\u0000b", "line\u0007bell", "esc\u001b[31m", "lone \uD800 high", "lone \uDC00 low"];

describe("control characters in submitted values", () => {
  it("refuses them in a lead's data, UTM values and addresses with 422 naming the field, storing nothing", async () => {
    const call = apiClient(server.url);
    for (const value of HOSTILE) {
      expectRefused(await call("POST", "/api/leads/submit", { formId, data: { name: value } }), "data.name");
      expectRefused(
        await call("POST", "/api/leads/submit", { formId, data: { name: "Ada" }, utm: { utm_source: value } }),
        "utm.utm_source",
      );
      expectRefused(
        await call("POST", "/api/leads/submit", {
          formId,
          data: { name: "Ada" },
          referrerUrl: `https://a.example/${value}`,
        }),
        "referrerUrl",
      );
    }
    const form = await call(
      "POST",
      "/api/leads/submit",
      new URLSearchParams({ formId, name: "Ada", note: "x\u0000y" }),
      {
        "Content-Type": "application/x-www-form-urlencoded",
        Accept: "application/json",
      },
    );
    expect(form.status).toBe(422);
    expect(await db.lead.count({ where: { formId } })).toBe(0);
    // Tab, newline and carriage return are ordinary text.
    const fine = await call("POST", "/api/leads/submit", { formId, data: { name: "Ada", note: "one\ttwo\r\nthree" } });
    expect(fine.status).toBe(201);
  });

  it("refuses them in support requests and replies, and in the q filters of both lists", async () => {
    const call = apiClient(server.url);
    const base = { email: "c@example.com", name: "Cy", subject: "Help", message: "Please" };
    for (const key of ["name", "subject", "message"] as const) {
      expectRefused(await call("POST", "/api/support-requests", { ...base, [key]: "bad\u0000value" }), key);
    }
    const ticket = await call("POST", "/api/support-requests", base);
    expect(ticket.status).toBe(201);
    expectRefused(
      await call("POST", `/api/support-requests/${ticket.body.reference}/replies`, { message: "x\u0000" }, bearer()),
      "message",
    );
    expectRefused(
      await call("GET", `/api/support-requests?q=${encodeURIComponent("a\u0000")}`, undefined, bearer()),
      "q",
    );
    expectRefused(await staff("GET", `/api/leads?q=${encodeURIComponent("a\u0000")}`), "q");
    expectRefused(await staff("GET", "/api/leads/export?format=csv&q=a%01b"), "q");
  });

  it("refuses them in form definitions, naming the field", async () => {
    expectRefused(await staff("POST", "/api/forms", { name: "Bad\u0000name", fields: [] }), "name");
    expectRefused(
      await staff("POST", "/api/forms", { name: "Fine", fields: [{ key: "a", label: "A\u0001", type: "text" }] }),
      "fields.0.label",
    );
  });

  it("strips them from inbound email instead, so the customer's message is kept", async () => {
    const ticket = await apiClient(server.url)("POST", "/api/support-requests", {
      email: "strip@example.com",
      subject: "Strip",
      message: "First",
    });
    const res = await apiClient(server.url)(
      "POST",
      "/api/support-requests/inbound",
      { from: "strip@example.com", subject: `Re: #${ticket.body.reference}\u0000`, text: "Hel\u0000lo\u0007 there" },
      inboundSecret(),
    );
    expect(res.status).toBeLessThan(300);
    const messages = await db.ticketMessage.findMany({ where: { ticket: { reference: ticket.body.reference } } });
    const stored = messages.find((message) => message.body.includes("there"));
    expect(stored?.body).toContain("Hello there");
    expect(messages.every((message) => !/[\u0000\u0007]/.test(message.body))).toBe(true);
  });
});

describe("a NUL where an id or a query value goes", () => {
  it("answers 404 in a path id, on every kind of route, never reaching the database", async () => {
    const cookie = await loginAsStaff(server.url);
    for (const [method, path] of [
      ["GET", "/api/leads/%00"],
      ["GET", "/api/forms/%00"],
      ["GET", "/api/webhooks/%00"],
      ["GET", "/api/support-requests/%00"],
      ["PATCH", "/api/leads/%00"],
      ["PATCH", "/api/staff/%00"],
      ["DELETE", "/api/tokens/%00"],
      ["GET", "/forms/%00"],
      ["GET", "/support/%00"],
      ["GET", "/api/leads/a%00b/notes"],
    ]) {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: { Cookie: cookie, "Content-Type": "application/json", Accept: "application/json" },
        body: method === "GET" ? undefined : "{}",
      });
      expect(res.status, `${method} ${path}`).toBe(404);
      const type = res.headers.get("content-type") ?? "";
      expect(type, path).toMatch(path.startsWith("/api/") ? /application\/json/ : /text\/html/);
    }
  });

  it("refuses it in a page's query with 422, and never answers a query read as is with a 5xx", async () => {
    const cookie = await loginAsStaff(server.url);
    for (const path of ["/support?q=%00", "/leads/sources?formId=%00"]) {
      const res = await fetch(`${server.url}${path}`, { headers: { Cookie: cookie } });
      expect(res.status, path).toBe(422);
      expect(await res.text(), path).toMatch(/control character/i);
    }
    // Read without the input policy: SQLite finds no such user (403); PostgreSQL refuses
    // the NUL itself, which the API answers 400 (bad_request) wherever it comes from.
    const tokens = await fetch(`${server.url}/api/tokens?userId=%00`, { headers: { Cookie: cookie } });
    expect([400, 403]).toContain(tokens.status);
    expect(server.output()).not.toMatch(/0x00|failed:/);
  });
});

describe("dates and cursors outside what the databases store", () => {
  const cursorOf = (text: string) => Buffer.from(text, "utf8").toString("base64url");

  it("refuses dates outside 1970 to 9998 in lead filters and exports with 422 naming the parameter", async () => {
    for (const [query, path] of [
      ["to=9999-12-31", "to"],
      ["from=0001-01-01", "from"],
      ["from=1969-12-31", "from"],
    ] as const) {
      expectRefused(await staff("GET", `/api/leads?${query}`), path);
      expectRefused(await staff("GET", `/api/leads/export?format=csv&${query}`), path);
    }
    expect((await staff("GET", "/api/leads?from=1970-01-01&to=9998-12-31")).status).toBe(200);
  });

  it("answers the sources page for year 9999 with a page that says what is wrong, not a 500", async () => {
    const res = await fetch(`${server.url}/leads/sources?formId=${formId}&from=9999-01-01&to=9999-12-31`, {
      headers: { Cookie: await loginAsStaff(server.url) },
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    expect(await res.text()).toContain("between the years 1970 and 9998");
  });

  it("refuses cursors that name impossible times or no row, on leads, forms and support, with 422", async () => {
    const hostile = [
      cursorOf(JSON.stringify(["+275760-09-13T00:00:00.000Z", "x"])),
      cursorOf("+275760-09-13T00:00:00.000Z|abc"),
      cursorOf("9999-12-31T23:59:59.999Z|abc"),
      cursorOf("0000-01-01T00:00:00.000Z|abc"),
      cursorOf("2026-02-30T00:00:00.000Z|abc"),
      cursorOf("2026-01-01T00:00:00.000Z|a\u0000b"),
      "not base64!",
      "x".repeat(5000),
    ];
    for (const cursor of hostile) {
      const q = encodeURIComponent(cursor);
      expectRefused(await staff("GET", `/api/leads?cursor=${q}`), "cursor");
      expectRefused(await staff("GET", `/api/forms?cursor=${q}`), "cursor");
      const support = await apiClient(server.url)("GET", `/api/support-requests?cursor=${q}`, undefined, bearer());
      expect(support.status, cursor).toBe(422);
    }
  });

  it("pages through every list with the cursors it gives out", async () => {
    for (let i = 0; i < 3; i++) await staff("POST", "/api/forms", { name: `Paged ${i}`, fields: [] });
    const first = await staff("GET", "/api/forms?limit=2");
    expect(first.status).toBe(200);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await staff("GET", `/api/forms?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.status).toBe(200);
    const firstIds = first.body.items.map((item: { id: string }) => item.id);
    for (const item of second.body.items) expect(firstIds).not.toContain(item.id);
  });
});

describe("field keys that name built-in object members", () => {
  it("are refused when a form is created, and never made from a label", async () => {
    for (const key of ["constructor", "toString", "valueOf", "hasOwnProperty", "isPrototypeOf"]) {
      expectRefused(
        await staff("POST", "/api/forms", { name: "Keys", fields: [{ key, label: "X", type: "text" }] }),
        "fields.0.key",
      );
    }
    const made = await staff("POST", "/api/forms", { name: "Labels", fields: [] });
    const added = await fetch(`${server.url}/forms/${made.body.id}/fields`, {
      method: "POST",
      headers: {
        Cookie: await loginAsStaff(server.url),
        Origin: server.url,
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ intent: "add-field", label: "Constructor", type: "text" }),
      redirect: "manual",
    });
    expect(added.status).toBeLessThan(400);
    const fields = (await db.form.findUniqueOrThrow({ where: { id: made.body.id } })).fields as Array<{ key: string }>;
    expect(fields.map((f) => f.key)).toEqual(["constructor_2"]);
  });

  it("an older form with such an optional field still takes leads without it, and __proto__ is just a key", async () => {
    // Stored before the rule existed.
    const legacy = await createForm("Legacy", [
      [field("name", "Name"), field("toString", "To string"), field("valueOf", "Value of")],
    ]);
    const call = apiClient(server.url);
    expect((await call("POST", "/api/leads/submit", { formId: legacy.id, data: { name: "Ada" } })).status).toBe(201);
    const body = `formId=${legacy.id}&name=Bo&__proto__=a&__proto__=b&constructor=c`;
    const posted = await call("POST", "/api/leads/submit", body, {
      "Content-Type": "application/x-www-form-urlencoded",
      Accept: "application/json",
    });
    expect(posted.status).toBe(201);
    const stored = await db.lead.findMany({ where: { formId: legacy.id }, select: { data: true } });
    expect(stored.map((lead) => lead.data)).toEqual(expect.arrayContaining([{ name: "Ada" }, { name: "Bo" }]));
  });
});
