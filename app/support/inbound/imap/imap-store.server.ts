// The IMAP intake's rows (decision 070): the mailbox's lease (one instance at a time fetches,
// taken by a conditional update), its checkpoint (UIDVALIDITY, the first UID in scope and the
// last one handled, written in the transaction that files each message and fenced by the
// lease), and the messages it could not file. What /settings/mail shows is read here too.
import { db, type Prisma } from "~/storage/db.server";

export type Checkpoint = { uidValidity: bigint | null; startUid: bigint; lastUid: bigint; lastPassAt: Date | null };

/** Thrown inside a filing transaction when this instance no longer holds the mailbox: the filing rolls back. */
export class LeaseLost extends Error {
  constructor() {
    super("the IMAP mailbox's lease is held by another instance");
    this.name = "LeaseLost";
  }
}

async function ensureRow(id: string): Promise<void> {
  await db.imapMailbox.upsert({ where: { id }, create: { id }, update: {} }).catch(async (error: unknown) => {
    // Two instances created it at once: one row is all that is wanted.
    if (!(await db.imapMailbox.findUnique({ where: { id }, select: { id: true } }))) throw error;
  });
}

/**
 * Takes or renews the mailbox's lease for `holder`: free, already ours, or expired. One
 * conditional UPDATE, so two instances cannot both take it.
 */
export async function takeLease(id: string, holder: string, leaseMs: number): Promise<boolean> {
  await ensureRow(id);
  const now = new Date();
  const { count } = await db.imapMailbox.updateMany({
    where: { id, OR: [{ holder: null }, { holder }, { leaseExpiresAt: { lt: now } }] },
    data: { holder, leaseExpiresAt: new Date(now.getTime() + leaseMs) },
  });
  return count === 1;
}

export async function releaseLease(id: string, holder: string): Promise<void> {
  await db.imapMailbox.updateMany({
    where: { id, holder },
    data: { holder: null, leaseExpiresAt: null, state: "not connected", stateDetail: null, stateAt: new Date() },
  });
}

export async function readCheckpoint(id: string): Promise<Checkpoint> {
  const row = await db.imapMailbox.findUniqueOrThrow({
    where: { id },
    select: { uidValidity: true, startUid: true, lastUid: true, lastPassAt: true },
  });
  return row;
}

/** A new UIDVALIDITY (or the first connection): the UIDs in scope start at `startUid`. */
export async function startScope(id: string, holder: string, uidValidity: bigint, startUid: bigint): Promise<void> {
  const { count } = await db.imapMailbox.updateMany({
    where: { id, holder },
    data: { uidValidity, startUid, lastUid: startUid - 1n },
  });
  if (count !== 1) throw new LeaseLost();
}

/** What the holder says of its connection, for the page ("connected (IDLE)", "error", ...). */
export async function writeState(id: string, holder: string, state: string, detail: string | null = null) {
  await db.imapMailbox.updateMany({
    where: { id, holder },
    data: { state, stateDetail: detail?.slice(0, 500) ?? null, stateAt: new Date() },
  });
}

export async function passDone(id: string, holder: string, at: Date): Promise<void> {
  await db.imapMailbox.updateMany({ where: { id, holder }, data: { lastPassAt: at } });
}

/** Whether someone pressed "Fetch now" since the holder's last pass. */
export async function fetchRequested(id: string): Promise<boolean> {
  const row = await db.imapMailbox.findUnique({ where: { id }, select: { fetchRequestedAt: true, lastPassAt: true } });
  return Boolean(row?.fetchRequestedAt && (!row.lastPassAt || row.fetchRequestedAt > row.lastPassAt));
}

export async function requestFetch(id: string): Promise<void> {
  await ensureRow(id);
  await db.imapMailbox.update({ where: { id }, data: { fetchRequestedAt: new Date() } });
}

/**
 * The checkpoint's advance past `uid`, as a write for the filing's own transaction: fenced
 * by the lease and the UIDVALIDITY, so a filing by an instance that lost the mailbox rolls
 * back. `filed` counts the message as filed.
 */
