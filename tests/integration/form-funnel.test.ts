// The drop-off funnel (issue 31, item 8; decision 059): the funnel beacon (POST
// /api/forms/:id/events) counted like views (in memory, flushed in batches, bots and repeats
// left out), the steps posted without JavaScript counted too, and GET /api/forms/:id/funnel
// reading views, starts, steps reached and leads per source.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { THREE_STEPS, newForm } from "../support/forms";
import { apiClient, loginAsStaff, type ApiClient } from "../support/http";
import { startServer, type TestServer } from "../support/server";

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36";
const BOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

let server: TestServer;
let api: ApiClient;

beforeAll(async () => {
  // TRUST_PROXY=true and one X-Forwarded-For entry stand in for visitors at different addresses.
  server = await startServer({ FORM_VIEWS_FLUSH_MS: "100", TRUST_PROXY: "true" });
  api = apiClient(server.url, await loginAsStaff(server.url));
});
afterAll(async () => {
  await server?.stop();
});

let visitors = 0;
/** Headers of a visitor nobody else in this file is: their own address, a browser's User-Agent. */
function newVisitor(): Record<string, string> {
  visitors += 1;
  return { "X-Forwarded-For": `198.19.${visitors >> 8}.${visitors & 255}`, "User-Agent": BROWSER };
}

