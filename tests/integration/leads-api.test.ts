import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { apiClient, loginAsStaff, type ApiClient } from "../support/http";
import { createForm, createLeads, day, field } from "../support/leads";
import { startServer, type TestServer } from "../support/server";

let server: TestServer;
let api: ApiClient;
let contact: { id: string };
let newsletter: { id: string };

beforeAll(async () => {
  server = await startServer();
  api = apiClient(server.url, await loginAsStaff(server.url));
  contact = await createForm("Contact form", [
    [field("name", "Name"), field("email", "Email", "email")],
    [field("name", "Full name"), field("email", "Email", "email"), field("company", "Company")],
  ]);
  newsletter = await createForm("Newsletter", [[field("email", "Email", "email")]]);
  await createLeads(contact.id, [
    {
      data: { name: "Ada", email: "ada@example.com" },
      createdAt: day("2026-03-01T09:00:00"),
      utmSource: "google",
      utmMedium: "cpc",
      utmCampaign: "spring",
      schemaVersion: 1,
      referrerUrl: "https://www.google.com/search?q=ada",
    },
    {
      data: { name: "Grace", email: "grace@example.com", company: "Navy" },
      createdAt: day("2026-03-02T23:59:59.999"),
      utmSource: "google",
      utmMedium: "organic",
      utmCampaign: "summer",
      schemaVersion: 2,
    },
    {
      data: { name: "Zoë Ünal", email: "zoe@example.com", company: "100% Café" },
      createdAt: day("2026-03-03T00:00:00"),
      utmSource: "newsletter",
      utmMedium: "email",
      utmCampaign: "spring",
      schemaVersion: 2,
    },
    {
      data: { name: "Spammy", email: "bot@example.com" },
      createdAt: day("2026-03-02T12:00:00"),
      isSpam: true,
      utmSource: "google",
      schemaVersion: 2,
    },
  ]);
  await createLeads(newsletter.id, [
    {
      data: { email: "news@example.com" },
      createdAt: day("2026-03-02T10:00:00"),
      utmSource: "twitter",
      utmCampaign: "spring",
    },
  ]);
});
afterAll(async () => {
  await server?.stop();
});

