// Delivering webhook events (docs/api/webhooks.md): a worker in each server process claims
// due deliveries (one instance per attempt: app/storage/queue-store.server.ts), signs
// each with the endpoint's secret (and, for 24 hours after a rotation, the previous one)
// using the `standardwebhooks` package, POSTs it (webhook-client.server.ts), logs the
// attempt, and retries failures on WEBHOOK_RETRY_DELAYS with jitter before giving up. An
// endpoint whose every attempt failed for WEBHOOK_DISABLE_AFTER_HOURS is disabled.
import { Webhook } from "standardwebhooks";
import { startPollingWorker, type PollingWorker } from "~/jobs/polling-worker.server";
import { db } from "~/storage/db.server";
import { webhookFanOutStore, webhookOutcomeStore, webhookStore } from "~/storage/index.server";
import type { Outcome } from "~/storage/webhooks/webhook-outcome-store.server";
import { env } from "~/utils/env.server";
import { log } from "~/utils/log.server";
import { BACKLOG_COUNT_CAP, backlogGauges } from "~/utils/metrics.server";
import { webhookDisabledEmails } from "../notifications/notifications.server";
import { kickOutbox, writeStaffEmails } from "../notifications/outbox.server";
import { leadCreatedBodies } from "./event-bodies.server";
import { postWebhook, type AttemptResult } from "./webhook-client.server";
import { invalidateSubscriptions, writeBuiltBodies } from "./webhook-events.server";
import { slackMessage } from "./webhook-slack";

const BATCH_SIZE = 50;
// Longer than an attempt may take (its time-out, then one write), so a live attempt is
// never reclaimed; a claimer that died is replaced this long after its claim.
const LOCK_MS = () => env.WEBHOOK_TIMEOUT_MS + 10_000;
const ERROR_LENGTH = 500;
const USER_AGENT = "LeadCapture-Webhooks/1";

type Signer = { secret: string; previousSecret: string | null; previousSecretUntil: Date | null };

/** The webhook-signature header: `v1,<sig>`, and a second one under the previous secret while it is valid. */
export function signatureHeader(endpoint: Signer, id: string, at: Date, payload: string): string {
  const secrets = [endpoint.secret];
  if (endpoint.previousSecret && endpoint.previousSecretUntil && endpoint.previousSecretUntil > at) {
    secrets.push(endpoint.previousSecret);
  }
  return secrets.map((secret) => new Webhook(secret).sign(id, at, payload)).join(" ");
}

/** The delay before the attempt after `attempts` failed ones, or null when none is left. */
export function retryDelayMs(attempts: number, random = Math.random): number | null {
  const delays = env.WEBHOOK_RETRY_DELAYS;
  if (attempts > delays.length) return null;
  // ±10% jitter, so the retries of many failed deliveries do not arrive together.
  return Math.round(delays[attempts - 1] * 1000 * (0.9 + 0.2 * random()));
}

const claimedSelect = {
  id: true,
  endpointId: true,
  attempts: true,
  event: { select: { id: true, payload: true, leadId: true, createdAt: true } },
  endpoint: {
    select: {
      url: true,
      kind: true,
      disabledAt: true,
      secret: true,
      previousSecret: true,
      previousSecretUntil: true,
    },
  },
} as const;

/**
 * Sends one event to one endpoint now: the Standard Webhooks body signed as of now, or
 * for a Slack endpoint its Slack message (Slack checks no signature).
 */
export async function sendEvent(
  endpoint: Signer & { url: string; kind: "standard" | "slack" },
  eventId: string,
  payload: string,
) {
  if (endpoint.kind === "slack") {
    return postWebhook(endpoint.url, { "User-Agent": USER_AGENT }, slackMessage(payload, env.APP_URL));
  }
  const at = new Date();
  const headers = {
    "webhook-id": eventId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": signatureHeader(endpoint, eventId, at, payload),
    "User-Agent": USER_AGENT,
  };
  return postWebhook(endpoint.url, headers, payload);
}

const NO_BODY: AttemptResult = {
  ok: false,
  statusCode: null,
  durationMs: 0,
  responseBody: null,
  error: "The event's body could not be built: its lead is gone or unreadable.",
};

/**
 * The bodies of claimed deliveries' events that have none, built and written now. The
 * fan-out writes an event's body with its deliveries, so this happens only to events an
 * instance of the version before (which fanned out without building bodies) fanned out
 * while this one ran beside it (decision 028).
 */
async function lateBodies(
  events: ReadonlyArray<{ id: string; payload: string | null; leadId: string | null; createdAt: Date }>,
): Promise<Map<string, string | null>> {
  const missing = [...new Map(events.filter((event) => event.payload === null).map((e) => [e.id, e])).values()];
  if (missing.length === 0) return new Map();
  const bodies = await leadCreatedBodies(missing);
  await writeBuiltBodies(bodies);
  return bodies;
}

type Claimed = { id: string; endpointId: string; attempts: number; result: AttemptResult };