export function advanceCheckpoint(id: string, holder: string, uidValidity: bigint, uid: bigint, filed: boolean) {
  return async (client: Prisma.TransactionClient = db) => {
    const { count } = await client.imapMailbox.updateMany({
      where: { id, holder, uidValidity, lastUid: { lt: uid } },
      data: { lastUid: uid, ...(filed ? { lastFiledAt: new Date(), filedCount: { increment: 1 } } : {}) },
    });
    if (count === 1) return;
    // Already past it (a filing whose own write advanced it), or no longer ours.
    const row = await client.imapMailbox.findUnique({
      where: { id },
      select: { holder: true, uidValidity: true, lastUid: true },
    });
    if (row?.holder !== holder || row.uidValidity !== uidValidity || row.lastUid < uid) throw new LeaseLost();
  };
}

/** Which ticket the last filed message went to, for the page. */
export async function noteFiled(id: string, ticketReference: string, subject: string): Promise<void> {
  await db.imapMailbox.update({
    where: { id },
    data: { lastFiledTicket: ticketReference, lastFiledSubject: subject.slice(0, 200) },
  });
}

export type Failure = {
  key: string;
  uidValidity: bigint;
  uid: bigint;
  messageId: string | null;
  fromEmail: string | null;
  subject: string | null;
  size: number;
  reason: string;
};

/**
 * Records a message that cannot be filed and advances the checkpoint past it, in one
 * transaction. Once per message: the same message again (after a UIDVALIDITY reset) only
 * advances the checkpoint. Says whether it was new.
 */
export async function recordFailure(id: string, holder: string, failure: Failure): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const known = await tx.imapFailure.findUnique({ where: { mailboxId_key: { mailboxId: id, key: failure.key } } });
    if (!known) {
      await tx.imapFailure.create({
        data: {
          ...failure,
          mailboxId: id,
          subject: failure.subject?.slice(0, 200) ?? null,
          reason: failure.reason.slice(0, 1000),
        },
      });
      await tx.imapMailbox.update({ where: { id }, data: { failedCount: { increment: 1 } } });
    } else {
      await tx.imapFailure.update({
        where: { id: known.id },
        data: { uidValidity: failure.uidValidity, uid: failure.uid },
      });
    }
    await advanceCheckpoint(id, holder, failure.uidValidity, failure.uid, false)(tx);
    return !known;
  });
}

/** The UIDs of `uids` recorded as failures: they go back to the failure folder, not to the processed one. */
export async function failedUids(id: string, uidValidity: bigint, uids: bigint[]): Promise<Set<bigint>> {
  if (uids.length === 0) return new Set();
  const rows = await db.imapFailure.findMany({
    where: { mailboxId: id, uidValidity, uid: { in: uids } },
    select: { uid: true },
  });
  return new Set(rows.map((row) => row.uid));
}

const FAILURES_SHOWN = 20;

/** The mailbox as /settings/mail shows it, with its latest failures; null before the first connection. */
export async function mailboxStatus(id: string) {
  const row = await db.imapMailbox.findUnique({
    where: { id },
    select: {
      holder: true,
      leaseExpiresAt: true,
      state: true,
      stateDetail: true,
      stateAt: true,
      uidValidity: true,
      lastUid: true,
      lastFiledAt: true,
      lastFiledTicket: true,
      lastFiledSubject: true,
      filedCount: true,
      failedCount: true,
      fetchRequestedAt: true,
      lastPassAt: true,
      failures: {
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: FAILURES_SHOWN,
        select: {
          id: true,
          fromEmail: true,
          subject: true,
          messageId: true,
          size: true,
          reason: true,
          createdAt: true,
        },
      },
    },
  });
  if (!row) return null;
  return { ...row, uidValidity: row.uidValidity?.toString() ?? null, lastUid: row.lastUid.toString() };
}
