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
