// Merging one support request into another (decision 072): the source's messages (their
// attachments with them), notes and sent emails move to the target, where the thread's
// order by time puts them in their places; the source is closed with a pointer to the
// target, and replies naming its reference are filed there (support-inbound.server.ts).
// One transaction: a failure leaves both tickets as they were.
import { db, type Prisma } from "~/storage/db.server";
import { retryWhileBusy, takeLock } from "~/storage/transactions.server";
import { DomainError, invalidFields } from "~/utils/domain-error";
import { recordAudit } from "../audit/audit.server";
import { mergedIntoSelect, writeWithTicketEvents } from "./support-thread.server";
import { ticketWhere } from "./ticket-reference.server";
import type { WebhookEventType } from "../webhooks/webhook-schemas";

/** Who merges: a staff user, or nobody for the support API key; and from which client address. */
export type Merger = { user: { id: string; email: string } | null; ip: string | null };

const mergeSelect = { id: true, reference: true, status: true, lastMessageAt: true, ...mergedIntoSelect } as const;

/** A merged ticket takes no more replies or notes: they belong to the ticket it went into. */
export function refuseMerged(ticket: { reference: string; mergedInto: { reference: string } | null }): void {
  if (ticket.mergedInto) {
    throw new DomainError(
      "conflict",
      `${ticket.reference} was merged into ${ticket.mergedInto.reference}: write there.`,
      [{ path: "ticket", message: `Use ${ticket.mergedInto.reference}.` }],
    );
  }
}

/** What a ticket's merge form suggests: the same customer's other requests not merged away, latest first. */
export function mergeCandidates(ticket: { id: string; email: string }) {
  return db.ticket.findMany({
    where: { email: ticket.email, id: { not: ticket.id }, mergedIntoId: null },
    orderBy: [{ lastMessageAt: "desc" }, { id: "desc" }],
    take: 20,
    select: { reference: true, subject: true },
  });
}

type Moved = { reference: string; mergedInto: string; moved: { messages: number; notes: number; emails: number } };

/**
 * Merges `sourceRef` into `into` (a reference or an id) and records it in the audit log.
 * Refused: an unknown source (404); an unknown target or the source itself (422, `into`);
 * a source already merged or a target that was itself merged (409: merging follows no
 * pointer, so staff see where it went and pick again). Earlier merges into the source are
 * pointed at the target too, so a pointer is always one hop and no chain or cycle forms.
 */
export async function mergeTicket(sourceRef: string, into: string, by: Merger): Promise<Moved> {
  // Closing the source is a status change, unless it was closed already.
  const before = await db.ticket.findUnique({ where: ticketWhere(sourceRef), select: { status: true } });
  const events: WebhookEventType[] = before && before.status !== "closed" ? ["support_request.status_changed"] : [];
  const merged = await retryWhileBusy(() =>
    writeWithTicketEvents(
      events,
      // Without a webhook to write, writeWithTicketEvents hands over the client itself.
      (client) =>
        client === (db as unknown)
          ? db.$transaction((tx) => moveThread(tx, sourceRef, into))
          : moveThread(client, sourceRef, into),
      (result) => result.sourceId,
    ),
  );
  const { sourceId: _, ...result } = merged;
  await recordAudit({
    action: "support.merge",
    actor: by.user,
    target: `ticket:${result.reference}`,
    ip: by.ip,
    details: { into: result.mergedInto, ...result.moved },
  });
  return result;
}

async function moveThread(
  tx: Prisma.TransactionClient,
  sourceRef: string,
  into: string,
): Promise<Moved & { sourceId: string }> {
  // Merges run one at a time: two crossed merges (A into B, B into A) cannot both pass.
  await takeLock(tx, "ticket-merge");
  const source = await tx.ticket.findUnique({ where: ticketWhere(sourceRef), select: mergeSelect });
  if (!source) throw new DomainError("not_found", `No support request ${sourceRef}.`);
  const target = await tx.ticket.findUnique({ where: ticketWhere(into), select: mergeSelect });
  if (!target) throw invalidFields([{ path: "into", message: `No support request ${into}.` }]);
  if (target.id === source.id) {
    throw invalidFields([{ path: "into", message: "A support request cannot be merged into itself." }]);
  }
  if (source.mergedInto) {
    throw new DomainError("conflict", `${source.reference} was already merged into ${source.mergedInto.reference}.`);
  }
  if (target.mergedInto) {
    const message = `${target.reference} was merged into ${target.mergedInto.reference}: merge into that one.`;
    throw new DomainError("conflict", message, [{ path: "into", message }]);
  }
  // The source row first: on PostgreSQL this waits for a reply being filed into it, whose
  // message the move below then sees (and a later filing finds the pointer, see inbound).
  await tx.ticket.update({
    where: { id: source.id },
    data: { status: "closed", mergedIntoId: target.id, mergedAt: new Date() },
  });
  const moveTo = { where: { ticketId: source.id }, data: { ticketId: target.id } };
  const messages = await tx.ticketMessage.updateMany(moveTo);
  const notes = await tx.ticketNote.updateMany(moveTo);
  // The emails sent for the source: the moved replies show their delivery in the target.
  const emails = await tx.outboxEmail.updateMany(moveTo);
  await tx.ticket.updateMany({ where: { mergedIntoId: source.id }, data: { mergedIntoId: target.id } });
  if (source.lastMessageAt > target.lastMessageAt) {
    await tx.ticket.update({ where: { id: target.id }, data: { lastMessageAt: source.lastMessageAt } });
  }
  return {
    sourceId: source.id,
    reference: source.reference,
    mergedInto: target.reference,
    moved: { messages: messages.count, notes: notes.count, emails: emails.count },
  };
}
