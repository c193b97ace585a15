// One pass of the IMAP intake over its mailbox (decision 070): what is not yet filed is read
// in UID order, parsed by the inbound worker pool as a whole email (message/rfc822) and filed
// by recordInboundEmail, the webhook's own path and sender-trust rules, with the checkpoint
// advanced in the filing's transaction. Filed messages are flagged \Seen and moved to the
// processed folder; a message that cannot be filed is recorded and moved to the failure
// folder, once. A message left behind by a crash (filed, not yet moved) is only moved.
import { createHash } from "node:crypto";
import { DomainError } from "~/utils/domain-error";
import { log } from "~/utils/log.server";
import { counter } from "~/utils/metrics.server";
import { alongsideTicketWrites } from "../../support-thread.server";
import { readInboundEmail } from "../inbound-email.server";
import { INBOUND_BODY_LIMIT } from "../inbound-payload";
import { recordInboundEmail } from "../support-inbound.server";
import {
  advanceCheckpoint,
  failedUids,
  LeaseLost,
  noteFiled,
  readCheckpoint,
  recordFailure,
  startScope,
  type Checkpoint,
} from "./imap-store.server";
import type { FetchMessageObject, ImapFlow, MailboxObject } from "imapflow";

/** Messages one pass takes; the worker goes on at once while a pass takes this many. */
export const PASS_BATCH = 200;
/** Messages downloaded together: at most this many bytes held at once. */
const DOWNLOAD_BYTES = 32 * 1024 * 1024;
/** Messages handed to the worker pool ahead of the one being filed. */
const PARSE_AHEAD = 3;
/** A message whose filing fails this many passes for something other than the message is given up. */
const MAX_ATTEMPTS = 5;
const DAY_MS = 24 * 60 * 60 * 1000;

const messages = counter({
  name: "leadcapture_imap_messages_total",
  help: "Messages the IMAP intake took from its mailbox, by outcome: filed, duplicate (already filed), failed (moved to the failure folder).",
  labelNames: ["outcome"],
});
for (const outcome of ["filed", "duplicate", "failed"]) messages.inc({ outcome }, 0);

export type PassContext = {
  client: ImapFlow;
  /** The mailbox's row (imap-store.server.ts) and this instance's hold on it. */
  id: string;
  holder: string;
  folder: string;
  processedFolder: string;
  failedFolder: string;
  backfillDays: number;
};

type Meta = {
  uid: bigint;
  size: number;
  receivedAt: Date;
  messageId: string | null;
  from: string | null;
  subject: string;
};
type Moves = { processed: bigint[]; failed: bigint[] };

// Attempts of messages whose filing threw something other than a refusal (database, worker).
const attempts = new Map<string, number>();

/** Files what is new in the mailbox; says how many messages it took (PASS_BATCH: more may wait). */
export async function runPass(ctx: PassContext): Promise<number> {
  const lock = await ctx.client.getMailboxLock(ctx.folder);
  try {
    const mailbox = ctx.client.mailbox as MailboxObject;
    let checkpoint = await readCheckpoint(ctx.id);
    if (checkpoint.uidValidity !== mailbox.uidValidity) checkpoint = await newScope(ctx, mailbox, checkpoint);
    const found = (await ctx.client.search({ uid: `${checkpoint.startUid}:*` }, { uid: true })) || [];
    const uids = found
      .map(BigInt)
      .filter((uid) => uid >= checkpoint.startUid)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      .slice(0, PASS_BATCH);
    if (uids.length === 0) return 0;
    const moves: Moves = { processed: [], failed: [] };
    // Handled before (filed or refused) and not moved yet: a crash came between.
    const handled = uids.filter((uid) => uid <= checkpoint.lastUid);
    const refused = await failedUids(ctx.id, mailbox.uidValidity, handled);
    for (const uid of handled) (refused.has(uid) ? moves.failed : moves.processed).push(uid);
    const fresh = uids.filter((uid) => uid > checkpoint.lastUid);
    const started = Date.now();
    for (const group of downloadGroups(await readMeta(ctx.client, fresh))) {
      await fileGroup(ctx, mailbox.uidValidity, group, moves);
    }
    await move(ctx, moves);
    log.info(
      `IMAP intake: ${moves.processed.length} filed and ${moves.failed.length} not filed of ${uids.length} messages in ${Date.now() - started} ms`,
    );
    return uids.length;
  } finally {
    lock.release();
  }
}

/**
 * The first connection, or a new UIDVALIDITY (the mailbox was recreated): the messages in
 * scope are those since the backfill's start (or, after a reset, since the last pass, a day
 * earlier, whichever is older). Message-ID dedupe keeps what was filed before from filing again.
 */