async function names(query: string): Promise<string[]> {
  const res = await api("GET", `/api/leads${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body.leads.map((lead: { data: { name?: string; email: string } }) => lead.data.name ?? lead.data.email);
}

describe("GET /api/leads", () => {
  it("answers 401 JSON without a session, on every leads endpoint", async () => {
    const anonymous = apiClient(server.url);
    for (const [method, path] of [
      ["GET", "/api/leads"],
      ["GET", "/api/leads/some-id"],
      ["DELETE", "/api/leads/some-id"],
      ["GET", "/api/leads/export?format=csv"],
    ]) {
      const res = await anonymous(method, path);
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.body.error.code).toBe("unauthorized");
    }
  });

  it("lists leads newest first, without spam by default, with form name, source and data", async () => {
    const res = await api("GET", "/api/leads");
    expect(res.status).toBe(200);
    expect(res.body.nextCursor).toBeNull();
    expect(res.body.leads.map((lead: { data: { email: string } }) => lead.data.email)).toEqual([
      "zoe@example.com",
      "grace@example.com",
      "news@example.com",
      "ada@example.com",
    ]);
    expect(res.body.leads[3]).toEqual({
      id: expect.any(String),
      formId: contact.id,
      formName: "Contact form",
      createdAt: "2026-03-01T09:00:00.000Z",
      status: "new",
      isSpam: false,
      owner: null,
      tags: [],
      email: "ada@example.com",
      schemaVersion: 1,
      data: { name: "Ada", email: "ada@example.com" },
      utm: { utm_source: "google", utm_medium: "cpc", utm_campaign: "spring", utm_term: null, utm_content: null },
      referrerHost: "www.google.com",
      awaitingConfirmation: false,
    });
  });

  it("filters by form", async () => {
    expect(await names(`?formId=${newsletter.id}`)).toEqual(["news@example.com"]);
    expect(await names(`?formId=${contact.id}`)).toEqual(["Zoë Ünal", "Grace", "Ada"]);
    expect(await names(`?formId=unknown-form`)).toEqual([]);
  });

  it("filters by days, both ends inclusive, in UTC", async () => {
    expect(await names("?from=2026-03-02&to=2026-03-02")).toEqual(["Grace", "news@example.com"]);
    expect(await names("?from=2026-03-03")).toEqual(["Zoë Ünal"]);
    expect(await names("?to=2026-03-01")).toEqual(["Ada"]);
  });

  it("filters by utm_source, utm_medium and utm_campaign, together with the form", async () => {
    expect(await names("?utm_source=google")).toEqual(["Grace", "Ada"]);
    expect(await names("?utm_medium=email")).toEqual(["Zoë Ünal"]);
    expect(await names("?utm_campaign=spring")).toEqual(["Zoë Ünal", "news@example.com", "Ada"]);
    expect(await names(`?utm_campaign=spring&formId=${contact.id}`)).toEqual(["Zoë Ünal", "Ada"]);
  });

  it("searches the values case-insensitively, accents included, and takes % literally", async () => {
    expect(await names("?q=GRACE")).toEqual(["Grace"]);
    expect(await names("?q=zo%C3%AB%20%C3%BC")).toEqual(["Zoë Ünal"]);
    expect(await names("?q=ZO%C3%8B")).toEqual(["Zoë Ünal"]);
    expect(await names("?q=100%25%20caf")).toEqual(["Zoë Ünal"]);
    expect(await names("?q=0%25")).toEqual(["Zoë Ünal"]);
    expect(await names("?q=_")).toEqual([]);
    expect(await names("?q=example.com")).toHaveLength(4);
  });

  it("shows spam only with spam=true, and everything with spam=all", async () => {
    expect(await names("?spam=true")).toEqual(["Spammy"]);
    expect(await names("?spam=all")).toEqual(["Zoë Ünal", "Grace", "Spammy", "news@example.com", "Ada"]);
    expect(await names("?spam=false")).toHaveLength(4);
  });

  it("treats empty parameters (as a GET form sends them) as no filter", async () => {
    expect(await names("?formId=&from=&to=&utm_source=&utm_medium=&utm_campaign=&q=&spam=")).toHaveLength(4);
  });

  it.each([
    ["from", "?from=2026-02-30"],
    ["to", "?to=yesterday"],
    ["to", "?from=2026-03-05&to=2026-03-01"],
    ["limit", "?limit=0"],
    ["limit", "?limit=501"],
    ["limit", "?limit=ten"],
    ["limit", "?limit=2.5"],
    ["cursor", "?cursor=not-a-cursor!"],
    ["cursor", `?cursor=${Buffer.from("2026-01-01|x|y").toString("base64url")}`],
    ["spam", "?spam=maybe"],
    ["q", `?q=${"x".repeat(201)}`],
  ])("refuses a bad %s with 422 naming it (%s)", async (param, query) => {
    const res = await api("GET", `/api/leads${query}`);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("validation_failed");
    expect(res.body.error.details.map((detail: { path: string }) => detail.path)).toContain(param);
  });
});

describe("keyset pagination", () => {
  it("skips and repeats no lead across pages while new leads arrive between fetches", async () => {
    const form = await createForm("Paging", [[field("n", "Number", "number")]]);
    // Several leads share a timestamp, so the id must break ties.
    const seeded = Array.from({ length: 53 }, (_, i) => ({
      data: { n: i },
      createdAt: new Date(Date.UTC(2025, 0, 1, 0, 0, Math.floor(i / 4))),
    }));
    await createLeads(form.id, seeded);
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: { status: number; body: any } = await api(
        "GET",
        `/api/leads?formId=${form.id}&limit=7${cursor ? `&cursor=${cursor}` : ""}`,
      );
      expect(res.status).toBe(200);
      seen.push(...res.body.leads.map((lead: { data: { n: number } }) => lead.data.n));
      cursor = res.body.nextCursor;
      pages++;
      // Newer leads arrive, and one with the very timestamp of the page's last lead.
      await createLeads(form.id, [
        { data: { n: 1000 + pages }, createdAt: new Date() },
        ...(res.body.leads.length
          ? [{ data: { n: 2000 + pages }, createdAt: new Date(res.body.leads[res.body.leads.length - 1].createdAt) }]
          : []),
      ]);
    } while (cursor);
    const original = seen.filter((n) => n < 1000);
    expect(original).toHaveLength(53);
    expect(new Set(seen).size).toBe(seen.length);
    expect(new Set(original)).toEqual(new Set(seeded.map((lead) => lead.data.n)));
  });

  it("pages spam=all in one order across both kinds of lead", async () => {
    const form = await createForm("Mixed", [[field("n", "Number", "number")]]);
    await createLeads(
      form.id,
      Array.from({ length: 20 }, (_, i) => ({
        data: { n: i },
        isSpam: i % 3 === 0,
        createdAt: new Date(Date.UTC(2025, 5, 1, 0, i)),
      })),
    );
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const res: { body: any } = await api(
        "GET",
        `/api/leads?formId=${form.id}&spam=all&limit=6${cursor ? `&cursor=${cursor}` : ""}`,
      );
      seen.push(...res.body.leads.map((lead: { data: { n: number } }) => lead.data.n));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(Array.from({ length: 20 }, (_, i) => 19 - i));
  });

  it("defaults to 50 per page and allows up to 500", async () => {
    const form = await createForm("Many", [[field("n", "Number", "number")]]);
    await createLeads(
      form.id,
      Array.from({ length: 520 }, (_, i) => ({ data: { n: i } })),
    );
    const first = await api("GET", `/api/leads?formId=${form.id}`);
    expect(first.body.leads).toHaveLength(50);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const big = await api("GET", `/api/leads?formId=${form.id}&limit=500`);
    expect(big.body.leads).toHaveLength(500);
    const rest = await api("GET", `/api/leads?formId=${form.id}&limit=500&cursor=${big.body.nextCursor}`);
    expect(rest.body.leads).toHaveLength(20);
    expect(rest.body.nextCursor).toBeNull();
  });
});

describe("one lead", () => {
  it("comes with its form's name and the labels of the schema version it was stored under", async () => {
    const [ada] = await db.lead.findMany({ where: { formId: contact.id, schemaVersion: 1 } });
    const res = await api("GET", `/api/leads/${ada.id}`);
    expect(res.status).toBe(200);
    expect(res.body.lead).toMatchObject({
      id: ada.id,
      formId: contact.id,
      formName: "Contact form",
      schemaVersion: 1,
      data: { name: "Ada", email: "ada@example.com" },
      fields: [
        { key: "name", label: "Name", type: "text" },
        { key: "email", label: "Email", type: "email" },
      ],
      utm: { utm_source: "google", utm_medium: "cpc", utm_campaign: "spring", utm_term: null, utm_content: null },
      referrerUrl: "https://www.google.com/search?q=ada",
      referrerHost: "www.google.com",
      landingPageUrl: null,
    });
    const [grace] = await db.lead.findMany({ where: { formId: contact.id, schemaVersion: 2, isSpam: false }, take: 1 });
    const v2 = await api("GET", `/api/leads/${grace.id}`);
    expect(v2.body.lead.fields.map((f: { label: string }) => f.label)).toEqual(["Full name", "Email", "Company"]);
  });

  it("answers 404 for an unknown id", async () => {
    const res = await api("GET", "/api/leads/does-not-exist");
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("not_found");
  });

  it("is deleted with 204, then is gone (404), and a second delete is 404", async () => {
    const form = await createForm("Delete me", [[field("email", "Email", "email")]]);
    await createLeads(form.id, [{ data: { email: "gone@example.com" } }, { data: { email: "stays@example.com" } }]);
    const gone = await db.lead.findFirstOrThrow({ where: { formId: form.id, searchText: { contains: "gone" } } });
    const res = await api("DELETE", `/api/leads/${gone.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect((await api("GET", `/api/leads/${gone.id}`)).status).toBe(404);
    expect((await api("DELETE", `/api/leads/${gone.id}`)).status).toBe(404);
    expect(await db.lead.count({ where: { formId: form.id } })).toBe(1);
  });

  it("refuses a cross-site DELETE with the session cookie", async () => {
    const [lead] = await db.lead.findMany({ where: { formId: newsletter.id } });
    const res = await api("DELETE", `/api/leads/${lead.id}`, undefined, { Origin: "https://evil.example" });
    expect(res.status).toBe(403);
    expect(await db.lead.count({ where: { id: lead.id } })).toBe(1);
  });

  it("answers other methods with 405", async () => {
    expect((await api("POST", "/api/leads", {})).status).toBe(405);
    expect((await api("PUT", "/api/leads/x", {})).status).toBe(405);
  });
});

