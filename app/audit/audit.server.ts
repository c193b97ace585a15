// The audit log (docs/api/audit.md): who exported, deleted or changed what, and every sign-in,
// with when and from which (hashed) client address. Entries are only ever added: nothing in
// the app changes or deletes one. A failure to write one is logged and never undoes or
// blocks the action it describes (the action already happened).
import { z } from "zod";
import { db, type Prisma } from "~/storage/db.server";
import { DaySchema, decodeCursorOrFail, encodeCursor } from "~/storage/keyset.server";
import { parseOrThrow } from "~/utils/domain-error";
import { clientIp } from "~/utils/http/request.server";
import { log } from "~/utils/log.server";
import { timeOrderedId } from "~/utils/random-text.server";
import { hashIp } from "../capture/lead-signatures.server";
import { AUDIT_ACTIONS, type AuditAction } from "./audit-actions";
import { auditNames } from "./audit-names.server";
import { describeAuditEntry } from "./audit-sentences";
import type { AppLoadContext } from "@remix-run/node";

export { AUDIT_ACTIONS, type AuditAction } from "./audit-actions";

export type AuditInput = {
  action: AuditAction;
  /** The staff user who acted; null when nobody was logged in (a failed sign-in). */
  actor: { id: string; email: string } | null;
  target?: string | null;
  /** The client address (hashed before it is stored, as everywhere else); null: no request (a background job). */
  ip: string | null;
  details?: Record<string, unknown>;
};

/** Adds an entry; returns its id, or null when it could not be written (logged). */
export async function recordAudit(entry: AuditInput): Promise<string | null> {
  const id = timeOrderedId("aud_");
  try {
    await db.auditEntry.create({
      data: {
        id,
        action: entry.action,
        actorId: entry.actor?.id ?? null,
        actorEmail: entry.actor?.email ?? null,
        target: entry.target ?? null,
        ipHash: entry.ip === null ? null : hashIp(entry.ip),
        details: JSON.stringify(entry.details ?? {}),
      },
      select: { id: true },
    });
    return id;
  } catch (error) {
    log.error(`audit entry ${entry.action} could not be written`, error);
    return null;
  }
}

/** Records entries for one request's actor: `audit("lead.delete", "lead:<id>", {...})`. */
export function auditor(context: AppLoadContext | undefined, actor: { id: string; email: string } | null) {
  return (action: AuditAction, target?: string | null, details?: Record<string, unknown>) =>
    recordAudit({ action, actor, target, ip: clientIp(context), details });
}

/**
 * A staff user acting through a request, as the operations that record their own entries
 * take them (`bulkUpdate(bulk, actor)` records lead.bulk): who, and from which client address.
 */
export type AuditActor = { id: string; email: string; ip: string };

/** The request's user as an operation's actor: `actorOf(user, context)`. */
export function actorOf<User extends { id: string; email: string }>(
  user: User,
  context: AppLoadContext | undefined,
): User & { ip: string } {
  return { ...user, ip: clientIp(context) };
}

/** Records an entry for an operation's actor. */
export function auditBy(
  actor: AuditActor,
  action: AuditAction,
  target?: string | null,
  details?: Record<string, unknown>,
): Promise<string | null> {
  return recordAudit({ action, actor: { id: actor.id, email: actor.email }, target, ip: actor.ip, details });
}

export const AuditQuerySchema = z
  .object({
    action: z.enum(AUDIT_ACTIONS, { error: `Use one of: ${AUDIT_ACTIONS.join(", ")}.` }).optional(),
    actorId: z.string().max(64).optional(),
    from: DaySchema.optional(),
    to: DaySchema.optional(),
    cursor: z.string().max(200).optional(),
    limit: z.coerce.number({ error: "Use a number." }).int().min(1).max(200).default(50),
  })
  .strict();

export type AuditJson = {
  id: string;
  action: string;
  actor: { id: string; email: string | null } | null;
  target: string | null;
  ipHash: string | null;
  at: string;
  details: Record<string, unknown>;
  /** The entry as a sentence, with names for its ids ("Ada deleted the form Contact us."). */
  summary: string;
};

/** Entries newest first, keyset-paged on (createdAt, id), filtered by action, actor and days (UTC). */
export async function listAudit(input: unknown): Promise<{ entries: AuditJson[]; nextCursor: string | null }> {
  const query = parseOrThrow(AuditQuerySchema, input);
  const and: Prisma.AuditEntryWhereInput[] = [];
  if (query.action) and.push({ action: query.action });
  if (query.actorId) and.push({ actorId: query.actorId });
  if (query.from) and.push({ createdAt: { gte: new Date(`${query.from}T00:00:00Z`) } });
  if (query.to) and.push({ createdAt: { lt: new Date(new Date(`${query.to}T00:00:00Z`).getTime() + 86_400_000) } });
  if (query.cursor) {
    const { at, id } = decodeCursorOrFail(query.cursor);
    and.push({ OR: [{ createdAt: { lt: at } }, { createdAt: at, id: { lt: id } }] });
  }
  const rows = await db.auditEntry.findMany({
    where: { AND: and },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: query.limit + 1,
  });
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  const entries = page.map((row) => ({
    id: row.id,
    action: row.action,
    actor: row.actorId || row.actorEmail ? { id: row.actorId ?? "", email: row.actorEmail } : null,
    target: row.target,
    ipHash: row.ipHash,
    at: row.createdAt.toISOString(),
    details: JSON.parse(row.details) as Record<string, unknown>,
  }));
  const names = await auditNames(entries);
  return {
    entries: entries.map((entry) => ({ ...entry, summary: describeAuditEntry(entry, names) })),
    nextCursor: rows.length > query.limit ? encodeCursor({ at: last.createdAt, id: last.id }) : null,
  };
}
