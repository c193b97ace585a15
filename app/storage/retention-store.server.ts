// The statements retention runs (decision 054): each call handles one batch of at most `size`
// rows, chosen through an index and then deleted (or blanked) by primary key, so that no one
// statement holds SQLite's write lock (or PostgreSQL's row locks) for long. The caller pauses
// between batches. Every delete repeats the condition that chose its rows: a row that changed
// in between (a delivery retried by staff, an email re-sent) is left alone.
import { db, isPostgres, sqliteTime, type Prisma } from "~/storage/db.server";
import type { KeysetPosition } from "~/storage/keyset.server";
import { deleteLeadsReturning, retryWhileBusy } from "~/storage/transactions.server";

/** What one batch did, and where the next batch starts when rows it skipped stay in place. */
export type BatchResult = { count: number; scanned: number; next: KeysetPosition | null };

/** Rows after `from` in (time, id) order, for a batch that must not read the same skipped rows again. */
function after(field: string, from: KeysetPosition | null) {
  if (!from) return {};
  return { OR: [{ [field]: { gt: from.at } }, { [field]: from.at, id: { gt: from.id } }] };
}

/**
 * Finished webhook deliveries of one status (delivered, or given up) whose last attempt was
 * due before `cutoff`. One status at a time: the [status, nextAttemptAt] index then gives the
 * oldest rows in order, where both statuses at once had the database sort every old delivery
 * for each batch of a few hundred.
 */
export async function deleteFinishedDeliveries(
  cutoff: Date,
  size: number,
  status: "succeeded" | "failed",
): Promise<number> {
  const where: Prisma.WebhookDeliveryWhereInput = {
    status,
    nextAttemptAt: { lt: cutoff },
    createdAt: { lt: cutoff },
  };
  const rows = await db.webhookDelivery.findMany({
    where,
    orderBy: { nextAttemptAt: "asc" },
    take: size,
    select: { id: true },
  });
  if (rows.length === 0) return 0;
  const ids = rows.map((row) => row.id);
  // Its attempts go with it (onDelete: Cascade), a few rows each.
  const { count } = await retryWhileBusy(() => db.webhookDelivery.deleteMany({ where: { ...where, id: { in: ids } } }));
  return count;
}

/**
 * Webhook events older than `cutoff` that no delivery needs any more: none left, and no fan-out
 * still to write (fanOutTo). An event with a delivery still pending is stepped over.
 */
export async function deleteSpentEvents(cutoff: Date, size: number, from: KeysetPosition | null): Promise<BatchResult> {
  const rows = await db.webhookEvent.findMany({
    where: { createdAt: { lt: cutoff }, ...after("createdAt", from) },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: size,
    select: { id: true, createdAt: true },
  });
  const last = rows.at(-1);
  if (!last) return { count: 0, scanned: 0, next: null };
  const spent = { fanOutTo: null, deliveries: { none: {} } } satisfies Prisma.WebhookEventWhereInput;
  const { count } = await retryWhileBusy(() =>
    db.webhookEvent.deleteMany({ where: { ...spent, id: { in: rows.map((row) => row.id) } } }),
  );
  return { count, scanned: rows.length, next: { at: last.createdAt, id: last.id } };
}

/** The statuses of email done with: sent, or given up on (never retried, and as personal). */
type FinishedEmail = "sent" | "failed";

/**
 * Email finished before `cutoff`, one status at a time (as deliveries, for the [status,
 * nextAttemptAt] index): `ticket` true for a support request's mail, false for staff
 * notifications.
 */
function finishedBefore(cutoff: Date, ticket: boolean, status: FinishedEmail): Prisma.OutboxEmailWhereInput {
  return {
    status,
    nextAttemptAt: { lt: cutoff },
    ...(status === "sent" ? { sentAt: { lt: cutoff } } : {}),
    ticketId: ticket ? { not: null } : null,
  };
}

/**
 * Empties the text of support mail sent (or given up on) before `cutoff`. The row stays: its
 * Message-ID threads the customer's replies to the ticket, and the thread shows how it went.
 */
