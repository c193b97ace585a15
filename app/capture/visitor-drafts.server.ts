// What a visitor typed into a public form (a lead form, the support form) whose plain,
// no-JavaScript post was refused, kept on the server for a few minutes under a random
// token, so the form they are sent back to comes back filled in. The values never travel
// in a URL or reach a log: only the token does (in the redirect's `draft` parameter).
// Kept in the database, so the visitor's next request may reach any instance; bounded in
// size and time (docs/decisions/051-visitor-drafts-in-the-database.md).
import { createHash, randomBytes } from "node:crypto";
import { every } from "~/jobs/periodic.server";
import { db } from "~/storage/db.server";

/** How long a refused post's values wait for the visitor to come back to the form. */
export const DRAFT_TTL_MS = 10 * 60_000;
/** The most of a draft's values kept, in characters of JSON; fields past it are left out. */
export const DRAFT_MAX_CHARS = 16 * 1024;

export type DraftValues = Record<string, string | string[]>;
export type Draft = {
  values: DraftValues;
  /** Field messages, keyed by field (`_form` for the whole form), when the page has no other way to get them. */
  errors?: Record<string, string>;
  /** The reference of a support request opened by a plain post, for the page that confirms it. */
  sent?: string;
};

// Keyed by the SHA-256 of the token: a copy of the table does not hand out working tokens.
const TOKEN = /^[A-Za-z0-9_-]{32}$/;

function keyOf(token: string): string {
  return createHash("sha256").update(token).digest("base64url");
}

/** The values within `max` characters of JSON, field by field in the order given. */
export function bounded(values: DraftValues, max = DRAFT_MAX_CHARS): DraftValues {
  const kept: DraftValues = {};
  let size = 2;
  for (const [key, value] of Object.entries(values)) {
    const cost = JSON.stringify([key, value]).length;
    if (size + cost > max) continue;
    kept[key] = value;
    size += cost;
  }
  return kept;
}

/**
 * Keeps a refused post's values (and messages) for DRAFT_TTL_MS under a new random token,
 * usable only for `scope` (a form's id, or the support form), and returns the token.
 */
export async function keepDraft(scope: string, draft: Draft, now = Date.now()): Promise<string> {
  const token = randomBytes(24).toString("base64url");
  const errors = draft.errors ? bounded(draft.errors) : undefined;
  const kept: Draft = {
    values: bounded(draft.values),
    ...(errors ? { errors: errors as Record<string, string> } : {}),
    ...(draft.sent ? { sent: draft.sent.slice(0, 64) } : {}),
  };
  await db.visitorDraft.create({
    data: { key: keyOf(token), scope, payload: JSON.stringify(kept), expiresAt: new Date(now + DRAFT_TTL_MS) },
  });
  return token;
}

/**
 * The draft a token names, once: it is forgotten as it is read (a reload or a shared
 * computer's history shows an empty form). Null for an unknown, expired, malformed or
 * other form's token.
 */
export async function takeDraft(
  scope: string,
  token: string | null | undefined,
  now = Date.now(),
): Promise<Draft | null> {
  if (!token || !TOKEN.test(token)) return null;
  // Deleting is the read: of two requests with one token, only one gets the row.
  const taken = await db.visitorDraft
    .delete({ where: { key: keyOf(token), scope }, select: { payload: true, expiresAt: true } })
    .catch((error: unknown) => {
      if ((error as { code?: string }).code === "P2025") return null; // no such draft
      throw error;
    });
  if (!taken || taken.expiresAt.getTime() <= now) return null;
  return JSON.parse(taken.payload) as Draft;
}

// Refusals the visitor has since put right: each refused post's errors page carries a
// random attempt id, marked when the post sent from that page succeeds, so that Back to it
// says the form was sent instead of showing the old errors again.
const SETTLED_TTL_MS = 60 * 60_000;
const ATTEMPT = /^[A-Za-z0-9_-]{24}$/;

/** A new attempt id for a refused post's errors page. */
export function newAttempt(): string {
  return randomBytes(18).toString("base64url");
}

/** Marks the errors page of `attempt` as put right by a later, successful post. */
export async function markSettled(scope: string, attempt: string, now = Date.now()): Promise<void> {
  if (!ATTEMPT.test(attempt)) return;
  const key = keyOf(`${scope}\n${attempt}`);
  const expiresAt = new Date(now + SETTLED_TTL_MS);
  await db.settledAttempt.upsert({ where: { key }, create: { key, expiresAt }, update: { expiresAt } });
}

/** Whether the errors page of `attempt` was put right by a later, successful post. */
export async function isSettled(scope: string, attempt: string | null, now = Date.now()): Promise<boolean> {
  if (!attempt || !ATTEMPT.test(attempt)) return false;
  const mark = await db.settledAttempt.findUnique({
    where: { key: keyOf(`${scope}\n${attempt}`) },
    select: { expiresAt: true },
  });
  return mark !== null && mark.expiresAt.getTime() > now;
}

/** Deletes expired drafts and marks; the hourly housekeeping calls it. */
export async function deleteExpiredDrafts(now = Date.now()): Promise<number> {
  const cutoff = new Date(now);
  const [drafts, marks] = await Promise.all([
    db.visitorDraft.deleteMany({ where: { expiresAt: { lte: cutoff } } }),
    db.settledAttempt.deleteMany({ where: { expiresAt: { lte: cutoff } } }),
  ]);
  return drafts.count + marks.count;
}

export function startDraftCleanup(): { stop: () => Promise<void> } {
  return every(60 * 60_000, "visitor draft clean-up", () => deleteExpiredDrafts());
}

/** The scope of a lead form's drafts. */
export function leadDraftScope(formId: string): string {
  return `lead-form:${formId}`;
}

/** The scope of the public support form's drafts. */
export const SUPPORT_DRAFT_SCOPE = "support-request";
