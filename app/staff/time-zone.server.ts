// The time zones a staff user may choose (/account) and the browser's zone taken as the
// default at first login. The list is this server's (Intl.supportedValuesOf): the page
// renders it from the loader, so the browser's own list never has to agree with it.
import { z } from "zod";

/** "UTC" first (Node's list leaves it out), then every IANA zone the server knows. */
export const TIME_ZONES: readonly string[] = [
  "UTC",
  ...Intl.supportedValuesOf("timeZone").filter((zone) => zone !== "UTC"),
];
const KNOWN = new Set(TIME_ZONES);

/**
 * A zone as the list spells it, or null. A browser may report a name the server's ICU
 * spells otherwise ("Asia/Kolkata" for "Asia/Calcutta", "Etc/UTC" for "UTC"); such a name
 * is taken in the list's spelling.
 */
export function canonicalTimeZone(value: unknown): string | null {
  if (typeof value !== "string" || value.length === 0 || value.length > 64) return null;
  if (KNOWN.has(value)) return value;
  try {
    const resolved = new Intl.DateTimeFormat("en-US", { timeZone: value }).resolvedOptions().timeZone;
    return KNOWN.has(resolved) ? resolved : null;
  } catch {
    return null;
  }
}

export const TimeZoneSchema = z.object({
  timeZone: z
    .string({ error: "Choose a time zone from the list." })
    .refine((value) => KNOWN.has(value), "Choose a time zone from the list."),
});
