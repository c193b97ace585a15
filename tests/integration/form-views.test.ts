// Form views (hosted page renders and embed beacons) counted in memory, flushed into FormView,
// and read back beside leads as conversion rates (GET /api/forms/:id/stats, /leads/sources).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { formViewStore } from "~/storage/index.server";
import { newForm } from "../support/forms";
import { apiClient, loginAsStaff, type ApiClient } from "../support/http";
import { createLeads, day, field } from "../support/leads";
import { startServer, type TestServer } from "../support/server";

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36";
const today = () => new Date().toISOString().slice(0, 10);
// Visitors of one form counted per address per window, as this file's server is configured.
const PER_ADDRESS = 5;

let server: TestServer;
let api: ApiClient;

beforeAll(async () => {
  // TRUST_PROXY=true and one X-Forwarded-For entry stand in for visitors at different addresses.
  server = await startServer({
    FORM_VIEWS_FLUSH_MS: "100",
    TRUST_PROXY: "true",
    FORM_VIEWS_PER_ADDRESS: `${PER_ADDRESS}`,
  });
  api = apiClient(server.url, await loginAsStaff(server.url));
});
afterAll(async () => {
  await server?.stop();
});

const viewedForm = async (name: string, allowedOrigins: string[] = []) => ({
  id: await newForm({ name, fields: [field("email", "Email", "email")], settings: { allowedOrigins } }),
});

let visitors = 0;
/** Headers of a visitor nobody else in this file is: their own address, a browser's User-Agent. */
function newVisitor(): Record<string, string> {
  visitors += 1;
  return { "X-Forwarded-For": `198.18.${visitors >> 8}.${visitors & 255}`, "User-Agent": BROWSER };
}