export async function blankFinishedTicketEmails(
  cutoff: Date,
  size: number,
  from: KeysetPosition | null,
  status: FinishedEmail,
): Promise<BatchResult> {
  const where = finishedBefore(cutoff, true, status);
  const rows = await db.outboxEmail.findMany({
    where: { ...where, ...after("nextAttemptAt", from) },
    orderBy: [{ nextAttemptAt: "asc" }, { id: "asc" }],
    take: size,
    select: { id: true, nextAttemptAt: true },
  });
  const last = rows.at(-1);
  if (!last) return { count: 0, scanned: 0, next: null };
  const { count } = await retryWhileBusy(() =>
    db.outboxEmail.updateMany({
      where: { ...where, text: { not: "" }, id: { in: rows.map((row) => row.id) } },
      data: { text: "" },
    }),
  );
  return { count, scanned: rows.length, next: { at: last.nextAttemptAt, id: last.id } };
}

/** Deletes staff notifications sent (or given up on) before `cutoff`: nothing refers to them then. */
export async function deleteFinishedStaffEmails(cutoff: Date, size: number, status: FinishedEmail): Promise<number> {
  const where = finishedBefore(cutoff, false, status);
  const rows = await db.outboxEmail.findMany({
    where,
    orderBy: [{ nextAttemptAt: "asc" }, { id: "asc" }],
    take: size,
    select: { id: true },
  });
  if (rows.length === 0) return 0;
  const ids = rows.map((row) => row.id);
  const { count } = await retryWhileBusy(() => db.outboxEmail.deleteMany({ where: { ...where, id: { in: ids } } }));
  return count;
}

