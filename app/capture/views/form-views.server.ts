// Counting views of forms: a render of the hosted page (/f/:formId) and a page load of a
// site with the embed script (its beacon, POST /api/forms/:formId/views), each under the
// visitor's utm_source, utm_campaign and referrer host. Read back as conversion rates in
// form-stats.server.ts. The drop-off funnel's stages (a visitor's first interaction, a step
// reached: POST /api/forms/:formId/events) are counted the same way into FormFunnel.
//
// A view costs no database write: views are added up in process memory per (form, UTC day,
// source, campaign, referrer host) and flushed every FORM_VIEWS_FLUSH_MS as upserts that add
// to the stored counts, so several instances share one database; a crash loses at most one
// interval of views (decision 029). Memory is bounded: values are capped like a lead's
// source fields, and past MAX_PENDING_KEYS distinct keys in one interval a view falls back
// to its form's row without source, or is dropped when even that row is new. A visitor counts
// one view per form per window (form-view-visitors.server.ts, decision 039).
import { isbot } from "isbot";
import { every } from "~/jobs/periodic.server";
import { formViewStore, type ViewCount } from "~/storage/index.server";
import { env } from "~/utils/env.server";
import { log } from "~/utils/log.server";
import { hasForbiddenText } from "~/utils/text-policy";
import { recentVisitors, type Visitor } from "./form-view-visitors.server";

/** Where a view came from, as the visitor's URL and referrer said; absent values are null or "". */
export type ViewSource = {
  utmSource?: string | null;
  utmCampaign?: string | null;
  referrerHost?: string | null;
};

// A lead's utm_* values are refused past 200 characters; a view's are cut there.
export const VIEW_UTM_MAX_LENGTH = 200;
// The longest host name DNS allows.
export const VIEW_HOST_MAX_LENGTH = 253;
/** Distinct (form, day, source, campaign, referrer) keys held between two flushes. */
export const MAX_PENDING_KEYS = 10_000;
// Rows per write: a SQLite transaction holds the shared connection (and the event loop)
// while it runs, so a large flush is written in slices with lead commits between them.
const FLUSH_SLICE = 500;
const MIN_FLUSH_MS = 100;

const HOST = /^[a-z0-9.-]+$|^\[[0-9a-f:.]+\]$/;

function cleanText(value: string | null | undefined, max: number): string {
  if (typeof value !== "string") return "";
  const text = value.trim().slice(0, max);
  return hasForbiddenText(text) ? "" : text;
}

/** A host name as lead sources store it (lower case), or "" for anything else. */
export function cleanHost(value: string | null | undefined): string {
  const host = cleanText(value, VIEW_HOST_MAX_LENGTH).toLowerCase();
  return HOST.test(host) ? host : "";
}

/** The host of an http(s) address, or "" (no referrer, or not a web page). */
export function hostOfUrl(value: string | null | undefined): string {
  if (!value) return "";
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? cleanHost(url.hostname) : "";
  } catch {
    return "";
  }
}

// isbot's pattern costs tens of microseconds a call; a site's visitors share few User-Agents.
const botVerdicts = new Map<string, boolean>();
const BOT_VERDICTS_MAX = 2_000;
const USER_AGENT_MAX_LENGTH = 512;

/** Whether a request's User-Agent says it is a crawler or a script rather than a visitor. */
export function isBotAgent(userAgent: string | null): boolean {
  const agent = (userAgent ?? "").slice(0, USER_AGENT_MAX_LENGTH);
  let verdict = botVerdicts.get(agent);
  if (verdict === undefined) {
    verdict = isbot(agent);
    if (botVerdicts.size >= BOT_VERDICTS_MAX) botVerdicts.clear();
    botVerdicts.set(agent, verdict);
  }
  return verdict;
}

/** A count held in memory: views (stage VIEW) or visitors who reached a funnel stage. */
type Pending = Omit<ViewCount, "views"> & { stage: number; count: number };
/** The stage of a view; a funnel's stages are 0 (started) and n >= 2 (step n reached). */
const VIEW = -1;
export const STARTED_STAGE = 0;

let pending = new Map<string, Pending>();
let dropped = 0;

const keyOf = (c: Omit<Pending, "count">) =>
  `${c.formId}\u0000${c.day}\u0000${c.utmSource}\u0000${c.utmCampaign}\u0000${c.referrerHost}\u0000${c.stage}`;

