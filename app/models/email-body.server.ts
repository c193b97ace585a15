// The text an inbound email's thread shows, worked out in a pool of worker threads with a
// time budget per email (docs/decisions/017-bounded-email-parsing.md): no email, however
// large or hostile, holds the event loop while it is parsed.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Piscina } from "piscina";

/** How long one email may take to clean; past it the email is kept with a plain excerpt. */
export const CLEAN_BUDGET_MS = 2_000;
const EXCERPT_LENGTH = 2_000;

export type CleanBody = { text: string; visibleText: string; degraded: boolean };

/** The worker file, found from this module whether it runs from app/ (tests) or build/server/. */
function workerFile(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const candidate = path.join(dir, "app", "workers", "email-body.worker.mjs");
    if (fs.existsSync(candidate)) return candidate;
  }
  throw new Error("app/workers/email-body.worker.mjs not found");
}

let pool: Piscina | undefined;
function getPool(): Piscina {
  pool ??= new Piscina({ filename: workerFile(), minThreads: 1, maxThreads: 2, idleTimeout: 60_000 });
  return pool;
}

/** Linear, regex-free tag stripping for the excerpt of an email that could not be cleaned. */
function plainExcerpt(body: { text?: string; html?: string }): string {
  const source = body.text?.trim() ? body.text : (body.html ?? "");
  const head = source.slice(0, EXCERPT_LENGTH * 20);
  let out = "";
  let inTag = false;
  for (const char of head) {
    if (char === "<") inTag = true;
    else if (char === ">") inTag = false;
    else if (!inTag) out += char;
    if (out.length >= EXCERPT_LENGTH) break;
  }
  return out.replace(/\s+/g, " ").trim();
}

/**
 * The whole text (HTML converted when there is no text part) and the new text of the
 * reply. An email the worker cannot clean within the budget is still kept: its raw text
 * and a plain excerpt, marked `degraded`.
 */
export async function cleanEmailBody(body: { text?: string; html?: string; stripped?: string }): Promise<CleanBody> {
  try {
    const cleaned = (await getPool().run(body, { signal: AbortSignal.timeout(CLEAN_BUDGET_MS) })) as Omit<CleanBody, "degraded">;
    return { ...cleaned, degraded: false };
  } catch (error) {
    const excerpt = plainExcerpt(body);
    console.warn(`inbound email body not cleaned within ${CLEAN_BUDGET_MS} ms (${(error as Error).name}): kept as received`);
    return { text: (body.text?.trim() ? body.text : body.html) ?? "", visibleText: excerpt, degraded: true };
  }
}

export async function stopEmailBodyWorkers(): Promise<void> {
  await pool?.destroy();
  pool = undefined;
}
