// Retention (issue 30, decision 054): what is finished and older than its period goes, in
// batches with a pause between them, hourly while the server runs and on demand with
// `npm run retention`. Nothing still pending is touched: a webhook delivery that will retry,
// an email not yet sent, a ticket not closed. Form-view counters are already one row per
// form, day and source (no finer detail to roll up), and are kept. A form whose settings give
// retentionDays loses its leads older than that (decision 069), audited per form and pass.
import { recordAudit } from "~/audit/audit.server";
import { every } from "~/jobs/periodic.server";
import type { KeysetPosition } from "~/storage/keyset.server";
import {
  attachmentsOfClosedTickets,
  blankFinishedTicketEmails,
  deleteAttachment,
  deleteAuditEntries,
  deleteFinishedDeliveries,
  deleteOldFormLeads,
  deleteFinishedStaffEmails,
  deleteSpentEvents,
  deleteStalePartialLeads,
  deleteUnconfirmedLeads,
  formRetentionPage,
  type BatchResult,
} from "~/storage/retention-store.server";
import { env } from "~/utils/env.server";
import { log } from "~/utils/log.server";
import { counter } from "~/utils/metrics.server";

/** Days each kind is kept; null: forever. */
export type RetentionPeriods = {
  webhookDays: number | null;
  emailDays: number | null;
  auditDays: number | null;
  attachmentDays: number | null;
  partialLeadDays: number | null;
  unconfirmedLeadDays: number | null;
};

/** What one pass removed, by kind. */
export type RetentionCounts = {
  webhookDeliveries: number;
  webhookEvents: number;
  emailBodies: number;
  staffEmails: number;
  auditEntries: number;
  attachments: number;
  partialLeads: number;
  unconfirmedLeads: number;
  /** Leads of forms with settings.retentionDays, older than it (decision 069). */
  formLeads: number;
};

export type RetentionOptions = {
  now?: number;
  periods?: RetentionPeriods;
  /** Rows per statement: under the 999 values Prisma binds in one SQLite statement. */
  batchSize?: number;
  /** The pause between batches, in which lead commits and the workers' writes get the lock. */
  pauseMs?: number;
  /** Ends the pass after the batch under way (the server is shutting down). */
  signal?: AbortSignal;
};

const DAY_MS = 24 * 60 * 60_000;
const HOUR_MS = 60 * 60_000;
const FIRST_PASS_MIN_MS = 60_000;
const FIRST_PASS_MAX_MS = 10 * 60_000;
const BATCH_SIZE = 500;
const PAUSE_MS = 50;
// A closed ticket's attachments are a few MiB each: fewer per batch.
const ATTACHMENT_BATCH = 20;

export function periodsFromEnv(): RetentionPeriods {
  return {
    webhookDays: env.RETENTION_WEBHOOK_DAYS,
    emailDays: env.RETENTION_EMAIL_DAYS,
    auditDays: env.RETENTION_AUDIT_DAYS,
    attachmentDays: env.RETENTION_ATTACHMENT_DAYS,
    partialLeadDays: env.PARTIAL_LEAD_RETENTION_DAYS,
    unconfirmedLeadDays: env.UNCONFIRMED_LEAD_DAYS,
  };
}

const zeroCounts = (): RetentionCounts => ({
  webhookDeliveries: 0,
  webhookEvents: 0,
  emailBodies: 0,
  staffEmails: 0,
  auditEntries: 0,
  attachments: 0,
  partialLeads: 0,
  unconfirmedLeads: 0,
  formLeads: 0,
});

const removed = counter({
  name: "leadcapture_retention_removed_total",
  help: "Rows retention deleted (emailBodies: support emails whose text it blanked), by kind (decision 054).",
  labelNames: ["kind"],
});
// Every kind from the start, at 0, so that a rate() over a quiet hour reads 0, not nothing.
for (const kind of Object.keys(zeroCounts())) removed.inc({ kind }, 0);

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Pacing = { size: number; pauseMs: number; signal?: AbortSignal };

/** Runs `batch` until a batch comes back short, pausing between batches; the rows handled. */
async function drain(pacing: Pacing, batch: () => Promise<number>): Promise<number> {
  let total = 0;
  // Stopped (the server is shutting down): no further batch, of this kind or the next.
  while (!pacing.signal?.aborted) {
    const count = await batch();
    total += count;
    if (count < pacing.size) break;
    await pause(pacing.pauseMs);
  }
  return total;
}

/** As drain, for batches that step over rows they leave (a keyset position carries on after them). */
async function walk(pacing: Pacing, batch: (from: KeysetPosition | null) => Promise<BatchResult>): Promise<number> {
  let total = 0;
  let from: KeysetPosition | null = null;
  while (!pacing.signal?.aborted) {
    const result = await batch(from);
    total += result.count;
    if (result.scanned < pacing.size || !result.next) break;
    from = result.next;
    await pause(pacing.pauseMs);
  }
  return total;
}

