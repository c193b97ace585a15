// What the domain code (app/models) throws when the caller's input or the state of the data
// refuses an operation: a code, a message a person can act on, and the fields at fault.
// No HTTP here: api.server.ts turns it into the API's error shape (statusOf), and pages
// show its details next to their fields. Anything else thrown is a failure of ours.
import { textPolicyIssues, type TextIssue } from "./text-policy";
import type { z } from "zod";

export type ErrorDetail = { path: string; message: string };

export type DomainErrorCode =
  | "validation_failed"
  | "malformed_json"
  | "malformed_body"
  | "unsupported_media_type"
  | "not_found"
  | "form_not_found"
  | "ticket_not_found"
  | "ticket_reference_missing"
  | "field_not_found"
  | "form_archived"
  | "forbidden"
  | "password_required"
  | "gone"
  | "conflict"
  | "version_conflict"
  | "form_has_leads"
  | "payload_too_large"
  | "rate_limited"
  | "captcha_failed";

export class DomainError extends Error {
  override readonly name = "DomainError";

  constructor(
    readonly code: DomainErrorCode,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
  }

  /** Plain data, for crossing to another thread (app/workers/). */
  toJSON(): { code: DomainErrorCode; message: string; details: ErrorDetail[] } {
    return { code: this.code, message: this.message, details: this.details };
  }
}

/** Too many tries from one address or for one recipient: try again after `retryAfterSeconds`. */
export class RateLimited extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super("rate_limited", message);
  }
}

export function invalidFields(details: ErrorDetail[], message = "The request has invalid fields."): DomainError {
  return new DomainError("validation_failed", message, details);
}

export const UNKNOWN_FIELD = "Unknown field: check its spelling, or leave it out.";

/**
 * One detail per bad field. An unknown key of a strict object is named itself
 * (`filter.formid`), not its object: the caller sees which key to fix.
 */
export function zodDetails(error: z.ZodError, prefix?: string): ErrorDetail[] {
  return error.issues.flatMap((issue) => {
    const path = [prefix, ...issue.path.map(String)].filter(Boolean).join(".");
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({ path: path ? `${path}.${key}` : key, message: UNKNOWN_FIELD }));
    }
    return [{ path: path || "(body)", message: issue.message }];
  });
}

export function textPolicyDetails(issues: TextIssue[], prefix?: string): ErrorDetail[] {
  return issues.map((issue) => ({
    path: [prefix, ...issue.path.map(String)].filter(Boolean).join(".") || "(body)",
    message: issue.message,
  }));
}

export type Checked<T> = { ok: true; value: T } | { ok: false; details: ErrorDetail[] };

/**
 * Parses a value with a schema after the text policy (a control character is refused like
 * any bad value, and never reaches a database): for a page that shows the details itself.
 */
export function checkInput<S extends z.ZodType>(schema: S, value: unknown, prefix?: string): Checked<z.output<S>> {
  const refused = textPolicyIssues(value);
  if (refused.length > 0) return { ok: false, details: textPolicyDetails(refused, prefix) };
  const result = schema.safeParse(value);
  return result.success ? { ok: true, value: result.data } : { ok: false, details: zodDetails(result.error, prefix) };
}

/** Parses a value with a schema (after the text policy), or throws validation_failed naming every bad field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, prefix?: string): z.output<S> {
  const checked = checkInput(schema, value, prefix);
  if (!checked.ok) throw invalidFields(checked.details);
  return checked.value;
}

/** JSON text as a value, or malformed_json. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new DomainError("malformed_json", "The body is not valid JSON.");
  }
}
