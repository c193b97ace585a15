// The HMACs of public capture, keyed with SESSION_SECRET: the hosted page's signed render
// time (a submission sooner than MIN_SUBMIT_MS after it is "fast", one sign of spam), the field errors carried
// back to the hosted page after a refused plain post, and the client address hash that
// groups abuse without storing an address.
import { createHmac, timingSafeEqual } from "node:crypto";
import { env } from "~/utils/env.server";

/** The hosted page's signed render time, `<ms>.<signature>`, for the time-to-submit check. */
export const TIMESTAMP_FIELD = "_ts";
/** A post sent from a refused post's errors page carries that page's attempt id (see markSettled). */
export const RETRY_FIELD = "_retry";
/** A hosted-page submission sent sooner than this after the page was rendered is "fast" (see isSpamBySignals). */
export const MIN_SUBMIT_MS = 3_000;

/** The hosted page's timestamp field value for a form rendered now. */
export function signTimestamp(formId: string, renderedAt = Date.now()): string {
  return `${renderedAt}.${timestampSignature(formId, renderedAt)}`;
}

function timestampSignature(formId: string, ms: number): string {
  return createHmac("sha256", env.SESSION_SECRET)
    .update(`lead-ts\u0000${formId}\u0000${ms}`)
    .digest("base64url")
    .slice(0, 32);
}

/** What a submission's timestamp field says: not timed, sent by a person's pace, too fast, or not ours. */
export type TimestampVerdict = "untimed" | "ok" | "fast" | "forged";

/**
 * A timestamp field that is present must be ours (signed for this form or scope); one
 * younger than MIN_SUBMIT_MS is "fast". Forms without the field (the embed script, plain
 * HTML forms, the API) are "untimed".
 */
export function timestampVerdict(formId: string, value: unknown, now: number): TimestampVerdict {
  if (value === undefined || value === null || value === "") return "untimed";
  if (typeof value !== "string") return "forged";
  const match = /^(\d{1,15})\.([A-Za-z0-9_-]{32})$/.exec(value);
  if (!match) return "forged";
  const ms = Number(match[1]);
  const expected = Buffer.from(timestampSignature(formId, ms));
  const given = Buffer.from(match[2]);
  if (!timingSafeEqual(expected, given)) return "forged";
  return now - ms < MIN_SUBMIT_MS ? "fast" : "ok";
}

/**
 * Whether a public submission is spam, from its signals. A filled honeypot or a timestamp
 * that is not ours is proof alone. Speed is not: browsers' autofill and password managers
 * let people send a form within 3 s, so a fast post is spam only with another sign of a
 * script (a User-Agent that is missing or names a bot or a tool).
 */
export function isSpamBySignals(signals: {
  honeypotFilled: boolean;
  timestamp: TimestampVerdict;
  scriptedAgent: boolean;
}): boolean {
  if (signals.honeypotFilled || signals.timestamp === "forged") return true;
  return signals.timestamp === "fast" && signals.scriptedAgent;
}

/** HMAC-SHA256 of the client address keyed with SESSION_SECRET, hex: groups abuse, stores no address. */
// A busy form hears from the same addresses again and again: remember recent hashes.
const ipHashes = new Map<string, string>();
export function hashIp(ip: string): string {
  let hash = ipHashes.get(ip);
  if (hash === undefined) {
    hash = createHmac("sha256", env.SESSION_SECRET).update(ip).digest("hex");
    if (ipHashes.size >= 10_000) ipHashes.clear();
    ipHashes.set(ip, hash);
  }
  return hash;
}

/** `?errors=...&sig=...` for the hosted page: signed, so nobody can make our page show their text. */
export function signErrors(formId: string, errors: Record<string, string>): { errors: string; sig: string } {
  const encoded = JSON.stringify(errors);
  return { errors: encoded, sig: errorsSignature(formId, encoded) };
}

function errorsSignature(formId: string, encoded: string): string {
  return createHmac("sha256", env.SESSION_SECRET)
    .update(`lead-errors\u0000${formId}\u0000${encoded}`)
    .digest("base64url")
    .slice(0, 32);
}

/** The field messages of a signed `errors` parameter, or null when it is missing or forged. */
export function readSignedErrors(
  formId: string,
  encoded: string | null,
  sig: string | null,
): Record<string, string> | null {
  if (!encoded || !sig || encoded.length > 8_000) return null;
  const expected = Buffer.from(errorsSignature(formId, encoded));
  const given = Buffer.from(sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  try {
    const parsed = JSON.parse(encoded);
    if (!isPlainObject(parsed)) return null;
    return Object.fromEntries(
      Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
    );
  } catch {
    return null;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
