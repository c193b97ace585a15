// What a visitor typed into a public form (a lead form, the support form) whose plain,
// no-JavaScript post was refused, kept on the server for a few minutes under a random
// token, so the form they are sent back to comes back filled in. The values never travel
// in a URL or reach a log: only the token does (in the redirect's `draft` parameter).
// Kept in process memory, bounded in size, count and time (docs/decisions/032-visitor-drafts-in-memory.md).
import { createHash, randomBytes } from "node:crypto";

/** How long a refused post's values wait for the visitor to come back to the form. */
export const DRAFT_TTL_MS = 10 * 60_000;
/** The most of a draft's values kept, in characters of JSON; fields past it are left out. */
export const DRAFT_MAX_CHARS = 16 * 1024;
/** The most drafts held at once (the oldest goes first): at most about 32 MB of memory. */
const MAX_DRAFTS = 2_000;

export type DraftValues = Record<string, string | string[]>;
export type Draft = {
  values: DraftValues;
  /** Field messages, keyed by field (`_form` for the whole form), when the page has no other way to get them. */
  errors?: Record<string, string>;
  /** The reference of a support request opened by a plain post, for the page that confirms it. */
  sent?: string;
};

type Entry = { scope: string; draft: Draft; expiresAt: number };

// Keyed by the SHA-256 of the token: a heap dump does not hand out working tokens.
// A Map keeps insertion order, and every entry lives as long, so the oldest is first.
const drafts = new Map<string, Entry>();

const TOKEN = /^[A-Za-z0-9_-]{32}$/;

function keyOf(token: string): string {
  return createHash("sha256").update(token).digest("base64url");
}

function sweep(now: number): void {
  for (const [key, entry] of drafts) {
    if (entry.expiresAt > now && drafts.size < MAX_DRAFTS) break;
    drafts.delete(key);
  }
}

/** The values within DRAFT_MAX_CHARS, field by field in the order given. */
function bounded(values: DraftValues): DraftValues {
  const kept: DraftValues = {};
  let size = 2;
  for (const [key, value] of Object.entries(values)) {
    const cost = JSON.stringify([key, value]).length;
    if (size + cost > DRAFT_MAX_CHARS) continue;
    kept[key] = value;
    size += cost;
  }
  return kept;
}

/**
 * Keeps a refused post's values (and messages) for DRAFT_TTL_MS under a new random token,
 * usable only for `scope` (a form's id, or the support form), and returns the token.
 */
export function keepDraft(scope: string, draft: Draft, now = Date.now()): string {
  sweep(now);
  const token = randomBytes(24).toString("base64url");
  const errors = draft.errors ? bounded(draft.errors) : undefined;
  drafts.set(keyOf(token), {
    scope,
    draft: {
      values: bounded(draft.values),
      ...(errors ? { errors: errors as Record<string, string> } : {}),
      ...(draft.sent ? { sent: draft.sent.slice(0, 64) } : {}),
    },
    expiresAt: now + DRAFT_TTL_MS,
  });
  return token;
}

/**
 * The draft a token names, once: it is forgotten as it is read (a reload or a shared
 * computer's history shows an empty form). Null for an unknown, expired, malformed or
 * other form's token.
 */
export function takeDraft(scope: string, token: string | null | undefined, now = Date.now()): Draft | null {
  if (!token || !TOKEN.test(token)) return null;
  const key = keyOf(token);
  const entry = drafts.get(key);
  if (!entry || entry.scope !== scope) return null;
  drafts.delete(key);
  return entry.expiresAt > now ? entry.draft : null;
}

// Refusals the visitor has since put right: each refused post's errors page carries a
// random attempt id, marked when the post sent from that page succeeds, so that Back to it
// says the form was sent instead of showing the old errors again. Bounded like the drafts.
const settled = new Map<string, number>();
const SETTLED_TTL_MS = 60 * 60_000;
const ATTEMPT = /^[A-Za-z0-9_-]{24}$/;

/** A new attempt id for a refused post's errors page. */
export function newAttempt(): string {
  return randomBytes(18).toString("base64url");
}

/** Marks the errors page of `attempt` as put right by a later, successful post. */
export function markSettled(scope: string, attempt: string, now = Date.now()): void {
  if (!ATTEMPT.test(attempt)) return;
  for (const [key, expiresAt] of settled) {
    if (expiresAt > now && settled.size < MAX_DRAFTS) break;
    settled.delete(key);
  }
  settled.set(keyOf(`${scope}\n${attempt}`), now + SETTLED_TTL_MS);
}

/** Whether the errors page of `attempt` was put right by a later, successful post. */
export function isSettled(scope: string, attempt: string | null, now = Date.now()): boolean {
  if (!attempt || !ATTEMPT.test(attempt)) return false;
  const expiresAt = settled.get(keyOf(`${scope}\n${attempt}`));
  return expiresAt !== undefined && expiresAt > now;
}

/** The scope of a lead form's drafts. */
export function leadDraftScope(formId: string): string {
  return `lead-form:${formId}`;
}

/** The scope of the public support form's drafts. */
export const SUPPORT_DRAFT_SCOPE = "support-request";
