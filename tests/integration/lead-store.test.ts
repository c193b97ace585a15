// The LeadStore (app/storage) reads the lead list and the exports with SQL of its own, on
// either database. For random filters, cursors and page sizes, wildcard characters in the
// search included, its page must hold exactly the leads Prisma returns for the same
// filters, in the same order, with the same values, and those a plain filter over all of
// them in code gives. (Prisma filters everything but the search: its `contains` cannot
// match `%` or `_` literally on SQLite, whose LIKE has no default escape, which is why the
// store matches with instr()/strpos(); the search is applied to Prisma's rows in code.)
//
// The process runs in a time zone west of UTC: node-postgres would send and read
// `timestamp` values in local time, and the store must not let it.
process.env.TZ = "America/New_York";

import { execFileSync } from "node:child_process";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { dayRange, type Cursor, type LeadFilters } from "~/leads/lead-filters.server";
import { db, isForeignKeyViolation, isPostgres, sqliteConnection, type Prisma } from "~/storage/db.server";
import { leadStore } from "~/storage/index.server";
import { field, createForm, createLeads, day } from "../support/leads";

const SOURCES = ["google", "newsletter", "Google", null];
const MEDIUMS = ["cpc", "email", null];
const CAMPAIGNS = ["spring", "fall", null];
const WORDS = ["alpha", "beta", "gamma", "50%", "a_b", "ünïcode"];
const DAYS = ["2026-03-01", "2026-03-02", "2026-03-03", "2026-03-05"];
const STAGES = ["new", "contacted", "won"] as const;
const TAGS = ["hot", "cold"];

let ownerId = "";

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
  status: string;
  ownerId: string | null;
  tags: Array<{ tag: string }>;
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
  // Stages, an owner and tags spread over the leads the same way.
  ownerId = (await db.user.create({ data: { email: "owner@example.com" } })).id;
  for (const lead of await db.lead.findMany({ select: { id: true }, orderBy: { id: "asc" } })) {
    const tags = TAGS.filter(() => next(3) === 0);
    await db.lead.update({
      where: { id: lead.id },
      data: {
        status: STAGES[next(STAGES.length)],
        ownerId: next(2) === 0 ? ownerId : null,
        tags: { create: tags.map((tag) => ({ tag })) },
      },
    });
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
      status: true,
      ownerId: true,
      tags: { select: { tag: true } },
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
      status: fc.constantFrom(...STAGES, "lost" as const, "spam" as const),
      ownerId: fc.constantFrom("owner", "none"),
      tag: fc.constantFrom(...TAGS),
    },
    { requiredKeys: ["spam"] },
  )
  .map((filters): LeadFilters => {
    // As the schema leaves them: from <= to, q lower-cased.
    const { from, to } = filters;
    const ordered = from && to && from > to ? { from: to, to: from } : { from, to };
    const owner = filters.ownerId === "owner" ? ownerId : filters.ownerId;
    return { ...filters, ...ordered, q: filters.q?.toLowerCase(), ownerId: owner } as LeadFilters;
  });

/** The reference: every lead, filtered and sorted in plain code. */
function expected(filters: LeadFilters, cursor: Cursor | undefined, take: number): string[] {
  const range = dayRange(filters.from, filters.to);
  const spam =
    filters.status === "spam"
      ? [true]
      : filters.status
        ? [false]
        : filters.spam === "all"
          ? [true, false]
          : [filters.spam === "true"];
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
        (!filters.status || filters.status === "spam" || lead.status === filters.status) &&
        (!filters.ownerId || lead.ownerId === (filters.ownerId === "none" ? null : filters.ownerId)) &&
        (!filters.tag || lead.tags.some((row) => row.tag === filters.tag)) &&
        (!cursor ||
          lead.createdAt < cursor.createdAt ||
          (lead.createdAt.getTime() === cursor.createdAt.getTime() && lead.id < cursor.id)),
    )
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .slice(0, take)
    .map((lead) => lead.id);
}

