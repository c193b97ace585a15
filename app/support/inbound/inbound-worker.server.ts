// The pool of worker threads that read and clean inbound emails
// (app/support/inbound/inbound-email.worker.ts, docs/decisions/017-bounded-email-parsing.md): no
// email, however large or hostile, holds the event loop while it is parsed.
import os from "node:os";
import path from "node:path";
import { Piscina } from "piscina";
import { DomainError } from "~/utils/domain-error";
import { builtFile } from "~/utils/http/build-files.server";
import { log } from "~/utils/log.server";
import { counter, gauge } from "~/utils/metrics.server";
import { stripTags } from "./html-scan";
import { isRawEmailType } from "./inbound-payload";
import type { CleanedBody } from "./email-body";
import type { ParsedEmail, WorkerResult } from "./inbound-email.worker";
import type { DecodedEmail } from "./inbound-types";

/** How long one email may take to read and clean; past it the email is kept with a plain excerpt. */
export const CLEAN_BUDGET_MS = 2_000;
/** Time to read each MB of a post, given on top of the cleaning budget. */
const READ_MS_PER_MB = 100;
/**
 * The same for a whole email: mailparser streams its MIME parts and base64 through many small
 * buffers, about 150 ms per MB on two loaded cores (measured, 20 MiB of base64) where
 * JSON.parse and Buffer's base64 take a fraction of that.
 */
const MIME_READ_MS_PER_MB = 300;
/** Reading alone is linear work; this is only a backstop. */
const DECODE_BUDGET_MS = 20_000;
const EXCERPT_LENGTH = 2_000;
const WORKER = path.join("node", "workers", "inbound-email.worker.js");

// One core is left to the event loop: a worker busy with a hostile email would otherwise
// take the CPU the server needs to answer everyone else (measured: 150 ms timer delays on
// two cores with two busy workers).
const THREADS = Math.max(1, Math.min(2, os.availableParallelism() - 1));

let pool: Piscina | undefined;

// Read when /metrics is scraped: emails waiting for a free worker thread.
gauge({
  name: "leadcapture_inbound_worker_queue_length",
  help: "Inbound emails waiting for a free worker thread to be read.",
  collect() {
    this.set(pool?.queueSize ?? 0);
  },
});
const timeouts = counter({
  name: "leadcapture_inbound_worker_timeouts_total",
  help: "Inbound emails a worker did not finish within its budget, by stage: parse (the email is then kept as received), decode (the post then fails).",
  labelNames: ["stage"],
});
timeouts.inc({ stage: "parse" }, 0);
timeouts.inc({ stage: "decode" }, 0);

/** Whether a task failed for its time budget (AbortSignal.timeout, as piscina passes it on). */
const isTimeout = (error: unknown) => ["AbortError", "TimeoutError"].includes((error as Error | null)?.name ?? "");

function getPool(): Piscina {
  if (!pool) {
    pool = new Piscina({ filename: builtFile(WORKER), minThreads: 1, maxThreads: THREADS, idleTimeout: 60_000 });
    // A worker that cannot start is reported, not thrown: an unhandled 'error' event
    // would end the whole server. Its tasks fail and take the fallback below.
    pool.on("error", (error: unknown) => log.error("an inbound email worker failed", error));
  }
  return pool;
}

/** A plain excerpt of an email that could not be cleaned, made by a linear loop. */
function plainExcerpt(body: { text?: string; html?: string }): string {
  if (body.text?.trim()) return body.text.slice(0, EXCERPT_LENGTH).replace(/\s+/g, " ").trim();
  return stripTags((body.html ?? "").slice(0, EXCERPT_LENGTH * 20), EXCERPT_LENGTH);
}

function unwrap<T>(result: WorkerResult<T>): T {
  if (result.ok) return result.value;
  const { code, message, details } = result.refusal;
  throw new DomainError(code, message, details);
}

export type ReadEmail = Omit<DecodedEmail, "body"> & { cleaned: CleanedBody & { degraded: boolean } };

/**
 * Reads an inbound email post and works out the text its thread shows. Throws DomainError
 * for a post that is not an email. An email the worker
 * cannot clean within the budget is still kept: its raw text and a plain excerpt, marked
 * `degraded`. `bytes` should live in a SharedArrayBuffer (readBodyShared): the workers
 * then read it without a copy.
 */
export async function readEmailInWorker(bytes: Uint8Array, contentType: string): Promise<ReadEmail> {
  const task = { bytes, contentType };
  try {
    // Reading is linear: a large post gets time for it on top of the cleaning budget.
    const perMb = isRawEmailType(contentType) ? MIME_READ_MS_PER_MB : READ_MS_PER_MB;
    const budget = CLEAN_BUDGET_MS + Math.ceil((bytes.byteLength / 1024 / 1024) * perMb);
    const result = (await getPool().run(task, {
      name: "parse",
      signal: AbortSignal.timeout(budget),
    })) as WorkerResult<ParsedEmail>;
    const email = unwrap(result);
    return { ...email, cleaned: { ...email.cleaned, degraded: false } };
  } catch (error) {
    if (error instanceof DomainError) throw error;
    if (isTimeout(error)) timeouts.inc({ stage: "parse" });
    log.warn(`inbound email not cleaned within its budget (${(error as Error).name}): kept as received`);
  }
  const decoded = await getPool()
    .run(task, { name: "decode", signal: AbortSignal.timeout(DECODE_BUDGET_MS) })
    .catch((error: unknown) => {
      if (isTimeout(error)) timeouts.inc({ stage: "decode" });
      throw error;
    });
  const { body, ...email } = unwrap(decoded as WorkerResult<DecodedEmail>);
  const text = (body.text?.trim() ? body.text : body.html) ?? "";
  return { ...email, cleaned: { text, visibleText: plainExcerpt(body), degraded: true } };
}

/** Starts the pool at boot, so the first email does not pay for starting a thread. */
export function startInboundWorkers(): { stop: () => Promise<void> } {
  getPool();
  return { stop: stopInboundWorkers };
}

export async function stopInboundWorkers(): Promise<void> {
  await pool?.destroy();
  pool = undefined;
}
