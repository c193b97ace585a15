// The sources page and GET /api/forms/:id/stats count leads from the daily rollup (LeadDaily,
// decision 055), not from the leads. Through the production server: leads submitted with
// various sources (some as spam), marked spam and back (one lead and in bulk), deleted (one
// and in bulk), and after each step every grouping's lead counts equal a count over the Lead
// table itself. The migration's backfill recounts the leads stored before the rollup alike.
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HONEYPOT_FIELD } from "~/leads/lead-fields";
import { db, isPostgres } from "~/storage/db.server";
import { apiClient, loginAsStaff, type ApiClient } from "../support/http";
import { createForm, field } from "../support/leads";
import { startServer, type TestServer } from "../support/server";

let server: TestServer;
let api: ApiClient;
let formId: string;
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
// Yesterday to tomorrow: a run that crosses midnight UTC keeps its leads in the period.
const period = () => `from=${day(-1)}&to=${day(1)}`;

beforeAll(async () => {
  server = await startServer({ SUBMIT_RATE_LIMIT_PER_MINUTE: "0" });
  api = apiClient(server.url, await loginAsStaff(server.url));
  formId = (await createForm("Rollup", [[field("email", "Email", "email")]])).id;
});
afterAll(async () => {
  await server?.stop();
});

const SOURCES = ["newsletter", "google", "", null];
const CAMPAIGNS = ["spring", "fall", null];
const REFERRERS = ["https://news.example.com/a", "https://www.google.com/", null];

/** Submits `count` leads side by side (so they share group commits), spread over the sources. */
async function submit(count: number, spam = false): Promise<string[]> {
  const replies = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const utm: Record<string, string> = {};
      const source = SOURCES[i % SOURCES.length];
      const campaign = CAMPAIGNS[i % CAMPAIGNS.length];
      if (source !== null) utm.utm_source = source;
      if (campaign !== null) utm.utm_campaign = campaign;
      const referrerUrl = REFERRERS[i % REFERRERS.length];
      const res = await fetch(`${server.url}/api/leads/submit`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          formId,
          data: { email: `lead${i}@example.com` },
          utm,
          ...(referrerUrl ? { referrerUrl } : {}),
          ...(spam ? { [HONEYPOT_FIELD]: "http://spam.example" } : {}),
        }),
      });
      expect(res.status).toBeLessThan(300);
      return ((await res.json()) as { id: string }).id;
    }),
  );
  return replies;
}

const GROUPINGS = {
  utm_source: "utmSource",
  utm_campaign: "utmCampaign",
  referrer_host: "referrerHost",
} as const;

/** The form's non-spam leads per value of each grouping (and day), counted over Lead itself. */
async function directCounts(): Promise<Record<string, Record<string, number>>> {
  const counts: Record<string, Record<string, number>> = {};
  for (const [grouping, column] of Object.entries(GROUPINGS)) {
    const groups = await db.lead.groupBy({
      by: [column],
      where: { formId, isSpam: false },
      _count: { _all: true },
    });
    counts[grouping] = {};
    // "" and null are both "absent", as the page shows them.
    for (const group of groups) {
      const key = String(group[column] || null);
      counts[grouping][key] = (counts[grouping][key] ?? 0) + group._count._all;
    }
  }
  counts.day = {};
  for (const lead of await db.lead.findMany({ where: { formId, isSpam: false }, select: { createdAt: true } })) {
    const key = lead.createdAt.toISOString().slice(0, 10);
    counts.day[key] = (counts.day[key] ?? 0) + 1;
  }
  return counts;
}

/** The stats API's lead counts per grouping (rows without leads left out), and the page's total. */
async function reportedCounts(): Promise<{ counts: Record<string, Record<string, number>>; total: number }> {
  const counts: Record<string, Record<string, number>> = {};
  for (const grouping of [...Object.keys(GROUPINGS), "day"]) {
    const res = await api("GET", `/api/forms/${formId}/stats?groupBy=${grouping}&${period()}`);
    expect(res.status).toBe(200);
    const rows = res.body.rows as Array<{ key: string | null; leads: number }>;
    counts[grouping] = Object.fromEntries(
      rows.filter((row) => row.leads > 0).map((row) => [String(row.key), row.leads]),
    );
  }
  const { getSourceStats, SourceStatsQuerySchema } = await import("~/forms/form-stats.server");
  const stats = await getSourceStats(SourceStatsQuerySchema.parse({ formId, from: day(-1), to: day(1) }));
  return { counts, total: stats.total.leads };
}

async function expectRollupToMatchLeads(step: string, leads: number) {
  const direct = await directCounts();
  const { counts, total } = await reportedCounts();
  expect(counts, step).toEqual(direct);
  expect(total, step).toBe(leads);
  expect(await db.lead.count({ where: { formId, isSpam: false } }), step).toBe(leads);
}

