// Writing staff emails to the outbox (OutboxEmail), for app/notifications/outbox.server.ts,
// the one module that writes outbox rows (decision 045): through Prisma in a caller's
// transaction, and as the statements the lead store's group commit runs, so a lead and its
// notification emails still commit together (decisions 026 and 027). Support mail is
// written with its ticket (a nested create in app/support).
import { db, sqliteTime, type Prisma, type SqliteConnection, prepared } from "~/storage/db.server";

/** A row of the outbox for staff: no ticket, and its own Reply-To (or none). */
export type StaffEmail = {
  id: string;
  toEmail: string;
  subject: string;
  text: string;
  messageId: string;
  replyTo: string | null;
  createdAt: Date;
};

/** Writes staff emails (in the caller's transaction when given one). */
export async function writeOutboxEmails(
  emails: readonly StaffEmail[],
  tx: Prisma.TransactionClient = db,
): Promise<void> {
  if (emails.length > 0) await tx.outboxEmail.createMany({ data: [...emails] });
}

/** The outbox's columns a staff email is written with (its status `pending`, 0 attempts). */
const OUTBOX_EMAIL_INSERT = `INSERT INTO "OutboxEmail" ("id", "toEmail", "subject", "text", "messageId", "replyTo", "nextAttemptAt", "createdAt", "status", "attempts")`;
const SQLITE_INSERT = `${OUTBOX_EMAIL_INSERT} VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0)`;

/** Writes staff emails on a SQLite connection, inside the transaction the caller holds. */
export function writeOutboxEmailsSqlite(connection: SqliteConnection, emails: readonly StaffEmail[]): void {
  for (const email of emails) {
    const time = sqliteTime(email.createdAt);
    prepared(connection, SQLITE_INSERT).run(
      email.id,
      email.toEmail,
      email.subject,
      email.text,
      email.messageId,
      email.replyTo,
      time,
      time,
    );
  }
}

/** How many parameters (text arrays) the PostgreSQL part below takes. */
export const OUTBOX_PARAMS = 8;

/**
 * The part of a PostgreSQL statement that writes the emails of the rows of `parent` (a CTE
 * returning "id"), each naming its parent's id: OUTBOX_PARAMS text arrays from parameter
 * `from` on, filled by `outboxParams`. An email whose parent was not written is not either.
 */
export function outboxInsertPostgres(from: number, parent: string): string {
  const arrays = Array.from({ length: OUTBOX_PARAMS }, (_, i) => `$${from + i}::text[]`).join(", ");
  return `${OUTBOX_EMAIL_INSERT}
  SELECT m.id, m.to_email, m.subject, m.text, m.message_id, m.reply_to, m.created::timestamp, m.created::timestamp, 'pending'::"OutboxStatus", 0
  FROM unnest(${arrays}) AS m(id, to_email, subject, text, message_id, reply_to, created, parent_id)
  JOIN ${parent} ON ${parent}."id" = m.parent_id`;
}

/** Empty parameter arrays for outboxInsertPostgres. */
export const outboxParams = (): unknown[][] => Array.from({ length: OUTBOX_PARAMS }, () => []);

/** Adds emails, each for the parent row `parentId`, to the parameter arrays. */
export function addOutboxParams(params: unknown[][], parentId: string, emails: readonly StaffEmail[]): void {
  for (const email of emails) {
    [
      email.id,
      email.toEmail,
      email.subject,
      email.text,
      email.messageId,
      email.replyTo,
      email.createdAt.toISOString(),
      parentId,
    ].forEach((value, i) => params[i].push(value));
  }
}