/** Adds to the pending counts within the bound; returns false when the count was dropped. */
function addPending(count: Pending): boolean {
  const existing = pending.get(keyOf(count));
  if (existing) {
    existing.count += count.count;
    return true;
  }
  if (pending.size < MAX_PENDING_KEYS) {
    pending.set(keyOf(count), { ...count });
    return true;
  }
  // Full (many sources at once, or someone making them up): the form's total for the day
  // still counts when its row without source is already held.
  const bare = pending.get(keyOf({ ...count, utmSource: "", utmCampaign: "", referrerHost: "" }));
  if (bare) {
    bare.count += count.count;
    return true;
  }
  dropped += count.count;
  return false;
}

const DAY_MS = 86_400_000;
// The UTC day of the last view, as toISOString writes it: worked out once a day, not per view.
let lastDay = { index: NaN, text: "" };

function utcDay(at: Date): string {
  const index = Math.floor(at.getTime() / DAY_MS);
  if (index !== lastDay.index) lastDay = { index, text: at.toISOString().slice(0, 10) };
  return lastDay.text;
}

function pendingOf(formId: string, stage: number, source: ViewSource, at: Date): Pending {
  return {
    formId,
    day: utcDay(at),
    utmSource: cleanText(source.utmSource, VIEW_UTM_MAX_LENGTH),
    utmCampaign: cleanText(source.utmCampaign, VIEW_UTM_MAX_LENGTH),
    referrerHost: cleanHost(source.referrerHost),
    stage,
    count: 1,
  };
}

/**
 * Counts one view of a form (known to exist) now, under its source, unless the visitor's
 * view of it was counted within the window or their address is over its cap. Returns
 * whether it was counted.
 */
export function countView(formId: string, source: ViewSource, visitor: Visitor, at = new Date()): boolean {
  if (!recentVisitors.admit(formId, visitor)) return false;
  return addPending(pendingOf(formId, VIEW, source, at));
}

/**
 * Counts a visitor reaching a stage of a form's funnel (STARTED_STAGE, or step n >= 2), under
 * its source, once per visitor, form and stage in the window, as countView counts views.
 */
export function countFunnelStage(
  formId: string,
  stage: number,
  source: ViewSource,
  visitor: Visitor,
  at = new Date(),
): boolean {
  if (!recentVisitors.admit(`${formId}\u0000${stage}`, visitor)) return false;
  return addPending(pendingOf(formId, stage, source, at));
}

let flushing: Promise<void> = Promise.resolve();

/**
 * Adds the views counted so far to the database. One flush runs at a time; views that
 * could not be written are kept for the next one (within the bound).
 */
export function flushFormViews(): Promise<void> {
  const run = flushing.catch(() => {}).then(flushPending);
  flushing = run;
  return run;
}

async function flushPending(): Promise<void> {
  if (dropped > 0) {
    log.warn(`form views: ${dropped} views dropped (over ${MAX_PENDING_KEYS} sources in one interval)`);
    dropped = 0;
  }
  if (pending.size === 0) return;
  const counts = [...pending.values()];
  pending = new Map();
  const stages = counts.filter((c) => c.stage !== VIEW);
  await writeSlices(
    counts.filter((c) => c.stage === VIEW),
    (slice) => formViewStore.add(slice.map(({ stage: _view, count, ...key }) => ({ ...key, views: count }))),
    stages,
  );
  await writeSlices(stages, (slice) =>
    formViewStore.addFunnel(slice.map(({ count, ...key }) => ({ ...key, visitors: count }))),
  );
}

/** Writes `counts` in slices; on a failure, what is not written (and `after`) is held again. */
async function writeSlices(counts: Pending[], write: (slice: Pending[]) => Promise<void>, after: Pending[] = []) {
  for (let i = 0; i < counts.length; i += FLUSH_SLICE) {
    try {
      await write(counts.slice(i, i + FLUSH_SLICE));
    } catch (error) {
      for (const count of [...counts.slice(i), ...after]) addPending(count);
      throw error;
    }
  }
}

/** Flushes every FORM_VIEWS_FLUSH_MS; stop() flushes what is left (on shutdown). */
export function startFormViewFlush(): { stop: () => Promise<void> } {
  const timer = every(Math.max(MIN_FLUSH_MS, env.FORM_VIEWS_FLUSH_MS), "form views flush", flushFormViews);
  return {
    async stop() {
      await timer.stop();
      await flushFormViews().catch((error) => log.error("form views: the last flush failed", error));
    },
  };
}