/**
 * Writes a batch's outcomes (app/storage/webhooks/webhook-outcome-store.server.ts: the attempts, the
 * deliveries' next step and the endpoints' health, in one transaction), then disables the
 * endpoints a delivery gave up on after WEBHOOK_DISABLE_AFTER_HOURS of failures.
 */
async function record(claimed: Claimed[]): Promise<void> {
  const now = new Date();
  const outcomes: Outcome[] = claimed.map(({ id, endpointId, attempts, result }) => {
    const delay = result.ok ? null : retryDelayMs(attempts);
    return {
      deliveryId: id,
      endpointId,
      attempts,
      ok: result.ok,
      statusCode: result.statusCode,
      durationMs: result.durationMs,
      responseBody: result.responseBody,
      error: result.error?.slice(0, ERROR_LENGTH) ?? null,
      nextAttemptAt: delay === null ? null : new Date(now.getTime() + delay),
    };
  });
  const written = await webhookOutcomeStore.record(outcomes, now);
  // One line a batch for the operator (the attempts themselves are on the dashboard); ids and
  // status codes only: an endpoint's URL or answer may hold a secret of its owner's.
  const failed = outcomes.filter((o) => !o.ok);
  if (failed.length > 0) {
    log.warn(`webhook attempts failed (${failed.length}), to be retried or given up`, {
      endpointIds: [...new Set(failed.map((o) => o.endpointId))],
      statusCodes: [...new Set(failed.map((o) => o.statusCode))],
    });
  }
  // Judged when a delivery has used all its retries, so that no event is given up early.
  const succeeded = new Set(outcomes.filter((o) => o.ok).map((o) => o.endpointId));
  const gaveUp = new Set(
    outcomes
      .filter((o) => written.has(o.deliveryId) && !o.ok && !o.nextAttemptAt && !succeeded.has(o.endpointId))
      .map((o) => o.endpointId),
  );
  if (gaveUp.size > 0 && (await disableExpired([...gaveUp], now))) kickOutbox();
}

/**
 * Disables those of the endpoints whose every attempt has failed for WEBHOOK_DISABLE_AFTER_HOURS,
 * each with the email that tells its form's notification recipients (or the staff), in one
 * transaction. Returns whether one was disabled.
 */
async function disableExpired(endpointIds: string[], now: Date): Promise<boolean> {
  const limit = new Date(now.getTime() - env.WEBHOOK_DISABLE_AFTER_HOURS * 60 * 60_000);
  const disabled = await db.$transaction(async (tx) => {
    const expired = await tx.webhookEndpoint.findMany({
      where: { id: { in: endpointIds }, disabledAt: null, failingSince: { lte: limit } },
      select: { id: true, url: true, formId: true, failingSince: true },
    });
    let count = 0;
    for (const endpoint of expired) {
      // updateMany: an endpoint deleted or disabled meanwhile is skipped.
      const updated = await tx.webhookEndpoint.updateMany({
        where: { id: endpoint.id, disabledAt: null },
        data: {
          disabledAt: now,
          disabledReason: `Every delivery failed since ${endpoint.failingSince!.toISOString()}.`,
        },
      });
      if (updated.count === 0) continue;
      count++;
      const notice = { ...endpoint, failingSince: endpoint.failingSince! };
      await writeStaffEmails(await webhookDisabledEmails(notice, tx), tx);
    }
    return count > 0;
  });
  if (disabled) invalidateSubscriptions();
  return disabled;
}

// Deliveries whose claimer died are looked for at most this often (not on every pass).
const RECLAIM_EVERY_MS = 1000;
let nextReclaimAt = 0;

// Lead events fanned out to deliveries per pass (a few milliseconds of SQLite's time).
const FAN_OUT_BATCH = 200;

/**
 * The deliveries of up to FAN_OUT_BATCH lead events, with the bodies of those written
 * without one built from their leads here, and handed to the fan-out as data (decision
 * 045). A failure (an endpoint deleted while its deliveries
 * were written, a busy SQLite file) is logged and left to the next pass: it must not hold
 * back the deliveries already due.
 */
export async function fanOutLeadEvents(): Promise<number> {
  try {
    const unbuilt = await webhookFanOutStore.unbuilt(FAN_OUT_BATCH);
    // Nothing waiting (most passes): nothing to build or write.
    if (unbuilt === null) return 0;
    return await webhookFanOutStore.fanOut(FAN_OUT_BATCH, await leadCreatedBodies(unbuilt));
  } catch (error) {
    log.error("webhook fan-out failed (it is tried again on the next pass)", error);
    return 0;
  }
}

/**
 * One pass: writes the deliveries of lead events not fanned out yet, reclaims deliveries
 * whose claimer died, claims due ones, delivers them side by side. Returns how much it did.
 */