function beacon(formId: string, body: unknown, headers: Record<string, string> = newVisitor(), url = server.url) {
  return fetch(`${url}/api/forms/${encodeURIComponent(formId)}/views`, {
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

/**
 * The views of the form stored once everything sent so far has been flushed: a new visitor's
 * beacon (source "(marker)") goes last, and a flush takes all that was counted before it.
 */
async function viewsSettled(formId: string, url = server.url): Promise<number> {
  expect((await beacon(formId, { utm_source: "(marker)" }, newVisitor(), url)).status).toBe(204);
  await expect
    .poll(async () => (await storedViews(formId)).some((row) => row.utmSource === "(marker)"), { timeout: 10_000 })
    .toBe(true);
  const rows = await storedViews(formId);
  return rows.filter((row) => row.utmSource !== "(marker)").reduce((sum, row) => sum + row.views, 0);
}

/** Sends `count` requests, `parallel` at a time; returns their statuses. */
async function inParallel(count: number, parallel: number, send: (i: number) => Promise<Response>) {
  const statuses: number[] = [];
  for (let start = 0; start < count; start += parallel) {
    const batch = Array.from({ length: Math.min(parallel, count - start) }, (_, j) => send(start + j));
    for (const res of await Promise.all(batch)) {
      statuses.push(res.status);
      await res.body?.cancel();
    }
  }
  return statuses;
}

describe("the view beacon", () => {
  it("answers 204 and counts each visitor's view under its source after the flush", async () => {
    const form = await viewedForm("Beacon");
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
    const form = await viewedForm("Two flushes");
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
    const form = await viewedForm("Origins", ["https://www.example.com"]);
    const allowed = await beacon(form.id, { utm_source: "ok" }, { ...newVisitor(), Origin: "https://www.example.com" });
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get("access-control-allow-origin")).toBe("https://www.example.com");
    const refused = await beacon(form.id, { utm_source: "evil" }, { ...newVisitor(), Origin: "https://evil.example" });
    expect(refused.status).toBe(204);
    expect(refused.headers.get("access-control-allow-origin")).toBeNull();
    await viewsReach(form.id, 1);
    expect((await storedViews(form.id)).map((row) => row.utmSource)).toEqual(["ok"]);
  });

  it("does not count bots, on the beacon or on the hosted page", async () => {
    const form = await viewedForm("Bots");
    const bot = {
      ...newVisitor(),
      "User-Agent": "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    };
    expect((await beacon(form.id, { utm_source: "bot" }, bot)).status).toBe(204);
    const page = await fetch(`${server.url}/f/${form.id}?utm_source=bot`, { headers: bot });
    expect(page.status).toBe(200);
    const human = await fetch(`${server.url}/f/${form.id}?utm_source=human&utm_campaign=c1`, {
      headers: { ...newVisitor(), Referer: "https://search.example.org/?q=x" },
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
    const form = await viewedForm("Bad input");
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

describe("one view per visitor per form in the window (issue 28)", () => {
  it("counts 2,000 beacons from one address and User-Agent within seconds as one view, answering each 204", async () => {
    const form = await viewedForm("Inflated");
    const attacker = newVisitor();
    const statuses = await inParallel(2_000, 50, (i) => beacon(form.id, { utm_source: `s${i % 7}` }, attacker));
    expect(statuses.filter((status) => status !== 204)).toEqual([]);
    expect(await viewsSettled(form.id)).toBe(1);
  });

  it("counts at most FORM_VIEWS_PER_ADDRESS visitors from one address rotating User-Agents, the rest 204 and not counted", async () => {
    const form = await viewedForm("Rotating agents");
    const { "X-Forwarded-For": address } = newVisitor();
    const statuses = await inParallel(300, 30, (i) =>
      beacon(form.id, {}, { "X-Forwarded-For": address, "User-Agent": `${BROWSER} rotated/${i}` }),
    );
    expect(statuses.filter((status) => status !== 204)).toEqual([]);
    expect(await viewsSettled(form.id)).toBe(PER_ADDRESS);
  });

  it("counts two visitors twice: another address, or another browser at the same address", async () => {
    const form = await viewedForm("Two visitors");
    const ada = newVisitor();
    const grace = newVisitor();
    const adaOtherBrowser = {
      ...ada,
      "User-Agent": "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
    };
    for (const visitor of [ada, grace, adaOtherBrowser, ada, grace]) {
      expect((await beacon(form.id, {}, visitor)).status).toBe(204);
    }
    expect(await viewsSettled(form.id)).toBe(3);
  });

  it("counts the hosted page once per visitor too, sharing the window with the beacon", async () => {
    const form = await viewedForm("Hosted page reloads");
    const ada = newVisitor();
    for (let i = 0; i < 5; i++) {
      expect((await fetch(`${server.url}/f/${form.id}?utm_source=reload`, { headers: ada })).status).toBe(200);
    }
    // The same visitor's embed beacon for the same form within the window: no second view.
    expect((await beacon(form.id, { utm_source: "embed" }, ada)).status).toBe(204);
    expect((await fetch(`${server.url}/f/${form.id}?utm_source=other`, { headers: newVisitor() })).status).toBe(200);
    expect(await viewsSettled(form.id)).toBe(2);
    expect((await storedViews(form.id)).map((row) => [row.utmSource, row.views])).toEqual([
      ["(marker)", 1],
      ["other", 1],
      ["reload", 1],
    ]);
  });

  it("counts a visitor again once FORM_VIEW_DEDUPE_SECONDS have passed", async () => {
    const short = await startServer({ FORM_VIEWS_FLUSH_MS: "100", TRUST_PROXY: "true", FORM_VIEW_DEDUPE_SECONDS: "1" });
    try {
      const form = await viewedForm("Short window");
      const ada = newVisitor();
      expect((await beacon(form.id, {}, ada, short.url)).status).toBe(204);
      expect((await beacon(form.id, {}, ada, short.url)).status).toBe(204);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect((await beacon(form.id, {}, ada, short.url)).status).toBe(204);
      expect(await viewsSettled(form.id, short.url)).toBe(2);
    } finally {
      await short.stop();
    }
  });
});

describe("the FormView store", () => {
  it("adds to existing rows and skips forms deleted meanwhile", async () => {
    const form = await viewedForm("Store");
    const gone = await viewedForm("Gone");
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
    form = await viewedForm("Stats");
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