async function newScope(ctx: PassContext, mailbox: MailboxObject, checkpoint: Checkpoint): Promise<Checkpoint> {
  const backfillFrom = new Date(Date.now() - ctx.backfillDays * DAY_MS);
  const since =
    checkpoint.uidValidity !== null && checkpoint.lastPassAt
      ? new Date(Math.min(backfillFrom.getTime(), checkpoint.lastPassAt.getTime() - DAY_MS))
      : backfillFrom;
  const found =
    ctx.backfillDays === 0 && checkpoint.uidValidity === null ? [] : await ctx.client.search({ since }, { uid: true });
  const startUid = (found || []).length > 0 ? BigInt(Math.min(...(found as number[]))) : BigInt(mailbox.uidNext);
  if (checkpoint.uidValidity !== null) {
    log.warn(`IMAP mailbox ${ctx.folder}: UIDVALIDITY changed, reading it again from ${since.toISOString()}`);
  }
  await startScope(ctx.id, ctx.holder, mailbox.uidValidity, startUid);
  return { uidValidity: mailbox.uidValidity, startUid, lastUid: startUid - 1n, lastPassAt: checkpoint.lastPassAt };
}

/** A UID set in IMAP's syntax. */
const uidSet = (uids: bigint[]) => uids.join(",");

async function readMeta(client: ImapFlow, uids: bigint[]): Promise<Meta[]> {
  if (uids.length === 0) return [];
  const metas: Meta[] = [];
  const query = { uid: true, size: true, internalDate: true, envelope: true };
  for await (const message of client.fetch(uidSet(uids), query, { uid: true })) metas.push(metaOf(message));
  return metas.sort((a, b) => (a.uid < b.uid ? -1 : 1));
}

function metaOf(message: FetchMessageObject): Meta {
  const internal = message.internalDate ? new Date(message.internalDate) : new Date();
  return {
    uid: BigInt(message.uid),
    size: message.size ?? 0,
    // When the mailbox received it, never in the future.
    receivedAt: Number.isNaN(internal.getTime()) || internal > new Date() ? new Date() : internal,
    messageId: message.envelope?.messageId?.replace(/^<|>$/g, "").toLowerCase() || null,
    from: message.envelope?.from?.[0]?.address?.toLowerCase() ?? null,
    subject: message.envelope?.subject ?? "",
  };
}