export async function processWebhooks(): Promise<number> {
  const fannedOut = await fanOutLeadEvents();
  const now = new Date();
  if (now.getTime() >= nextReclaimAt) {
    nextReclaimAt = now.getTime() + RECLAIM_EVERY_MS;
    await db.webhookDelivery.updateMany({
      where: { status: "delivering", lockedUntil: { lt: now } },
      data: { status: "pending", lockedUntil: null },
    });
  }
  const ids = await webhookStore.claimDue(now, new Date(now.getTime() + LOCK_MS()), BATCH_SIZE);
  if (ids.length === 0) return fannedOut;
  const claimed = await db.webhookDelivery.findMany({ where: { id: { in: ids } }, select: claimedSelect });
  const held = claimed.filter((delivery) => delivery.endpoint.disabledAt !== null).map((delivery) => delivery.id);
  if (held.length > 0) {
    // Held until the endpoint is enabled again (or deleted with its deliveries).
    await db.webhookDelivery.updateMany({
      where: { id: { in: held } },
      data: { status: "pending", lockedUntil: null, nextAttemptAt: new Date(now.getTime() + 60 * 60_000) },
    });
  }
  const late = await lateBodies(claimed.map((delivery) => delivery.event));
  // Side by side: one slow receiver holds one slot, not the others' deliveries.
  const done = await Promise.all(
    claimed
      .filter((delivery) => delivery.endpoint.disabledAt === null)
      .map(async (delivery) => {
        const payload = delivery.event.payload ?? late.get(delivery.event.id) ?? null;
        return {
          id: delivery.id,
          endpointId: delivery.endpointId,
          attempts: delivery.attempts + 1,
          result: payload === null ? NO_BODY : await sendEvent(delivery.endpoint, delivery.event.id, payload),
        };
      }),
  );
  if (done.length > 0) await record(done);
  return fannedOut + ids.length;
}

// Read when /metrics is scraped (decision 052), each by its index: the lead events still to be
// fanned out (fanOutAt), then the deliveries (status, nextAttemptAt). A disabled endpoint's
// deliveries wait for it to be enabled again: they are no work of the worker's.
backlogGauges(
  "leadcapture_webhook_fan_out",
  {
    pending: "Lead events not yet fanned out to their endpoints' deliveries.",
    age: "Seconds the oldest lead event has waited for its fan-out (0 when none waits).",
  },
  async () => {
    const where = { fanOutAt: { not: null } };
    const [pending, oldest] = await Promise.all([
      db.webhookEvent.count({ where, take: BACKLOG_COUNT_CAP }),
      db.webhookEvent.findFirst({ where, orderBy: { fanOutAt: "asc" }, select: { fanOutAt: true } }),
    ]);
    return { pending, oldestDueAt: oldest?.fanOutAt ?? null };
  },
);
backlogGauges(
  "leadcapture_webhook_deliveries",
  {
    pending: "Webhook deliveries to enabled endpoints not done yet (waiting, retrying or being sent).",
    age: "Seconds the longest-waiting webhook delivery has been due (0 when none is due).",
  },
  async () => {
    const enabled = { endpoint: { disabledAt: null } };
    const [pending, oldest] = await Promise.all([
      db.webhookDelivery.count({
        where: { status: { in: ["pending", "delivering"] }, ...enabled },
        take: BACKLOG_COUNT_CAP,
      }),
      db.webhookDelivery.findFirst({
        where: { status: "pending", ...enabled },
        orderBy: { nextAttemptAt: "asc" },
        select: { nextAttemptAt: true },
      }),
    ]);
    return { pending, oldestDueAt: oldest?.nextAttemptAt ?? null };
  },
);

let worker: PollingWorker | undefined;

/** Wakes this process's worker now (a test event, a manual retry), if it runs. */
export function kickWebhooks(): void {
  worker?.kick();
}

// After a lead's event: soon, so that under load one pass takes many deliveries.
const NUDGE_MS = 50;

/** Wakes this process's worker within 50 ms (after an event was written with a lead). */
export function nudgeWebhooks(): void {
  worker?.nudge?.(NUDGE_MS);
}

// Deliveries yield to the public endpoint (docs/decisions/028): while the server has lately
// had this many requests in flight at once (server/app-server.ts, inFlightPeaks) it is
// queueing work (unloaded, a request is answered in about a millisecond, so even a thousand
// a second keep one or two in flight), and a pass is put off until YIELD_LIMIT_MS after the
// last pass ended, so a saturated server still delivers a batch that often.
const BUSY_IN_FLIGHT = 16;
const YIELD_LIMIT_MS = 1000;

export function startWebhookWorker({
  pollMs = env.WEBHOOK_POLL_MS,
  recentPeakInFlight = () => 0,
}: { pollMs?: number; recentPeakInFlight?: () => number } = {}): PollingWorker {
  if (worker) return worker;
  let lastPassEnded = 0;
  const pass = async () => {
    if (recentPeakInFlight() >= BUSY_IN_FLIGHT && Date.now() - lastPassEnded < YIELD_LIMIT_MS) return 0;
    try {
      return await processWebhooks();
    } finally {
      lastPassEnded = Date.now();
    }
  };
  const started = startPollingWorker({ name: "webhook", pollMs, pass, batchSize: BATCH_SIZE });
  worker = {
    kick: started.kick,
    nudge: started.nudge,
    async stop() {
      await started.stop();
      worker = undefined;
    },
  };
  return worker;
}
