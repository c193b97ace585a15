// The outbox: support email is written to OutboxEmail in the same write as the thread
// message, and a worker in the server process delivers it over SMTP with retries and
// exponential backoff, logging every attempt in OutboxAttempt. An API call never waits
// for (or fails because of) the mail server.
//
// Claiming a row moves it from `pending` to `sending` in one atomic statement, so with
// several instances on one PostgreSQL each email is claimed by exactly one of them. A
// row whose claimer died mid-send is reclaimed once its lock (`lockedUntil`) expires.
import { outboxStore } from "~/storage/index.server";
import { db } from "~/utils/db.server";
import { env } from "~/utils/env.server";
import { isSmtpConfigured, sendEmail } from "~/utils/mailer.server";
import { startPollingWorker, type PollingWorker } from "~/utils/polling-worker.server";
import { replyAddress } from "./sender-trust.server";

export const NOT_CONFIGURED_ERROR = "not sent: no SMTP configured";
export const MAX_ATTEMPTS = 8;
const BATCH_SIZE = 10;
// Longer than the transport's own time-outs (mailer.server.ts), so a live send is never reclaimed.
const LOCK_MS = 2 * 60_000;
const BACKOFF_BASE_MS = 1_000;
const BACKOFF_MAX_MS = 60 * 60_000;

/** Delay before attempt `attempts + 1`: 1 s, 2 s, 4 s, ... capped at an hour. */
export function backoffMs(attempts: number): number {
  return Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempts - 1));
}

const claimedSelect = {
  id: true,
  toEmail: true,
  subject: true,
  text: true,
  messageId: true,
  inReplyTo: true,
  references: true,
  attempts: true,
  ticket: { select: { threadMessageId: true, reference: true } },
} as const;

async function reclaimStale(now: Date): Promise<void> {
  await db.outboxEmail.updateMany({
    where: { status: "sending", lockedUntil: { lt: now } },
    data: { status: "pending", lockedUntil: null },
  });
}

function claimDue(now: Date): Promise<string[]> {
  return outboxStore.claimDue(now, new Date(now.getTime() + LOCK_MS), BATCH_SIZE);
}

async function deliver(id: string): Promise<void> {
  const email = await db.outboxEmail.findUnique({ where: { id }, select: claimedSelect });
  if (!email) return;
  const attempts = email.attempts + 1;
  try {
    await sendEmail({
      ...email,
      autoSubmitted: email.messageId === email.ticket?.threadMessageId,
      // Replies go to the ticket's own address, whose token proves the customer answered us.
      replyTo: email.ticket ? replyAddress(email.ticket.reference) : undefined,
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const giveUp = attempts >= MAX_ATTEMPTS;
    await db.outboxEmail.update({
      where: { id },
      data: {
        status: giveUp ? "failed" : "pending",
        attempts,
        lastError: message.slice(0, 1000),
        nextAttemptAt: new Date(Date.now() + backoffMs(attempts)),
        lockedUntil: null,
        attemptLog: { create: { ok: false, error: message.slice(0, 1000) } },
      },
    });
    return;
  }
  await db.outboxEmail.update({
    where: { id },
    data: {
      status: "sent",
      attempts,
      lastError: null,
      sentAt: new Date(),
      lockedUntil: null,
      attemptLog: { create: { ok: true } },
    },
  });
}

/** Marks every waiting email as held back, so the dashboard can say why it was not sent. */
async function markNotConfigured(): Promise<number> {
  const { count } = await db.outboxEmail.updateMany({
    where: { status: { in: ["pending", "sending"] } },
    data: { status: "not_configured", lastError: NOT_CONFIGURED_ERROR, lockedUntil: null },
  });
  return count;
}

/** One pass of the worker: claims due email and sends it. Returns how many were handled. */
export async function processOutbox(): Promise<number> {
  if (!isSmtpConfigured()) return markNotConfigured();
  const now = new Date();
  await reclaimStale(now);
  const ids = await claimDue(now);
  for (const id of ids) await deliver(id);
  return ids.length;
}

let worker: PollingWorker | undefined;

/** Wakes the worker of this process now (after an email was enqueued), if it runs. */
export function kickOutbox(): void {
  worker?.kick();
}

/**
 * Polls every OUTBOX_POLL_MS (app/utils/polling-worker.server.ts). Email held back while
 * SMTP was not configured is queued again once it is.
 */
export async function startOutboxWorker(pollMs = env.OUTBOX_POLL_MS): Promise<PollingWorker> {
  if (worker) return worker;
  if (isSmtpConfigured()) {
    await db.outboxEmail.updateMany({
      where: { status: "not_configured" },
      data: { status: "pending", lastError: null, nextAttemptAt: new Date() },
    });
  }
  const started = startPollingWorker({
    name: "outbox",
    pollMs,
    pass: processOutbox,
    batchSize: BATCH_SIZE,
    canContinue: isSmtpConfigured,
  });
  worker = {
    kick: started.kick,
    async stop() {
      await started.stop();
      worker = undefined;
    },
  };
  return worker;
}
