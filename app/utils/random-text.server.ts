// Random text for ids on hot paths: bytes are drawn from the CSPRNG 4 KiB at a time, not
// once per id (the submit endpoint makes one or more ids per request).
import { randomBytes } from "node:crypto";

let pool = Buffer.alloc(0);
let offset = 0;

/** `bytes` random bytes as text in `encoding`. */
export function randomText(bytes: number, encoding: "hex" | "base64url"): string {
  if (offset + bytes > pool.length) {
    pool = randomBytes(4096);
    offset = 0;
  }
  return pool.toString(encoding, offset, (offset += bytes));
}

/**
 * An id that sorts by creation time: `prefix`, the time in base 36 (8 characters until
 * 2059), then 8 random bytes. New rows land at the right edge of their primary-key index,
 * so a commit dirties one leaf page of it rather than a random one (about half the cost of
 * a batch of webhook events on SQLite, measured).
 */
export function timeOrderedId(prefix: string, encoding: "hex" | "base64url" = "base64url"): string {
  return `${prefix}${Date.now().toString(36)}${randomText(8, encoding)}`;
}
