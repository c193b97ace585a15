// The lead list and exports read a page of leads through the driver on SQLite
// (sqliteLeadPage, SQL text) and through Prisma on PostgreSQL (findLeadPage, leadWhere).
// Each must return exactly the leads a plain filter over all of them gives, in the same
// order, for any filters, cursor and page size: checked here for random ones, wildcard
// characters in the search included. (Prisma's `contains` on SQLite cannot match `%` or `_`
// literally, as SQLite's LIKE has no default escape: that is why SQLite reads with instr().)
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { dayRange, findLeadPage, sqliteLeadPage, type Cursor, type LeadFilters } from "~/models/lead.server";
import { db, isPostgres } from "~/utils/db.server";
import { field, createForm, createLeads, day } from "./leads.helpers";

const SOURCES = ["google", "newsletter", "Google", null];
const MEDIUMS = ["cpc", "email", null];
const CAMPAIGNS = ["spring", "fall", null];
const WORDS = ["alpha", "beta", "gamma", "50%", "a_b", "ünïcode"];
const DAYS = ["2026-03-01", "2026-03-02", "2026-03-03", "2026-03-05"];

let formIds: string[] = [];
let all: Array<{
  id: string;
  createdAt: Date;
  formId: string;
  isSpam: boolean;
  utmSource: string | null;
  utmMedium: string | null;
  utmCampaign: string | null;
  searchText: string;
}> = [];

beforeAll(async () => {
  const forms = await Promise.all(["One", "Two", "Three"].map((name) => createForm(name, [[field("note", "Note")]])));
  formIds = forms.map((form) => form.id);
  // A fixed pseudo-random spread, so a failure can be replayed.
  let seed = 7;
  const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  for (const [f, formId] of formIds.entries()) {
    await createLeads(
      formId,
      Array.from({ length: 120 }, (_, i) => ({
        data: { note: `${WORDS[next(WORDS.length)]} ${WORDS[next(WORDS.length)]} #${f}-${i}` },
        // Several leads share a timestamp, so the id decides their order.
        createdAt: new Date(day(`${DAYS[next(DAYS.length)]}T00:00:00`).getTime() + next(6) * 3_600_000),
        isSpam: next(5) === 0,
        utmSource: SOURCES[next(SOURCES.length)],
        utmMedium: MEDIUMS[next(MEDIUMS.length)],
        utmCampaign: CAMPAIGNS[next(CAMPAIGNS.length)],
      })),
    );
  }
  all = await db.lead.findMany({
    select: {
      id: true,
      createdAt: true,
      formId: true,
      isSpam: true,
      utmSource: true,
      utmMedium: true,
      utmCampaign: true,
      searchText: true,
    },
  });
});

const filtersArb = fc
  .record(
    {
      formId: fc.constantFrom(...[0, 1, 2].map((i) => () => formIds[i])).map((pick) => pick()),
      from: fc.constantFrom(...DAYS, "2026-02-28", "2026-03-04"),
      to: fc.constantFrom(...DAYS, "2026-03-04", "2026-03-09"),
      utm_source: fc.constantFrom("google", "newsletter", "Google", "none"),
      utm_medium: fc.constantFrom("cpc", "email"),
      utm_campaign: fc.constantFrom("spring", "fall"),
      q: fc.constantFrom("alpha", "ta", "50%", "a_b", "_", "%", "ünï", "#1-1"),
      spam: fc.constantFrom("false" as const, "true" as const, "all" as const),
    },
    { requiredKeys: ["spam"] },
  )
  .map((filters): LeadFilters => {
    // As the schema leaves them: from <= to, q lower-cased.
    const { from, to } = filters;
    const ordered = from && to && from > to ? { from: to, to: from } : { from, to };
    return { ...filters, ...ordered, q: filters.q?.toLowerCase() } as LeadFilters;
  });

/** The reference: every lead, filtered and sorted in plain code. */
function expected(filters: LeadFilters, cursor: Cursor | undefined, take: number): string[] {
  const range = dayRange(filters.from, filters.to);
  const spam = filters.spam === "all" ? [true, false] : [filters.spam === "true"];
  return all
    .filter(
      (lead) =>
        (!filters.formId || lead.formId === filters.formId) &&
        (!range.gte || lead.createdAt >= range.gte) &&
        (!range.lt || lead.createdAt < range.lt) &&
        (!filters.utm_source || lead.utmSource === filters.utm_source) &&
        (!filters.utm_medium || lead.utmMedium === filters.utm_medium) &&
        (!filters.utm_campaign || lead.utmCampaign === filters.utm_campaign) &&
        (!filters.q || lead.searchText.includes(filters.q)) &&
        spam.includes(lead.isSpam) &&
        (!cursor ||
          lead.createdAt < cursor.createdAt ||
          (lead.createdAt.getTime() === cursor.createdAt.getTime() && lead.id < cursor.id)),
    )
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .slice(0, take)
    .map((lead) => lead.id);
}

describe("reading a page of leads", () => {
  it("returns the filtered leads, newest first, for random filters, cursors and page sizes", async () => {
    expect(all.length).toBe(360);
    await fc.assert(
      fc.asyncProperty(
        filtersArb,
        fc.option(fc.nat(359)),
        fc.integer({ min: 1, max: 60 }),
        async (filters, at, take) => {
          const cursor = at === null ? undefined : { createdAt: all[at].createdAt, id: all[at].id };
          const want = expected(filters, cursor, take);
          const got = isPostgres
            ? (await findLeadPage(filters, cursor, take, { id: true, createdAt: true })).map((lead) => lead.id)
            : (await sqliteLeadPage(filters, cursor, take)).map((lead) => lead.id);
          expect(got, JSON.stringify({ filters, cursor, take })).toEqual(want);
        },
      ),
      { numRuns: 150, seed: 20261122 },
    );
  });
});