/** The messages in groups of at most DOWNLOAD_BYTES (one larger message alone). */
function downloadGroups(metas: Meta[]): Meta[][] {
  const groups: Meta[][] = [];
  let group: Meta[] = [];
  let bytes = 0;
  for (const meta of metas) {
    if (group.length > 0 && bytes + meta.size > DOWNLOAD_BYTES) {
      groups.push(group);
      group = [];
      bytes = 0;
    }
    group.push(meta);
    bytes += meta.size;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

type Parsed = { ok: true; email: Awaited<ReturnType<typeof readInboundEmail>> } | { ok: false; error: unknown };

/** The message's bytes in shared memory: the worker thread reads them without a copy. */
function shared(source: Buffer): Uint8Array {
  const bytes = new Uint8Array(new SharedArrayBuffer(source.byteLength));
  bytes.set(source);
  return bytes;
}

async function fileGroup(ctx: PassContext, uidValidity: bigint, group: Meta[], moves: Moves): Promise<void> {
  const wanted = group.filter((meta) => meta.size <= INBOUND_BODY_LIMIT);
  const sources = new Map<bigint, Buffer>();
  if (wanted.length > 0) {
    const range = uidSet(wanted.map((meta) => meta.uid));
    for await (const message of ctx.client.fetch(range, { uid: true, source: true }, { uid: true })) {
      if (message.source) sources.set(BigInt(message.uid), message.source);
    }
  }
  // Parsed a few ahead by the worker pool, filed one by one in UID order. Only a few: a
  // task's time budget runs from when it is queued (inbound-worker.server.ts).
  const parsed: Array<Promise<Parsed> | null | undefined> = [];
  const parse = (index: number) => {
    const source = index < group.length ? sources.get(group[index].uid) : undefined;
    if (index >= group.length || parsed[index] !== undefined) return;
    parsed[index] = source
      ? readInboundEmail(shared(source), "message/rfc822").then(
          (email): Parsed => ({ ok: true, email }),
          (error: unknown): Parsed => ({ ok: false, error }),
        )
      : null;
  };
  for (const [index, meta] of group.entries()) {
    const source = sources.get(meta.uid);
    const key = failureKey(meta, source);
    for (let ahead = index; ahead < index + PARSE_AHEAD; ahead++) parse(ahead);
    const reading = await parsed[index];
    parsed[index] = null;
    sources.delete(meta.uid);
    if (!reading) {
      const reason =
        meta.size > INBOUND_BODY_LIMIT
          ? `Too big: ${meta.size} bytes, over the limit of ${INBOUND_BODY_LIMIT}.`
          : "The server did not give the message's content.";
      await fail(ctx, uidValidity, meta, key, reason, moves);
    } else {
      await file(ctx, uidValidity, meta, key, reading, moves);
    }
  }
}

/** What makes a message recognisable again after a UIDVALIDITY reset: its Message-ID, else its bytes. */
function failureKey(meta: Meta, source: Buffer | undefined): string {
  if (meta.messageId) return `mid:${meta.messageId}`.slice(0, 500);
  if (source) return `sha256:${createHash("sha256").update(source).digest("hex")}`;
  return `size:${meta.size}:${meta.receivedAt.toISOString()}:${meta.from ?? ""}`.slice(0, 500);
}

const reasonOf = (error: unknown) =>
  error instanceof DomainError
    ? `${error.code}: ${error.message}`
    : `${(error as Error)?.name}: ${(error as Error)?.message}`;

/**
 * Files one read message. A refusal (the message's fault) is final: Failed. Anything else
 * (the database, a worker past its budget on a busy machine) fails the pass, which is tried
 * again; after MAX_ATTEMPTS the message is given up as a failure, so none is retried for ever.
 */
async function file(ctx: PassContext, uidValidity: bigint, meta: Meta, key: string, reading: Parsed, moves: Moves) {
  let advanced = false;
  const advance = advanceCheckpoint(ctx.id, ctx.holder, uidValidity, meta.uid, true);
  try {
    if (!reading.ok) throw reading.error;
    const { email } = reading;
    const result = await alongsideTicketWrites(
      async (tx) => {
        await advance(tx);
        advanced = true;
      },
      () => recordInboundEmail(email, meta.receivedAt),
    );
    // A duplicate writes nothing (its write, if any, rolled back), nor does a path that
    // took no `alongside`: then the checkpoint alone.
    if (!advanced || result.duplicate) {
      await advanceCheckpoint(ctx.id, ctx.holder, uidValidity, meta.uid, !result.duplicate)();
    }
    messages.inc({ outcome: result.duplicate ? "duplicate" : "filed" });
    if (!result.duplicate) await noteFiled(ctx.id, result.ticketReference, email.subject);
    moves.processed.push(meta.uid);
  } catch (error) {
    const prefix = reading.ok ? "" : "Could not be read: ";
    if (error instanceof DomainError) return fail(ctx, uidValidity, meta, key, prefix + reasonOf(error), moves);
    if (error instanceof LeaseLost) throw error;
    const tries = (attempts.get(`${uidValidity}:${meta.uid}`) ?? 0) + 1;
    attempts.set(`${uidValidity}:${meta.uid}`, tries);
    if (tries < MAX_ATTEMPTS) throw error;
    attempts.delete(`${uidValidity}:${meta.uid}`);
    return fail(ctx, uidValidity, meta, key, `${prefix}not filed after ${tries} attempts: ${reasonOf(error)}`, moves);
  }
}

async function fail(ctx: PassContext, uidValidity: bigint, meta: Meta, key: string, reason: string, moves: Moves) {
  const recorded = await recordFailure(ctx.id, ctx.holder, {
    key,
    uidValidity,
    uid: meta.uid,
    messageId: meta.messageId,
    fromEmail: meta.from,
    subject: meta.subject,
    size: meta.size,
    reason,
  });
  if (recorded) {
    messages.inc({ outcome: "failed" });
    log.warn(
      `IMAP message ${meta.uid} (${meta.messageId ?? "no Message-ID"}) not filed, moved to ${ctx.failedFolder}: ${reason}`,
    );
  }
  moves.failed.push(meta.uid);
}

/** Flags the messages \Seen and moves them out of the intake's folder. */
async function move(ctx: PassContext, moves: Moves): Promise<void> {
  for (const [uids, folder] of [
    [moves.processed, ctx.processedFolder],
    [moves.failed, ctx.failedFolder],
  ] as const) {
    if (uids.length === 0) continue;
    await ctx.client.messageFlagsAdd(uidSet(uids), ["\\Seen"], { uid: true });
    await ctx.client.messageMove(uidSet(uids), folder, { uid: true });
  }
}