function post(url: string, formId: string, kind: "views" | "events", body: unknown, headers: Record<string, string>) {
  return fetch(`${url}/api/forms/${encodeURIComponent(formId)}/${kind}`, {
    method: "POST",
    headers: { "Content-Type": "text/plain;charset=UTF-8", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** One visitor's way through a form: a view, then the events given, all from `source`. */
async function visit(formId: string, source: string, events: unknown[], headers = newVisitor(), url = server.url) {
  expect((await post(url, formId, "views", { utm_source: source }, headers)).status).toBe(204);
  for (const event of events) {
    const res = await post(url, formId, "events", { ...(event as object), utm_source: source }, headers);
    expect(res.status).toBe(204);
  }
}

async function stages(formId: string) {
  const rows = await db.formFunnel.findMany({
    where: { formId },
    select: { utmSource: true, stage: true, visitors: true },
    orderBy: [{ utmSource: "asc" }, { stage: "asc" }],
  });
  return rows;
}

const START = { type: "start" };
const step = (n: number) => ({ type: "step", step: n });

describe("the funnel beacon", () => {
  it("counts each visitor's start and steps under their source once, leaving out bots and repeats", async () => {
    const formId = await newForm({ name: "Funnel beacon", ...THREE_STEPS });
    const repeat = newVisitor();
    await visit(formId, "ads", [START, step(2), step(3)], repeat);
    await visit(formId, "ads", [START, step(2), step(3), START], repeat); // the same visitor again
    await visit(formId, "ads", [START, step(2)]);
    await visit(formId, "news", [START]);
    await visit(formId, "bots", [START, step(2)], { ...newVisitor(), "User-Agent": BOT });
    await expect
      .poll(() => stages(formId), { timeout: 10_000 })
      .toEqual([
        { utmSource: "ads", stage: 0, visitors: 2 },
        { utmSource: "ads", stage: 2, visitors: 2 },
        { utmSource: "ads", stage: 3, visitors: 1 },
        { utmSource: "news", stage: 0, visitors: 1 },
      ]);
  });

  it("refuses a malformed event with the field named, and ignores a step the form does not have", async () => {
    const formId = await newForm({ name: "Funnel refusals", ...THREE_STEPS });
    const refused = async (body: unknown, path: string) => {
      const res = await post(server.url, formId, "events", body, newVisitor());
      expect(res.status).toBe(422);
      const answer = await res.json();
      expect(answer.error.code).toBe("validation_failed");
      expect(answer.error.details.map((d: { path: string }) => d.path)).toEqual([path]);
    };
    await refused({}, "type");
    await refused({ type: "finish" }, "type");
    await refused({ type: "step" }, "step");
    await refused({ type: "step", step: 1 }, "step");
    await refused({ type: "step", step: 2.5 }, "step");
    await refused({ type: "step", step: 21 }, "step");
    await refused({ type: "start", utm_source: 7 }, "utm_source");
    const notJson = await post(server.url, formId, "events", "{", newVisitor());
    expect(notJson.status).toBe(400);
    const unknown = await post(server.url, "no-such-form", "events", START, newVisitor());
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.code).toBe("not_found");
    expect((await fetch(`${server.url}/api/forms/${formId}/events`)).status).toBe(405);
    // Step 4 of a form in three steps (a page drawn before the form changed): 204, not counted.
    await visit(formId, "old-page", [step(4), START]);
    await expect
      .poll(() => stages(formId), { timeout: 10_000 })
      .toEqual([{ utmSource: "old-page", stage: 0, visitors: 1 }]);
  });

  it("costs no database write per beacon: counts wait in memory for the flush (here, the server's stop)", async () => {
    const slow = await startServer({ FORM_VIEWS_FLUSH_MS: "3600000", TRUST_PROXY: "true" });
    const formId = await newForm({ name: "Funnel batched", ...THREE_STEPS });
    try {
      for (let i = 0; i < 20; i++) await visit(formId, "batched", [START, step(2)], newVisitor(), slow.url);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await stages(formId)).toEqual([]);
      expect(await db.formView.count({ where: { formId } })).toBe(0);
    } finally {
      await slow.stop();
    }
    expect(await stages(formId)).toEqual([
      { utmSource: "batched", stage: 0, visitors: 20 },
      { utmSource: "batched", stage: 2, visitors: 20 },
    ]);
  });
});

describe("the steps without JavaScript", () => {
  it("count the visitor's start and the step each Next reaches, under the source the page carries", async () => {
    const formId = await newForm({ name: "Funnel no-JS", ...THREE_STEPS });
    const headers = { ...newVisitor(), "Content-Type": "application/x-www-form-urlencoded" };
    const first = new URLSearchParams({
      _step: "1",
      utm_source: "mail",
      referrerUrl: "https://news.example.com/a",
      email: "ada@example.com",
      reason: "sales",
    });
    const next = await fetch(`${server.url}/f/${formId}`, { method: "POST", headers, body: first, redirect: "manual" });
    expect(next.status).toBe(303);
    const to = new URL(next.headers.get("location")!, server.url);
    expect(to.searchParams.get("_step")).toBe("2");
    await expect
      .poll(() => stages(formId), { timeout: 10_000 })
      .toEqual([
        { utmSource: "mail", stage: 0, visitors: 1 },
        { utmSource: "mail", stage: 2, visitors: 1 },
      ]);
  });
});

describe("GET /api/forms/:id/funnel", () => {
  it("gives each source's views, starts, steps reached and leads, most views first", async () => {
    const formId = await newForm({ name: "Funnel read", ...THREE_STEPS });
    for (let i = 0; i < 4; i++) await visit(formId, "ads", i < 3 ? [START, step(2)] : []);
    await visit(formId, "ads", [START, step(2), step(3)]);
    await visit(formId, "news", [START, step(3)]);
    const submit = await apiClient(server.url)("POST", "/api/leads/submit", {
      formId,
      data: { email: "lead@example.com", reason: "support" },
      utm: { utm_source: "ads" },
    });
    expect(submit.status, submit.text).toBe(201);
    await expect.poll(async () => (await stages(formId)).reduce((sum, row) => sum + row.visitors, 0)).toBe(11);
    await expect.poll(async () => (await db.formView.count({ where: { formId } })) > 0).toBe(true);

    const res = await api("GET", `/api/forms/${formId}/funnel`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.groupBy).toBe("utm_source");
    expect(res.body.steps).toBe(3);
    expect(res.body.rows).toEqual([
      {
        key: "ads",
        views: 5,
        started: 4,
        steps: [
          { step: 1, reached: 4 },
          { step: 2, reached: 4 },
          { step: 3, reached: 1 },
        ],
        submitted: 1,
        conversionRate: 0.2,
      },
      {
        key: "news",
        views: 1,
        started: 1,
        steps: [
          { step: 1, reached: 1 },
          { step: 2, reached: 0 },
          { step: 3, reached: 1 },
        ],
        submitted: 0,
        conversionRate: 0,
      },
    ]);
    const byReferrer = await api("GET", `/api/forms/${formId}/funnel?groupBy=referrer`);
    expect(byReferrer.status).toBe(200);
    expect(byReferrer.body.rows.map((row: { key: string | null }) => row.key)).toEqual([null]);
    // A period before any of it: no rows.
    const before = await api("GET", `/api/forms/${formId}/funnel?from=2020-01-01&to=2020-01-31`);
    expect(before.body.rows).toEqual([]);
  });

  it("refuses a bad query in the error shape, an unknown form with 404, and a caller without a session", async () => {
    const formId = await newForm({ name: "Funnel query", ...THREE_STEPS });
    const bad = await api("GET", `/api/forms/${formId}/funnel?groupBy=day&from=2026-13-01&extra=1`);
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(["extra", "from", "groupBy"]);
    expect((await api("GET", "/api/forms/no-such-form/funnel")).status).toBe(404);
    expect((await apiClient(server.url)("GET", `/api/forms/${formId}/funnel`)).status).toBe(401);
  });

  it("is read with an API token that may read leads", async () => {
    const made = await api("POST", "/api/tokens", { name: "Funnel reader", scopes: ["leads:read"] });
    expect(made.status, made.text).toBe(201);
    const formId = await newForm({ name: "Funnel token", ...THREE_STEPS });
    const res = await fetch(`${server.url}/api/forms/${formId}/funnel`, {
      headers: { Authorization: `Bearer ${made.body.token}` },
    });
    expect(res.status).toBe(200);
    expect((await res.json()).rows).toEqual([]);
  });
});