async function removeAttachments(cutoff: Date, days: number, pacing: Pacing): Promise<number> {
  const note = `Attachments of requests closed over ${days} days ago are removed (retention).`;
  let removed = 0;
  while (!pacing.signal?.aborted) {
    const batch = await attachmentsOfClosedTickets(cutoff, ATTACHMENT_BATCH);
    let removedNow = 0;
    for (const attachment of batch) {
      if (pacing.signal?.aborted) return removed + removedNow;
      if (await deleteAttachment(attachment, cutoff, `${attachment.filename}: ${note}`)) removedNow++;
      await pause(pacing.pauseMs);
    }
    removed += removedNow;
    // A batch that removed nothing would only be read again.
    if (batch.length < ATTACHMENT_BATCH || removedNow === 0) break;
  }
  return removed;
}

const FORM_PAGE = 200;

/**
 * Each form's leads older than its settings.retentionDays (decision 069), oldest first, in
 * keyset batches; one audit entry per form that lost leads in this pass, with the count.
 */
async function removeFormLeads(now: number, pacing: Pacing): Promise<number> {
  let total = 0;
  let afterId: string | null = null;
  while (!pacing.signal?.aborted) {
    const forms = await formRetentionPage(afterId, FORM_PAGE);
    for (const form of forms) {
      if (form.retentionDays === null || pacing.signal?.aborted) continue;
      const before = new Date(now - form.retentionDays * DAY_MS);
      let count = 0;
      for (const isSpam of [false, true]) {
        count += await walk(pacing, (from) => deleteOldFormLeads(form.id, isSpam, before, pacing.size, from));
      }
      if (count === 0) continue;
      total += count;
      await recordAudit({
        action: "retention.form_leads",
        actor: null,
        target: `form:${form.id}`,
        ip: null,
        details: { count, days: form.retentionDays },
      });
    }
    if (forms.length < FORM_PAGE) break;
    afterId = forms[forms.length - 1].id;
  }
  return total;
}

/** One retention pass over every kind whose period is set; what it removed. */
export async function runRetention(options: RetentionOptions = {}): Promise<RetentionCounts> {
  const now = options.now ?? Date.now();
  const periods = options.periods ?? periodsFromEnv();
  const pacing: Pacing = {
    size: options.batchSize ?? BATCH_SIZE,
    pauseMs: options.pauseMs ?? PAUSE_MS,
    signal: options.signal,
  };
  const cutoff = (days: number) => new Date(now - days * DAY_MS);
  const counts = zeroCounts();
  if (periods.webhookDays !== null) {
    const before = cutoff(periods.webhookDays);
    for (const status of ["succeeded", "failed"] as const) {
      counts.webhookDeliveries += await drain(pacing, () => deleteFinishedDeliveries(before, pacing.size, status));
    }
    counts.webhookEvents = await walk(pacing, (from) => deleteSpentEvents(before, pacing.size, from));
  }
  if (periods.emailDays !== null) {
    const before = cutoff(periods.emailDays);
    for (const status of ["sent", "failed"] as const) {
      counts.emailBodies += await walk(pacing, (from) => blankFinishedTicketEmails(before, pacing.size, from, status));
      counts.staffEmails += await drain(pacing, () => deleteFinishedStaffEmails(before, pacing.size, status));
    }
  }
  if (periods.auditDays !== null) {
    const before = cutoff(periods.auditDays);
    counts.auditEntries = await drain(pacing, () => deleteAuditEntries(before, pacing.size));
  }
  if (periods.attachmentDays !== null) {
    counts.attachments = await removeAttachments(cutoff(periods.attachmentDays), periods.attachmentDays, pacing);
  }
  if (periods.partialLeadDays !== null) {
    const before = cutoff(periods.partialLeadDays);
    counts.partialLeads = await drain(pacing, () => deleteStalePartialLeads(before, pacing.size));
  }
  if (periods.unconfirmedLeadDays !== null) {
    const before = cutoff(periods.unconfirmedLeadDays);
    counts.unconfirmedLeads = await drain(pacing, () => deleteUnconfirmedLeads(before, pacing.size));
  }
  // Whatever the periods: a form's own setting decides.
  counts.formLeads = await removeFormLeads(now, pacing);
  for (const [kind, count] of Object.entries(counts)) removed.inc({ kind }, count);
  return counts;
}

/**
 * Runs retention hourly while the server runs, the first pass a few minutes after the start
 * (at a random moment between 1 and 10 minutes, so that a service restarted more often than
 * hourly still runs it, and instances started together do not all run it at once; two passes
 * at once are safe, each delete repeating its condition). stop() ends a pass after its batch.
 */
export function startRetention(): { stop: () => Promise<void> } {
  const stopping = new AbortController();
  let running: Promise<unknown> | null = null;
  // Deletion is on by default: say what will go, once, where an operator reads.
  log.info("retention periods in days (null: kept)", periodsFromEnv());
  const pass = async () => {
    // A pass that outlasts the hour is not joined by a second one.
    if (running) return;
    running = runRetention({ signal: stopping.signal })
      .then((counts) => {
        if (Object.values(counts).some((count) => count > 0)) log.info("retention removed", counts);
      })
      .finally(() => {
        running = null;
      });
    await running;
  };
  const first = setTimeout(
    () => void pass().catch((error) => log.error("retention failed", error)),
    FIRST_PASS_MIN_MS + Math.random() * (FIRST_PASS_MAX_MS - FIRST_PASS_MIN_MS),
  );
  first.unref();
  const timer = every(HOUR_MS, "retention", pass);
  return {
    stop: async () => {
      stopping.abort();
      clearTimeout(first);
      await timer.stop();
      await running?.catch(() => undefined);
    },
  };
}