describe("dashboard pages", () => {
  it("send a visitor without a session to the login page, keeping the filtered address", async () => {
    for (const path of ["/leads?utm_campaign=spring", "/leads/some-id", "/leads/sources"]) {
      const res = await fetch(`${server.url}${path}`, { redirect: "manual" });
      expect(res.status, path).toBe(302);
      expect(res.headers.get("location")).toBe(`/login?${new URLSearchParams({ redirectTo: path })}`);
    }
  });

  it("render the filtered list, and name a bad filter with 422 instead of failing", async () => {
    const cookie = await loginAsStaff(server.url);
    const ok = await fetch(`${server.url}/leads?utm_campaign=summer`, { headers: { Cookie: cookie } });
    expect(ok.status).toBe(200);
    const html = await ok.text();
    expect(html).toContain("Grace");
    expect(html).not.toContain("Ada");
    expect(html).toContain("/api/leads/export?format=csv&amp;utm_campaign=summer");
    const bad = await fetch(`${server.url}/leads?from=2026-02-31&limit=9999`, { headers: { Cookie: cookie } });
    expect(bad.status).toBe(422);
    const badHtml = await bad.text();
    expect(badHtml).toContain("Use a real date as YYYY-MM-DD.");
    expect(badHtml).toContain("limit: Use 500 or less.");
  });

  it("answer 404 for an unknown lead or form, and 422 for a too long period", async () => {
    const cookie = await loginAsStaff(server.url);
    expect((await fetch(`${server.url}/leads/nope`, { headers: { Cookie: cookie } })).status).toBe(404);
    expect((await fetch(`${server.url}/leads/sources?formId=nope`, { headers: { Cookie: cookie } })).status).toBe(404);
    const long = await fetch(`${server.url}/leads/sources?formId=${contact.id}&from=2020-01-01&to=2026-01-01`, {
      headers: { Cookie: cookie },
    });
    expect(long.status).toBe(422);
  });

  it("count a form's leads by source, campaign, referrer and day over the period", async () => {
    const { getSourceStats, SourceStatsQuerySchema } = await import("~/forms/form-stats.server");
    const stats = await getSourceStats(
      SourceStatsQuerySchema.parse({ formId: contact.id, from: "2026-03-01", to: "2026-03-03" }),
    );
    const leads = (key: string | null, count: number) => ({ key, views: 0, leads: count, conversionRate: null });
    expect(stats).toMatchObject({
      formName: "Contact form",
      total: { views: 0, leads: 3, conversionRate: null },
      bySource: expect.arrayContaining([leads("google", 2), leads("newsletter", 1)]),
      byCampaign: [leads("spring", 2), leads("summer", 1)],
      byReferrerHost: expect.arrayContaining([leads(null, 2), leads("www.google.com", 1)]),
      perDay: [leads("2026-03-01", 1), leads("2026-03-02", 1), leads("2026-03-03", 1)],
    });
  });
});
