// A person's timeline (decision 071): their leads, the status changes and notes on them, their
// support requests, the messages in them and the notes on them, newest first, one keyset page
// at a time. Each kind is read as its own page from its own index (at most a page plus one
// each) and the pages are merged: no query spans the five tables.
import { db, type Prisma } from "~/storage/db.server";
import { encodeCursor, type KeysetPosition } from "~/storage/keyset.server";
import { statusOf } from "../leads/lead-detail.server";

export const TIMELINE_PAGE_SIZE = 50;
const EXCERPT = 500;

export type TimelineItem = {
  kind: "lead" | "status" | "note" | "ticket" | "message";
  id: string;
  at: string;
  /** The lead it is or is about (lead, status, a lead's note). */
  leadId: string | null;
  /** The support request it is or is in (ticket, message, a ticket's note). */
  reference: string | null;
  /** A lead's form name, or a ticket's subject. */
  title: string | null;
  /** A status before and after (status), or a lead's or ticket's status now (lead, ticket). */
  from: string | null;
  to: string | null;
  /** A note's or a message's text (the first 500 characters). */
  body: string | null;
  /** Who: the staff member of a change or note, or a message's sender. */
  by: string | null;
};

const item = (fields: Partial<TimelineItem> & Pick<TimelineItem, "kind" | "id" | "at">): TimelineItem => ({
  leadId: null,
  reference: null,
  title: null,
  from: null,
  to: null,
  body: null,
  by: null,
  ...fields,
});

const excerpt = (text: string) => (text.length > EXCERPT ? `${text.slice(0, EXCERPT - 1)}…` : text);
const staff = (user: { name: string | null; email: string } | null) => (user ? (user.name ?? user.email) : null);
const newestFirst = [{ createdAt: "desc" as const }, { id: "desc" as const }];

function before(cursor: KeysetPosition | undefined) {
  return cursor ? { OR: [{ createdAt: { lt: cursor.at } }, { createdAt: cursor.at, id: { lt: cursor.id } }] } : {};
}

async function leadItems(emails: string[], cursor: KeysetPosition | undefined, take: number) {
  const where: Prisma.LeadWhereInput = { email: { in: emails }, ...before(cursor) };
  const leads = await db.lead.findMany({
    where,
    select: { id: true, createdAt: true, status: true, isSpam: true, form: { select: { name: true } } },
    orderBy: newestFirst,
    take,
  });
  const activity = await db.leadActivity.findMany({
    where: { kind: { in: ["status", "note"] }, lead: { email: { in: emails } }, ...before(cursor) },
    select: {
      id: true,
      kind: true,
      body: true,
      fromValue: true,
      toValue: true,
      createdAt: true,
      leadId: true,
      actor: { select: { name: true, email: true } },
    },
    orderBy: newestFirst,
    take,
  });
  return [
    ...leads.map((lead) =>
      item({
        kind: "lead",
        id: lead.id,
        at: lead.createdAt.toISOString(),
        leadId: lead.id,
        title: lead.form.name,
        to: statusOf(lead),
      }),
    ),
    ...activity.map((entry) =>
      item({
        kind: entry.kind === "note" ? "note" : "status",
        id: entry.id,
        at: entry.createdAt.toISOString(),
        leadId: entry.leadId,
        from: entry.kind === "status" ? entry.fromValue : null,
        to: entry.kind === "status" ? entry.toValue : null,
        body: entry.body === null ? null : excerpt(entry.body),
        by: staff(entry.actor),
      }),
    ),
  ];
}

async function ticketItems(emails: string[], cursor: KeysetPosition | undefined, take: number) {
  const ofTicket = { ticket: { email: { in: emails } }, ...before(cursor) };
  const [tickets, messages, notes] = await Promise.all([
    db.ticket.findMany({
      where: { email: { in: emails }, ...before(cursor) },
      select: { id: true, createdAt: true, reference: true, subject: true, status: true },
      orderBy: newestFirst,
      take,
    }),
    db.ticketMessage.findMany({
      where: ofTicket,
      select: {
        id: true,
        createdAt: true,
        direction: true,
        body: true,
        fromEmail: true,
        ticket: { select: { reference: true } },
        authorUser: { select: { name: true, email: true } },
      },
      orderBy: newestFirst,
      take,
    }),
    db.ticketNote.findMany({
      where: ofTicket,
      select: {
        id: true,
        createdAt: true,
        body: true,
        ticket: { select: { reference: true } },
        authorUser: { select: { name: true, email: true } },
      },
      orderBy: newestFirst,
      take,
    }),
  ]);
  return [
    ...tickets.map((ticket) =>
      item({
        kind: "ticket",
        id: ticket.id,
        at: ticket.createdAt.toISOString(),
        reference: ticket.reference,
        title: ticket.subject,
        to: ticket.status,
      }),
    ),
    ...messages.map((message) =>
      item({
        kind: "message",
        id: message.id,
        at: message.createdAt.toISOString(),
        reference: message.ticket.reference,
        to: message.direction,
        body: excerpt(message.body),
        by: staff(message.authorUser) ?? message.fromEmail,
      }),
    ),
    ...notes.map((note) =>
      item({
        kind: "note",
        id: note.id,
        at: note.createdAt.toISOString(),
        reference: note.ticket.reference,
        body: excerpt(note.body),
        by: staff(note.authorUser),
      }),
    ),
  ];
}

/** One page of the timeline of the addresses, newest first (at desc, id desc), and the next page's cursor. */
export async function personTimeline(
  emails: string[],
  cursor: KeysetPosition | undefined,
): Promise<{ items: TimelineItem[]; nextCursor: string | null }> {
  if (emails.length === 0) return { items: [], nextCursor: null };
  const take = TIMELINE_PAGE_SIZE + 1;
  const [leads, tickets] = await Promise.all([leadItems(emails, cursor, take), ticketItems(emails, cursor, take)]);
  const merged = [...leads, ...tickets].sort((a, b) =>
    a.at !== b.at ? (a.at < b.at ? 1 : -1) : a.id < b.id ? 1 : a.id > b.id ? -1 : 0,
  );
  const items = merged.slice(0, TIMELINE_PAGE_SIZE);
  const last = items.at(-1);
  return {
    items,
    nextCursor:
      merged.length > TIMELINE_PAGE_SIZE && last ? encodeCursor({ at: new Date(last.at), id: last.id }) : null,
  };
}