/** Audit entries written before `cutoff`, oldest first. */
export async function deleteAuditEntries(cutoff: Date, size: number): Promise<number> {
  const rows = await db.auditEntry.findMany({
    where: { createdAt: { lt: cutoff } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: size,
    select: { id: true },
  });
  if (rows.length === 0) return 0;
  const ids = rows.map((row) => row.id);
  const { count } = await retryWhileBusy(() => db.auditEntry.deleteMany({ where: { id: { in: ids } } }));
  return count;
}

/** Partial leads last saved before `cutoff`: never completed (completing one deletes it). */
export async function deleteStalePartialLeads(cutoff: Date, size: number): Promise<number> {
  const rows = await db.partialLead.findMany({
    where: { updatedAt: { lt: cutoff } },
    orderBy: { updatedAt: "asc" },
    take: size,
    select: { key: true },
  });
  if (rows.length === 0) return 0;
  const keys = rows.map((row) => row.key);
  const { count } = await retryWhileBusy(() =>
    db.partialLead.deleteMany({ where: { key: { in: keys }, updatedAt: { lt: cutoff } } }),
  );
  return count;
}

/**
 * Deletes a batch of double opt-in leads still awaiting confirmation that were stored before
 * `cutoff` (decision 067), off the daily rollup too; never announced, so nothing to announce.
 */
export async function deleteUnconfirmedLeads(cutoff: Date, size: number): Promise<number> {
  // The WHERE repeats the partial index's predicate word for word (a bound `= true` would
  // not let SQLite use it): the index holds only the leads awaiting confirmation.
  const before = isPostgres ? cutoff : sqliteTime(cutoff);
  const rows = await db.$queryRaw<Array<{ id: string }>>`
    SELECT "id" FROM "Lead" WHERE "awaitingConfirmation" AND "createdAt" < ${before}
    ORDER BY "createdAt" LIMIT ${size}`;
  if (rows.length === 0) return 0;
  const ids = rows.map((row) => row.id);
  const gone = await retryWhileBusy(() =>
    db.$transaction((tx) => deleteLeadsReturning(tx, ids, { onlyAwaitingConfirmation: true })),
  );
  return gone.length;
}

export type ExpiredAttachment = { id: string; filename: string; messageId: string };

/**
 * A request closed before `cutoff`, with no message since. The ticket has no closing time of
 * its own: its last change (closing is one) before `cutoff` stands in for it, so a request
 * open for months and closed today keeps its files for the whole period.
 */
const CLOSED_BEFORE = (cutoff: Date) => ({
  status: "closed" as const,
  lastMessageAt: { lt: cutoff },
  updatedAt: { lt: cutoff },
});

/** Attachments of inbound mail on tickets closed, with no message since, before `cutoff`. */
export async function attachmentsOfClosedTickets(cutoff: Date, size: number): Promise<ExpiredAttachment[]> {
  const rows = await db.ticketAttachment.findMany({
    where: { message: { ticket: CLOSED_BEFORE(cutoff) } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: size,
    select: { id: true, filename: true, messageId: true },
  });
  return rows.flatMap((row) =>
    row.messageId ? [{ id: row.id, filename: row.filename, messageId: row.messageId }] : [],
  );
}

/** Whether an attachment's bytes are already partly gone: its first chunk, or every chunk of a non-empty file. */
async function partlyDeleted(attachmentId: string): Promise<boolean> {
  const [first, attachment] = await Promise.all([
    db.attachmentChunk.findFirst({ where: { attachmentId, seq: 0 }, select: { seq: true } }),
    db.ticketAttachment.findUnique({ where: { id: attachmentId }, select: { size: true } }),
  ]);
  return !first && (attachment?.size ?? 0) > 0;
}

// 8 chunks of 256 KiB: 2 MiB of pages freed per statement.
const CHUNKS_PER_STATEMENT = 8;

/**
 * Deletes an attachment's bytes a few chunks per statement, then the attachment, and says on
 * its message what was removed (the thread lists it under "not kept"), in the same write as
 * the attachment's row, so that the two cannot disagree. Until the first bytes go, each
 * statement re-checks that the request is still closed (false: reopened meanwhile, kept);
 * after that the file is no use, and the rest goes whatever happens.
 */
export async function deleteAttachment(attachment: ExpiredAttachment, cutoff: Date, note: string): Promise<boolean> {
  const expired = { message: { ticket: CLOSED_BEFORE(cutoff) } };
  // A file an earlier pass began deleting (stopped by a shutdown or a crash) is of no use any
  // more: it is finished whatever its request's state, from the lowest chunk left.
  let started = await partlyDeleted(attachment.id);
  for (;;) {
    const lowest = await db.attachmentChunk.findFirst({
      where: { attachmentId: attachment.id },
      orderBy: { seq: "asc" },
      select: { seq: true },
    });
    if (!lowest) break;
    const range = { gte: lowest.seq, lt: lowest.seq + CHUNKS_PER_STATEMENT };
    const { count } = await retryWhileBusy(() =>
      db.attachmentChunk.deleteMany({
        where: { attachmentId: attachment.id, seq: range, ...(started ? {} : { attachment: expired }) },
      }),
    );
    if (count > 0) started = true;
    else if (!started) return false;
  }
  return retryWhileBusy(() =>
    db.$transaction(async (tx) => {
      const gone = await tx.ticketAttachment.deleteMany({
        where: { id: attachment.id, ...(started ? {} : expired) },
      });
      if (gone.count === 0) return false;
      const message = await tx.ticketMessage.findUnique({
        where: { id: attachment.messageId },
        select: { notKept: true },
      });
      const notKept = message?.notKept ? `${message.notKept}\n${note}` : note;
      await tx.ticketMessage.update({ where: { id: attachment.messageId }, data: { notKept } });
      return true;
    }),
  );
}

/** A page of forms in id order, with the retention period their settings give (null: kept). */
export async function formRetentionPage(
  afterId: string | null,
  size: number,
): Promise<Array<{ id: string; retentionDays: number | null }>> {
  const rows = await db.form.findMany({
    where: afterId ? { id: { gt: afterId } } : {},
    orderBy: { id: "asc" },
    take: size,
    select: { id: true, settings: true },
  });
  return rows.map((row) => {
    const days = (row.settings as { retentionDays?: unknown } | null)?.retentionDays;
    return { id: row.id, retentionDays: typeof days === "number" && Number.isInteger(days) && days >= 1 ? days : null };
  });
}

/**
 * Deletes a batch of one form's leads (spam or not: one walk of the [formId, isSpam, createdAt,
 * id] index each) stored before `cutoff`, after `from` in (createdAt, id) order (decision 069).
 * Their webhook events go in the same transaction, pending deliveries with them (cascade), and
 * their tags and notes by cascade; nothing is announced (a lead.deleted would send the data out
 * once more). Off the daily rollup too.
 */
export async function deleteOldFormLeads(
  formId: string,
  isSpam: boolean,
  cutoff: Date,
  size: number,
  from: KeysetPosition | null,
): Promise<BatchResult> {
  const rows = await db.lead.findMany({
    where: { formId, isSpam, createdAt: { lt: cutoff }, ...after("createdAt", from) },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: size,
    select: { id: true, createdAt: true },
  });
  const last = rows.at(-1);
  if (!last) return { count: 0, scanned: 0, next: null };
  const ids = rows.map((row) => row.id);
  const gone = await retryWhileBusy(() =>
    db.$transaction(async (tx) => {
      await tx.webhookEvent.deleteMany({ where: { leadId: { in: ids } } });
      return deleteLeadsReturning(tx, ids);
    }),
  );
  return { count: gone.length, scanned: rows.length, next: { at: last.createdAt, id: last.id } };
}
