// What happened to a lead and who its person is: the timeline of who changed what (and the
// staff notes on it), and the other leads and support requests of the same address. Reads
// only; the changes that write the timeline are lead-work.server.ts.
import { db, type Prisma } from "~/storage/db.server";
import { statusOf } from "./lead-detail.server";
import type { LeadStatusValue } from "./lead-filters.server";

export const activitySelect = {
  id: true,
  kind: true,
  body: true,
  fromValue: true,
  toValue: true,
  createdAt: true,
  actor: { select: { id: true, name: true, email: true } },
} satisfies Prisma.LeadActivitySelect;

export type TimelineEntry = {
  id: string;
  kind: "note" | "status" | "owner" | "tags";
  /** A note's text. */
  body: string | null;
  /** Before and after: a status, an owner's user id, or the tags taken off (from) and put on (to). */
  from: string | null;
  to: string | null;
  actor: { id: string; name: string | null; email: string } | null;
  createdAt: string;
};

export function activityJson(row: Prisma.LeadActivityGetPayload<{ select: typeof activitySelect }>): TimelineEntry {
  return {
    id: row.id,
    kind: row.kind,
    body: row.body,
    from: row.fromValue,
    to: row.toValue,
    actor: row.actor,
    createdAt: row.createdAt.toISOString(),
  };
}

const TIMELINE_LIMIT = 500;

/** A lead's timeline, oldest first (its newest 500 entries). */
export async function leadTimeline(id: string): Promise<TimelineEntry[]> {
  const rows = await db.leadActivity.findMany({
    where: { leadId: id },
    select: activitySelect,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: TIMELINE_LIMIT,
  });
  return rows.reverse().map(activityJson);
}

const HISTORY_LIMIT = 20;

export type PersonHistory = {
  leads: Array<{ id: string; formId: string; formName: string; status: LeadStatusValue; createdAt: string }>;
  supportRequests: Array<{ reference: string; subject: string; status: string; createdAt: string }>;
};

/** The other leads and the support requests of the same email address, newest first. */
export async function personHistory(leadId: string, email: string | null): Promise<PersonHistory> {
  if (!email) return { leads: [], supportRequests: [] };
  const [leads, tickets] = await Promise.all([
    db.lead.findMany({
      where: { email, id: { not: leadId } },
      select: { id: true, formId: true, status: true, isSpam: true, createdAt: true, form: { select: { name: true } } },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: HISTORY_LIMIT,
    }),
    db.ticket.findMany({
      where: { email },
      select: { reference: true, subject: true, status: true, createdAt: true },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: HISTORY_LIMIT,
    }),
  ]);
  return {
    leads: leads.map((lead) => ({
      id: lead.id,
      formId: lead.formId,
      formName: lead.form.name,
      status: statusOf(lead),
      createdAt: lead.createdAt.toISOString(),
    })),
    supportRequests: tickets.map((ticket) => ({ ...ticket, createdAt: ticket.createdAt.toISOString() })),
  };
}
