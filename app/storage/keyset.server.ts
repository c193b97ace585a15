// The one keyset cursor and the one calendar-day filter of every list (leads, forms,
// support requests). A cursor is the (time, id) of the last row of a page, opaque to
// clients; anything that is not one we gave out is refused with 422 naming `cursor`,
// never passed to the database (PostgreSQL and JavaScript disagree past year 9999).
import { z } from "zod";
import { invalidFields } from "../utils/domain-error";

/** The years a date filter or cursor may name: both databases and Date agree on these. */
export const MIN_YEAR = 1970;
export const MAX_YEAR = 9998;

export type KeysetPosition = { at: Date; id: string };

const ISO = /^(\d{4})-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ID = /^[A-Za-z0-9_-]{1,64}$/;

export function encodeCursor(position: KeysetPosition): string {
  return Buffer.from(`${position.at.toISOString()}|${position.id}`, "utf8").toString("base64url");
}

/** The position a cursor names, or null when it is not one this service gave out. */
export function decodeCursor(value: string): KeysetPosition | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(value)) return null;
  const [iso, id, extra] = Buffer.from(value, "base64url").toString("utf8").split("|");
  if (extra !== undefined || !iso || !id || !ID.test(id)) return null;
  const year = Number(ISO.exec(iso)?.[1]);
  if (!(year >= MIN_YEAR && year <= MAX_YEAR)) return null;
  const at = new Date(iso);
  if (Number.isNaN(at.getTime()) || at.toISOString() !== iso) return null;
  return { at, id };
}

export const INVALID_CURSOR = "Use the nextCursor of a previous page.";

/** decodeCursor, or 422 naming `cursor`. */
export function decodeCursorOrFail(value: string): KeysetPosition {
  const position = decodeCursor(value);
  if (!position) {
    throw invalidFields([{ path: "cursor", message: INVALID_CURSOR }], "The query has invalid parameters.");
  }
  return position;
}

/** A `YYYY-MM-DD` that is a real calendar day between MIN_YEAR and MAX_YEAR. */
export const DaySchema = z
  .string()
  .trim()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "Use a date as YYYY-MM-DD.")
  .refine((value) => {
    const date = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
  }, "Use a real date as YYYY-MM-DD.")
  .refine((value) => {
    const year = Number(value.slice(0, 4));
    return year >= MIN_YEAR && year <= MAX_YEAR;
  }, `Use a date between the years ${MIN_YEAR} and ${MAX_YEAR}.`);
