// People (issue 33, item 4; decision 071): one per email address, with their leads and support
// requests found through their addresses. The list and search, one person with their
// addresses and timeline, and what the lead and ticket pages show of a person. Merging is
// person-merge.server.ts; the rows are written as leads and tickets arrive
// (app/storage/people/person-arrival.server.ts).
import { z } from "zod";
import { db } from "~/storage/db.server";
import { decodeCursorOrFail, encodeCursor } from "~/storage/keyset.server";
import {
  firstTouches,
  peoplePage,
  personIdOf,
  personRow,
  personStats,
  ticketsByFirstTouchSource,
  type FirstTouchRow,
  type PersonRow,
} from "~/storage/people/people-store.server";
import { normalAddress } from "~/storage/people/person-arrival.server";
import { DomainError, parseOrThrow } from "~/utils/domain-error";
import { personTimeline, type TimelineItem } from "./person-timeline.server";

export const PEOPLE_PAGE_SIZE = 50;

export const PeopleQuerySchema = z
  .object({
    q: z
      .string()
      .trim()
      .max(200, "Use at most 200 characters.")
      .transform((value) => value.toLowerCase())
      .optional(),
    cursor: z.string().optional(),
  })
  .strict();

export const PersonQuerySchema = z.object({ cursor: z.string().optional() }).strict();

/** Where a person came from, as the API names it (the lead's own utm_* names). */
export type FirstTouch = {
  utm_source: string | null;
  utm_campaign: string | null;
  referrerHost: string | null;
  landingPage: string | null;
  formId: string;
  at: string;
};

export type PersonJson = {
  id: string;
  email: string;
  name: string | null;
  leadCount: number;
  ticketCount: number;
  firstSeenAt: string;
  lastSeenAt: string;
  firstTouch: FirstTouch | null;
};

export type PersonDetail = PersonJson & { addresses: string[]; timeline: TimelineItem[]; nextCursor: string | null };

function firstTouchJson(row: FirstTouchRow | undefined): FirstTouch | null {
  if (!row) return null;
  return {
    utm_source: row.utmSource,
    utm_campaign: row.utmCampaign,
    referrerHost: row.referrerHost,
    landingPage: row.landingPageUrl,
    formId: row.formId,
    at: row.createdAt,
  };
}

/** The rows as the API shows them, with their counts and first touch (two reads per page). */
async function peopleJson(rows: readonly PersonRow[]): Promise<PersonJson[]> {
  const ids = rows.map((row) => row.id);
  const [stats, touches] = await Promise.all([personStats(db, ids), firstTouches(db, ids)]);
  return rows.map((row) => {
    const stat = stats.get(row.id);
    const last = stat?.lastSeenAt;
    return {
      ...row,
      leadCount: stat?.leadCount ?? 0,
      ticketCount: stat?.ticketCount ?? 0,
      lastSeenAt: last && last > row.firstSeenAt ? last : row.firstSeenAt,
      firstTouch: firstTouchJson(touches.get(row.id)),
    };
  });
}

/** A page of people, newest first, found by `q` in an address or the name. */
export async function listPeople(input: unknown): Promise<{ people: PersonJson[]; nextCursor: string | null }> {
  const query = parseOrThrow(PeopleQuerySchema, input);
  const cursor = query.cursor ? decodeCursorOrFail(query.cursor) : undefined;
  const rows = await peoplePage(db, query.q || undefined, cursor, PEOPLE_PAGE_SIZE + 1);
  const page = rows.slice(0, PEOPLE_PAGE_SIZE);
  const last = page.at(-1);
  return {
    people: await peopleJson(page),
    nextCursor:
      rows.length > PEOPLE_PAGE_SIZE && last ? encodeCursor({ at: new Date(last.firstSeenAt), id: last.id }) : null,
  };
}

export function personNotFound(): DomainError {
  return new DomainError("not_found", "There is no person with this id.");
}

/** One person with their addresses and a page of their timeline (newest first); 404 when unknown. */
export async function getPerson(id: string, input: unknown): Promise<PersonDetail> {
  const query = parseOrThrow(PersonQuerySchema, input);
  const cursor = query.cursor ? decodeCursorOrFail(query.cursor) : undefined;
  const row = await personRow(db, id);
  if (!row) throw personNotFound();
  const [[person], addresses] = await Promise.all([
    peopleJson([row]),
    db.personAddress.findMany({ where: { personId: id }, select: { email: true }, orderBy: { email: "asc" } }),
  ]);
  const emails = addresses.map((address) => address.email);
  const { items, nextCursor } = await personTimeline(emails, cursor);
  return { ...person, addresses: emails, timeline: items, nextCursor };
}

/** What a lead's or a ticket's page shows of its person: a link and where they came from. */
export type PersonLink = { id: string; firstTouch: FirstTouch | null } | null;

export async function personLinkFor(email: string | null): Promise<PersonLink> {
  if (!email) return null;
  const id = await personIdOf(db, normalAddress(email));
  if (!id) return null;
  const touches = await firstTouches(db, [id]);
  return { id, firstTouch: firstTouchJson(touches.get(id)) };
}

const DAY_MS = 86_400_000;

/**
 * The sources page's support load (decision 071): the support requests opened from `from` to
 * `to` (whole UTC days) by people whose first touch was a lead of the form, by that lead's
 * utm_source (null: it had none).
 */
export async function supportByFirstTouchSource(
  formId: string,
  from: string,
  to: string,
): Promise<Array<{ source: string | null; count: number }>> {
  const start = new Date(`${from}T00:00:00.000Z`);
  const end = new Date(new Date(`${to}T00:00:00.000Z`).getTime() + DAY_MS);
  return ticketsByFirstTouchSource(db, formId, start, end);
}