describe("the daily lead rollup", () => {
  it("counts what a count over the leads gives after submits, spam marks, unmarks and deletes", async () => {
    const ids = await submit(48);
    await submit(6, true);
    await expectRollupToMatchLeads("after the submits (6 of them spam)", 48);

    // One lead marked spam, then back to a stage; another only changes stage (no flip).
    expect((await api("PATCH", `/api/leads/${ids[0]}`, { status: "spam" })).status).toBe(200);
    await expectRollupToMatchLeads("one lead marked spam", 47);
    expect((await api("PATCH", `/api/leads/${ids[1]}`, { status: "contacted" })).status).toBe(200);
    await expectRollupToMatchLeads("another's stage changed", 47);
    expect((await api("PATCH", `/api/leads/${ids[0]}`, { status: "won" })).status).toBe(200);
    await expectRollupToMatchLeads("no longer spam", 48);

    // In bulk: ten marked spam (one of them already is), then five of them back.
    expect((await api("PATCH", `/api/leads/${ids[2]}`, { status: "spam" })).status).toBe(200);
    const bulk = (body: unknown) => api("POST", "/api/leads/bulk", body);
    expect((await bulk({ ids: ids.slice(2, 12), action: "set_status", value: "spam" })).body).toEqual({ affected: 9 });
    await expectRollupToMatchLeads("ten marked spam in bulk", 38);
    expect((await bulk({ ids: ids.slice(2, 7), action: "set_status", value: "qualified" })).body).toEqual({
      affected: 5,
    });
    await expectRollupToMatchLeads("five back in bulk", 43);

    // Deleted: one that counts, one that is spam, then a bulk batch of both kinds.
    expect((await api("DELETE", `/api/leads/${ids[20]}`)).status).toBe(204);
    expect((await api("DELETE", `/api/leads/${ids[8]}`)).status).toBe(204);
    await expectRollupToMatchLeads("one lead and one spam deleted", 42);
    expect((await bulk({ ids: ids.slice(9, 30), action: "delete" })).body).toEqual({ affected: 20 });
    await expectRollupToMatchLeads("a bulk delete", 42 - 17);

    // Submitted after the deletes: rows taken down to 0 count up again.
    await submit(12);
    await expectRollupToMatchLeads("more submits", 42 - 17 + 12);
  });

  it("goes with its form when the form is deleted", async () => {
    const gone = await createForm("Gone", [[field("email", "Email", "email")]]);
    await db.leadDaily.create({ data: { formId: gone.id, day: day(0), leads: 3 } });
    await db.form.delete({ where: { id: gone.id } });
    expect(await db.leadDaily.count({ where: { formId: gone.id } })).toBe(0);
  });

  it("is backfilled by its migration from the leads stored before it", async () => {
    // Leads written without the rollup, as every lead was before the migration.
    const old = await createForm("Old", [[field("email", "Email", "email")]]);
    await db.lead.createMany({
      data: Array.from({ length: 30 }, (_, i) => ({
        formId: old.id,
        schemaVersion: 1,
        data: { email: `old${i}@example.com` },
        isSpam: i % 7 === 0,
        utmSource: ["a", null, ""][i % 3],
        utmCampaign: i % 2 === 0 ? "even" : null,
        referrerHost: i % 5 === 0 ? "ref.example" : null,
        createdAt: new Date(Date.UTC(2026, 0, 1 + (i % 4), 23, 59, 59, 999)),
      })),
    });
    await db.leadDaily.deleteMany();
    const migration = fs.readFileSync(
      `prisma/${isPostgres ? "postgres/" : ""}migrations/20261128105011_lead_daily/migration.sql`,
      "utf8",
    );
    await db.$executeRawUnsafe(migration.slice(migration.indexOf("-- Backfill")));
    // Every form's rollup is the count over its leads: key by key, days included.
    const expected = new Map<string, number>();
    for (const lead of await db.lead.findMany({ where: { isSpam: false } })) {
      const key = [
        lead.formId,
        lead.createdAt.toISOString().slice(0, 10),
        lead.utmSource ?? "",
        lead.utmCampaign ?? "",
        lead.referrerHost ?? "",
      ].join("|");
      expected.set(key, (expected.get(key) ?? 0) + 1);
    }
    const rows = await db.leadDaily.findMany();
    const actual = new Map(
      rows.map((row) => [[row.formId, row.day, row.utmSource, row.utmCampaign, row.referrerHost].join("|"), row.leads]),
    );
    expect(actual).toEqual(expected);
    expect(rows.filter((row) => row.formId === old.id).reduce((sum, row) => sum + row.leads, 0)).toBe(25);
  });
});
