// One policy for text that comes from outside (docs/input-policy.md): control
// characters other than tab, newline and carriage return, and lone UTF-16 surrogates,
// are refused in submitted values with a 422 naming the field. They are invisible to
// people, PostgreSQL cannot store NUL, and a lone surrogate is not valid UTF-8.
// Client-safe: the browser form validation may use it too.

const FORBIDDEN_TEXT =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const FORBIDDEN_TEXT_GLOBAL = new RegExp(FORBIDDEN_TEXT.source, "g");

// XML 1.0 allows tab, newline, CR and U+0020 up; not U+FFFE, U+FFFF or lone surrogates.
const XML_ILLEGAL =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export const FORBIDDEN_TEXT_MESSAGE = "Remove the control characters or broken characters from this value.";

export function hasForbiddenText(value: string): boolean {
  return FORBIDDEN_TEXT.test(value);
}

/** The value with forbidden characters removed, where refusing is wrong (inbound email). */
export function stripForbiddenText(value: string): string {
  return value.replace(FORBIDDEN_TEXT_GLOBAL, "");
}

/** The value with every character XML 1.0 forbids removed (cells of an Excel file). */
export function xmlSafeText(value: string): string {
  return value.replace(XML_ILLEGAL, "");
}

/** A copy of `value` with forbidden characters removed from every string and key. */
export function stripForbiddenDeep(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return stripForbiddenText(value);
  if (value === null || typeof value !== "object" || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => stripForbiddenDeep(item, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [stripForbiddenText(key), stripForbiddenDeep(item, depth + 1)]),
  );
}

export type TextIssue = { path: (string | number)[]; message: string };

const MAX_DEPTH = 64;

/** Whether any string or key in `value` breaks the policy (no allocation: the common case). */
function breaksPolicy(value: unknown, depth: number): boolean {
  if (typeof value === "string") return FORBIDDEN_TEXT.test(value);
  if (value === null || typeof value !== "object" || depth > MAX_DEPTH) return false;
  if (Array.isArray(value)) return value.some((item) => breaksPolicy(item, depth + 1));
  for (const key in value) {
    if (FORBIDDEN_TEXT.test(key) || breaksPolicy((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

/** Every string (and object key) in `value` that breaks the policy, with its path. */
export function textPolicyIssues(value: unknown, path: (string | number)[] = [], depth = 0): TextIssue[] {
  if (depth === 0 && !breaksPolicy(value, 0)) return [];
  if (typeof value === "string") return hasForbiddenText(value) ? [{ path, message: FORBIDDEN_TEXT_MESSAGE }] : [];
  if (value === null || typeof value !== "object" || depth > MAX_DEPTH) return [];
  const issues: TextIssue[] = [];
  if (Array.isArray(value)) {
    value.forEach((item, index) => issues.push(...textPolicyIssues(item, [...path, index], depth + 1)));
    return issues;
  }
  for (const [key, item] of Object.entries(value)) {
    if (hasForbiddenText(key))
      issues.push({ path: [...path, stripForbiddenText(key)], message: FORBIDDEN_TEXT_MESSAGE });
    else issues.push(...textPolicyIssues(item, [...path, key], depth + 1));
  }
  return issues;
}

/**
 * PostgreSQL refused a NUL character in a value (22021, "invalid byte sequence"): text no
 * column can hold, which SQLite takes and finds nothing with. The input policy refuses
 * control characters where input is parsed; this names what one that slipped past does.
 */
export function isNulRefusal(error: unknown): boolean {
  const codeOf = (value: unknown) =>
    typeof value === "object" && value !== null ? (value as { code?: unknown; cause?: unknown }) : {};
  const { code, cause } = codeOf(error);
  return code === "22021" || codeOf(cause).code === "22021";
}

/** What a request whose value holds a NUL is told (400), on a page or in the API. */
export const NUL_REFUSED = "The request holds a NUL character, which no value here can hold.";
