// Form views (hosted page renders and embed beacons) counted in memory, flushed into FormView,
// and read back beside leads as conversion rates (GET /api/forms/:id/stats, /leads/sources).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formViewStore } from "~/storage/index.server";
import { db } from "~/utils/db.server";
import { apiClient, loginAsStaff, type ApiClient } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import { createForm, createLeads, day, field } from "./leads.helpers";

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36";
const today = () => new Date().toISOString().slice(0, 10);

let server: TestServer;
let api: ApiClient;

beforeAll(async () => {
  server = await startServer({ FORM_VIEWS_FLUSH_MS: "100" });
  api = apiClient(server.url, await loginAsStaff(server.url));
});
afterAll(async () => {
  await server?.stop();
});

async function newForm(name: string, allowedOrigins: string[] = []) {
  const form = await createForm(name, [[field("email", "Email", "email")]]);
  await db.form.update({ where: { id: form.id }, data: { settings: { allowedOrigins } } });
  return form;
}

function beacon(formId: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${server.url}/api/forms/${encodeURIComponent(formId)}/views`, {
    method: "POST",
    headers: { "Content-Type": "text/plain;charset=UTF-8", "User-Agent": BROWSER, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function storedViews(formId: string) {
  const rows = await db.formView.findMany({
    where: { formId },
    select: { day: true, utmSource: true, utmCampaign: true, referrerHost: true, views: true },
    orderBy: [{ utmSource: "asc" }, { utmCampaign: "asc" }, { referrerHost: "asc" }],
  });
  return rows;
}

/** Waits until the flushes have written `total` views of the form. */
async function viewsReach(formId: string, total: number) {
  await expect
    .poll(async () => (await storedViews(formId)).reduce((sum, row) => sum + row.views, 0), { timeout: 10_000 })
    .toBe(total);
}

describe("the view beacon", () => {
  it("answers 204 and counts the view under its source after the flush", async () => {
    const form = await newForm("Beacon");
    for (let i = 0; i < 3; i++) {
      const res = await beacon(form.id, {
        utm_source: "news",
        utm_campaign: "spring",
        referrerHost: "News.Example.com",
      });
      expect(res.status).toBe(204);
    }
    expect((await beacon(form.id, "")).status).toBe(204);
    await viewsReach(form.id, 4);
    expect(await storedViews(form.id)).toEqual([
      { day: today(), utmSource: "", utmCampaign: "", referrerHost: "", views: 1 },
      { day: today(), utmSource: "news", utmCampaign: "spring", referrerHost: "news.example.com", views: 3 },
    ]);
  });

  it("adds to the stored count across flushes rather than overwriting it", async () => {
    const form = await newForm("Two flushes");
    await beacon(form.id, { utm_source: "ads" });
    await beacon(form.id, { utm_source: "ads" });
    await viewsReach(form.id, 2);
    await beacon(form.id, { utm_source: "ads" });
    await viewsReach(form.id, 3);
    expect(await storedViews(form.id)).toEqual([
      { day: today(), utmSource: "ads", utmCampaign: "", referrerHost: "", views: 3 },
    ]);
  });

  it("lets the page of an allowed origin read the answer, and ignores a disallowed origin", async () => {
    const form = await newForm("Origins", ["https://www.example.com"]);
    const allowed = await beacon(form.id, { utm_source: "ok" }, { Origin: "https://www.example.com" });
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get("access-control-allow-origin")).toBe("https://www.example.com");
    const refused = await beacon(form.id, { utm_source: "evil" }, { Origin: "https://evil.example" });
    expect(refused.status).toBe(204);
    expect(refused.headers.get("access-control-allow-origin")).toBeNull();
    await viewsReach(form.id, 1);
    expect((await storedViews(form.id)).map((row) => row.utmSource)).toEqual(["ok"]);
  });

  it("does not count bots, on the beacon or on the hosted page", async () => {
    const form = await newForm("Bots");
    const bot = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
    expect((await beacon(form.id, { utm_source: "bot" }, { "User-Agent": bot })).status).toBe(204);
    const page = await fetch(`${server.url}/f/${form.id}?utm_source=bot`, { headers: { "User-Agent": bot } });
    expect(page.status).toBe(200);
    const human = await fetch(`${server.url}/f/${form.id}?utm_source=human&utm_campaign=c1`, {
      headers: { "User-Agent": BROWSER, Referer: "https://search.example.org/?q=x" },
    });
    expect(human.status).toBe(200);
    await viewsReach(form.id, 1);
    expect(await storedViews(form.id)).toEqual([
      { day: today(), utmSource: "human", utmCampaign: "c1", referrerHost: "search.example.org", views: 1 },
    ]);
  });

  it("answers 404 in the error shape for an unknown form, and counts nothing", async () => {
    const res = await beacon("no-such-form", { utm_source: "x" });
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe("not_found");
  });

  it("refuses bad input with the field named, never a 500", async () => {
    const form = await newForm("Bad input");
    const notJson = await beacon(form.id, "{not json");
    expect(notJson.status).toBe(400);
    expect((await notJson.json()).error.code).toBe("malformed_json");
    const wrongType = await beacon(form.id, { utm_source: 42, referrerHost: ["a"] });
    expect(wrongType.status).toBe(422);
    expect((await wrongType.json()).error.details.map((d: { path: string }) => d.path)).toEqual([
      "utm_source",
      "referrerHost",
    ]);
    expect((await beacon(form.id, "[1]")).status).toBe(422);
    const tooLarge = await beacon(form.id, { utm_source: "x".repeat(10_000) });
    expect(tooLarge.status).toBe(413);
    const get = await fetch(`${server.url}/api/forms/${form.id}/views`);
    expect(get.status).toBe(405);
    // Long and odd values are cut or dropped, never stored as sent.
    expect((await beacon(form.id, { utm_source: "y".repeat(300), referrerHost: "not a host!" })).status).toBe(204);
    await viewsReach(form.id, 1);
    expect(await storedViews(form.id)).toEqual([
      { day: today(), utmSource: "y".repeat(200), utmCampaign: "", referrerHost: "", views: 1 },
    ]);
  });
});

describe("the FormView store", () => {
  it("adds to existing rows and skips forms deleted meanwhile", async () => {
    const form = await newForm("Store");
    const gone = await newForm("Gone");
    await db.form.delete({ where: { id: gone.id } });
    const count = { day: "2026-01-02", utmSource: "s", utmCampaign: "", referrerHost: "", views: 2 };
    await formViewStore.add([
      { formId: form.id, ...count },
      { formId: gone.id, ...count },
    ]);
    await formViewStore.add([{ formId: form.id, ...count, views: 5 }]);
    expect(await storedViews(form.id)).toEqual([{ ...count, views: 7 }]);
    expect(await db.formView.count({ where: { formId: gone.id } })).toBe(0);
  });
});

describe("GET /api/forms/:id/stats", () => {
  let form: { id: string };

  beforeAll(async () => {
    form = await newForm("Stats");
    const add = (day: string, utmSource: string, utmCampaign: string, referrerHost: string, views: number) => ({
      formId: form.id,
      day,
      utmSource,
      utmCampaign,
      referrerHost,
      views,
    });
    await formViewStore.add([
      add("2026-03-01", "google", "spring", "www.google.com", 10),
      add("2026-03-02", "google", "spring", "", 10),
      add("2026-03-02", "news", "", "", 4),
      add("2026-03-03", "", "", "", 5),
    ]);
    await createLeads(form.id, [
      {
        data: { email: "a@example.com" },
        createdAt: day("2026-03-01T10:00:00"),
        utmSource: "google",
        utmCampaign: "spring",
      },
      {
        data: { email: "b@example.com" },
        createdAt: day("2026-03-02T10:00:00"),
        utmSource: "google",
        utmCampaign: "spring",
      },
      { data: { email: "c@example.com" }, createdAt: day("2026-03-02T11:00:00"), utmSource: "news" },
      { data: { email: "d@example.com" }, createdAt: day("2026-03-03T11:00:00"), utmSource: "partner" },
      { data: { email: "spam@example.com" }, createdAt: day("2026-03-03T11:00:00"), utmSource: "news", isSpam: true },
    ]);
  });

  const stats = (query: string) => api("GET", `/api/forms/${form.id}/stats?from=2026-03-01&to=2026-03-03&${query}`);

  it("groups by utm_source, most views first, with null for views without leads' key and for no views", async () => {
    const res = await stats("groupBy=utm_source");
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      formId: form.id,
      from: "2026-03-01",
      to: "2026-03-03",
      groupBy: "utm_source",
      rows: [
        { key: "google", views: 20, leads: 2, conversionRate: 0.1 },
        { key: null, views: 5, leads: 0, conversionRate: 0 },
        { key: "news", views: 4, leads: 1, conversionRate: 0.25 },
        { key: "partner", views: 0, leads: 1, conversionRate: null },
      ],
    });
  });

  it("groups by utm_campaign and by referrer_host", async () => {
    expect((await stats("groupBy=utm_campaign")).body.rows).toEqual([
      { key: "spring", views: 20, leads: 2, conversionRate: 0.1 },
      { key: null, views: 9, leads: 2, conversionRate: 2 / 9 },
    ]);
    expect((await stats("groupBy=referrer_host")).body.rows).toEqual([
      { key: null, views: 19, leads: 4, conversionRate: 4 / 19 },
      { key: "www.google.com", views: 10, leads: 0, conversionRate: 0 },
    ]);
  });

  it("groups by day, every day of the period, and narrows to the period", async () => {
    expect((await stats("groupBy=day")).body.rows).toEqual([
      { key: "2026-03-01", views: 10, leads: 1, conversionRate: 0.1 },
      { key: "2026-03-02", views: 14, leads: 2, conversionRate: 2 / 14 },
      { key: "2026-03-03", views: 5, leads: 1, conversionRate: 0.2 },
    ]);
    const one = await api("GET", `/api/forms/${form.id}/stats?from=2026-03-02&to=2026-03-02&groupBy=utm_source`);
    expect(one.body.rows).toEqual([
      { key: "google", views: 10, leads: 1, conversionRate: 0.1 },
      { key: "news", views: 4, leads: 1, conversionRate: 0.25 },
    ]);
  });

  it("answers 404 for an unknown form and 422 naming each bad parameter", async () => {
    const missing = await api("GET", "/api/forms/no-such-form/stats?groupBy=day");
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("not_found");
    const bad = await api("GET", `/api/forms/${form.id}/stats?groupBy=country&from=2026-02-31&extra=1`);
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe("validation_failed");
    expect(bad.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(["extra", "from", "groupBy"]);
    const backwards = await api("GET", `/api/forms/${form.id}/stats?groupBy=day&from=2026-03-03&to=2026-03-01`);
    expect(backwards.status).toBe(422);
    expect(backwards.body.error.details[0].path).toBe("to");
  });

  it("needs a session (401) like the lead list", async () => {
    const res = await apiClient(server.url)("GET", `/api/forms/${form.id}/stats?groupBy=day`);
    expect(res.status).toBe(401);
  });

  it("shows views, leads and conversion per source on /leads/sources, chart included", async () => {
    const cookie = await loginAsStaff(server.url);
    const res = await fetch(`${server.url}/leads/sources?formId=${form.id}&from=2026-03-01&to=2026-03-03`, {
      headers: { Cookie: cookie },
    });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("<strong>29</strong> views, <strong>4</strong> leads");
    expect(html).toMatch(/google<\/a><\/th><td[^>]*>20<\/td><td[^>]*>2<\/td><td[^>]*>10\.0%<\/td>/);
    expect(html).toContain("<svg");
    expect(html).toContain("2026-03-02: 14 views");
  });
});