/** Prisma's answer: every filter but the search in its `where`, the search and the page in code. */
async function prismaPage(filters: LeadFilters, cursor: Cursor | undefined, take: number) {
  const range = dayRange(filters.from, filters.to);
  const where: Prisma.LeadWhereInput = {
    formId: filters.formId,
    createdAt: range,
    utmSource: filters.utm_source,
    utmMedium: filters.utm_medium,
    utmCampaign: filters.utm_campaign,
    isSpam:
      filters.status === "spam"
        ? true
        : filters.status
          ? false
          : filters.spam === "all"
            ? undefined
            : filters.spam === "true",
    status: filters.status && filters.status !== "spam" ? filters.status : undefined,
    ownerId: filters.ownerId === "none" ? null : filters.ownerId,
    tags: filters.tag ? { some: { tag: filters.tag } } : undefined,
    ...(cursor && {
      OR: [{ createdAt: { lt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { lt: cursor.id } }],
    }),
  };
  const rows = await db.lead.findMany({ where, orderBy: [{ createdAt: "desc" }, { id: "desc" }] });
  return rows.filter((row) => !filters.q || row.searchText.includes(filters.q)).slice(0, take);
}

describe("the lead store", () => {
  it("pages the leads Prisma and a plain filter in code find, in order, with Prisma's values, for random filters, cursors and sizes", async () => {
    expect(all.length).toBe(360);
    await fc.assert(
      fc.asyncProperty(
        filtersArb,
        fc.option(fc.nat(359)),
        fc.integer({ min: 1, max: 60 }),
        async (filters, at, take) => {
          const cursor = at === null ? undefined : { createdAt: all[at].createdAt, id: all[at].id };
          const got = await leadStore.page(filters, cursor, take);
          const want = await prismaPage(filters, cursor, take);
          const what = JSON.stringify({ filters, cursor, take });
          expect(
            got.map((row) => row.id),
            what,
          ).toEqual(want.map((row) => row.id));
          expect(
            got.map((row) => row.id),
            `${what} against the plain filter`,
          ).toEqual(expected(filters, cursor, take));
          for (const [i, row] of got.entries()) {
            const prisma = want[i];
            expect(row, what).toEqual({
              id: prisma.id,
              createdAt: prisma.createdAt.toISOString(),
              formId: prisma.formId,
              isSpam: prisma.isSpam,
              schemaVersion: prisma.schemaVersion,
              data: prisma.data,
              utmSource: prisma.utmSource,
              utmMedium: prisma.utmMedium,
              utmCampaign: prisma.utmCampaign,
              utmTerm: prisma.utmTerm,
              utmContent: prisma.utmContent,
              referrerHost: prisma.referrerHost,
              referrerUrl: prisma.referrerUrl,
              landingPageUrl: prisma.landingPageUrl,
              status: prisma.status,
              ownerId: prisma.ownerId,
              email: prisma.email,
              awaitingConfirmation: prisma.awaitingConfirmation,
            });
          }
        },
      ),
      { numRuns: 150, seed: 20261123 },
    );
  });

  it("counts the leads a plain filter in code finds, for random filters", async () => {
    await fc.assert(
      fc.asyncProperty(filtersArb, async (filters) => {
        expect(await leadStore.count(filters), JSON.stringify(filters)).toBe(
          expected(filters, undefined, all.length).length,
        );
      }),
      { numRuns: 80, seed: 20261123 },
    );
  });

  it("finds the forms with leads in view as Prisma does", async () => {
    await fc.assert(
      fc.asyncProperty(filtersArb, async (filters) => {
        const want = new Set((await prismaPage(filters, undefined, 1000)).map((row) => row.formId));
        expect(new Set(await leadStore.formIdsMatching(filters)), JSON.stringify(filters)).toEqual(want);
      }),
      { numRuns: 60, seed: 20261123 },
    );
  });

  it("writes a lead Prisma reads back unchanged, at the same instant, in any time zone", async () => {
    expect(new Date(2026, 0, 1).getTimezoneOffset()).toBeGreaterThan(0);
    const createdAt = new Date("2026-03-04T23:30:00.125Z");
    const id = `cstore${Date.now().toString(36)}`;
    await leadStore.insert({
      id,
      formId: formIds[0],
      schemaVersion: 1,
      data: { note: "Stored by the store", count: 3 },
      email: null,
      awaitingConfirmation: false,
      searchText: "stored by the store",
      utmSource: "news",
      utmMedium: null,
      utmCampaign: "launch",
      utmTerm: null,
      utmContent: null,
      referrerUrl: "https://example.com/a",
      referrerHost: "example.com",
      landingPageUrl: null,
      userAgent: "test",
      ipHash: "hash",
      isSpam: true,
      idempotencyKey: null,
      createdAt,
    });
    const read = await db.lead.findUniqueOrThrow({ where: { id } });
    expect(read.createdAt.toISOString()).toBe(createdAt.toISOString());
    expect(read).toMatchObject({
      isSpam: true,
      data: { note: "Stored by the store", count: 3 },
      email: null,
      awaitingConfirmation: false,
      utmCampaign: "launch",
    });
    const [row] = await leadStore.page(
      { spam: "true", formId: formIds[0], from: "2026-03-04", to: "2026-03-04", q: "stored by" },
      undefined,
      5,
    );
    expect(row).toMatchObject({ id, createdAt: "2026-03-04T23:30:00.125Z", isSpam: true });
    // Spam: not in the daily rollup the sources page reads (decision 055).
    const nonSpamOn4th = all.filter(
      (lead) => lead.formId === formIds[0] && !lead.isSpam && lead.createdAt.toISOString().startsWith("2026-03-04"),
    ).length;
    expect(await dailyLeads(formIds[0], "2026-03-04")).toBe(nonSpamOn4th);
    await db.lead.delete({ where: { id } });
  });
});

/** A form's leads on a day in the daily rollup, every source together. */
async function dailyLeads(formId: string, day: string): Promise<number> {
  const sum = await db.leadDaily.aggregate({ where: { formId, day }, _sum: { leads: true } });
  return sum._sum.leads ?? 0;
}

describe("inserting leads side by side (group commit)", () => {
  const lead = (id: string, formId: string, idempotencyKey: string | null) => ({
    id,
    formId,
    schemaVersion: 1,
    data: { note: id },
    searchText: id,
    utmSource: null,
    utmMedium: null,
    utmCampaign: null,
    utmTerm: null,
    utmContent: null,
    referrerUrl: null,
    referrerHost: null,
    landingPageUrl: null,
    userAgent: null,
    ipHash: null,
    isSpam: false,
    idempotencyKey,
    createdAt: new Date(),
    email: null,
    awaitingConfirmation: false,
  });

  it("stores every lead of a burst, and refuses only the one that repeats an idempotency key", async () => {
    const formId = formIds[0];
    const today = new Date().toISOString().slice(0, 10);
    const countedBefore = await dailyLeads(formId, today);
    const ids = Array.from({ length: 40 }, (_, i) => `cburst${String(i).padStart(3, "0")}`);
    // Lead 7 and lead 23 carry the same key: whichever is written second is refused alone,
    // and its neighbours in the same transaction are stored.
    const outcomes = await Promise.allSettled(
      ids.map((id, i) => leadStore.insert(lead(id, formId, i === 7 || i === 23 ? "same-key" : `key-${i}`))),
    );
    const refused = outcomes.flatMap((outcome, i) => (outcome.status === "rejected" ? [i] : []));
    // One of the two (on PostgreSQL either may reach the database first).
    expect(refused).toHaveLength(1);
    expect([7, 23]).toContain(refused[0]);
    const stored = await db.lead.findMany({ where: { id: { in: ids } }, select: { id: true } });
    expect(stored.map((row) => row.id).sort()).toEqual(ids.filter((_, i) => i !== refused[0]));
    // The daily rollup counts the stored leads, not the refused one (a test that crosses
    // midnight UTC would split them over two days; the sum stays).
    expect(await dailyLeads(formId, today)).toBe(countedBefore + 39);
  });

  it("deletes the partial a lead finishes in the lead's own write, and keeps it when the lead is refused", async () => {
    const [formId, otherFormId] = formIds;
    const partial = (key: string, form = formId) =>
      db.partialLead.create({ data: { key, formId: form, schemaVersion: 1, data: {}, email: "p@example.com" } });
    await Promise.all([partial("pk-done"), partial("pk-kept"), partial("pk-other", otherFormId), partial("pk-spare")]);
    // Only the lead whose INSERT is refused (its idempotency key was used) keeps its partial;
    // a key of another form's partial deletes nothing; neighbours in the batch are unaffected.
    await leadStore.insert(lead("cpartial0", formId, "partial-key"));
    const outcomes = await Promise.allSettled([
      leadStore.insert(lead("cpartial1", formId, null), null, [], "pk-done"),
      leadStore.insert(lead("cpartial2", formId, "partial-key"), null, [], "pk-kept"),
      leadStore.insert(lead("cpartial3", formId, null), null, [], "pk-other"),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    const left = await db.partialLead.findMany({
      where: { key: { startsWith: "pk-" } },
      select: { key: true },
      orderBy: { key: "asc" },
    });
    expect(left.map((row) => row.key)).toEqual(["pk-kept", "pk-other", "pk-spare"]);
  });

  it("answers a lead's promise only once it is committed: its row is readable when it resolves", async () => {
    const formId = formIds[1];
    const ids = Array.from({ length: 10 }, (_, i) => `cvisible${i}`);
    await Promise.all(
      ids.map(async (id) => {
        await leadStore.insert(lead(id, formId, null));
        expect(await db.lead.findUnique({ where: { id }, select: { id: true } })).not.toBeNull();
      }),
    );
  });

  it("fails only the lead whose form is gone, and stores its neighbours in the same batch", async () => {
    const formId = formIds[2];
    const ids = Array.from({ length: 12 }, (_, i) => `cbroken${String(i).padStart(2, "0")}`);
    const outcomes = await Promise.allSettled(
      ids.map((id, i) => leadStore.insert(lead(id, i === 5 ? "no-such-form" : formId, null))),
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual(ids.map((_, i) => (i === 5 ? "rejected" : "fulfilled")));
    expect(isForeignKeyViolation((outcomes[5] as PromiseRejectedResult).reason)).toBe(true);
    const stored = await db.lead.findMany({ where: { id: { in: ids } }, select: { id: true } });
    expect(stored.map((row) => row.id).sort()).toEqual(ids.filter((_, i) => i !== 5));
  });

  it("waits for a Prisma transaction open on the connection, then commits the batch after it", async () => {
    const formId = formIds[0];
    const ids = Array.from({ length: 8 }, (_, i) => `cwaiting${i}`);
    let inserted: Promise<unknown> | undefined;
    let settled = false;
    let settledInside = false;
    await db.$transaction(async (tx) => {
      await tx.form.update({ where: { id: formId }, data: { name: "Renamed in a transaction" } });
      // Submitted while the transaction holds SQLite's one connection (on PostgreSQL, while
      // it holds one pooled connection and a row lock the leads do not need).
      inserted = Promise.all(ids.map((id) => leadStore.insert(lead(id, formId, null)))).then(() => {
        settled = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 150));
      await tx.form.findUnique({ where: { id: formId } });
      settledInside = settled;
    });
    await inserted;
    if (!isPostgres) expect(settledInside).toBe(false);
    expect(await db.lead.count({ where: { id: { in: ids } } })).toBe(ids.length);
    expect((await db.form.findUnique({ where: { id: formId } }))?.name).toBe("Renamed in a transaction");
  });

  it.runIf(!isPostgres)("makes SQLite sync every commit (FULL) unless SQLITE_SYNCHRONOUS=normal opts out", async () => {
    expect(Number((await sqliteConnection()).pragma("synchronous", { simple: true }))).toBe(2);
    // The opt-out, in a process of its own (the setting is read once, at the first connection).
    const script = `const { sqliteConnection } = await import("~/storage/db.server");
      console.log(Number((await sqliteConnection()).pragma("synchronous", { simple: true })));`;
    const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      env: { ...process.env, SQLITE_SYNCHRONOUS: "normal" },
      encoding: "utf8",
    });
    expect(out.trim()).toBe("1");
  });
});
