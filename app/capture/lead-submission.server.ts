// Reading a submission's body (JSON, URL-encoded or multipart) into one shape, before
// the form is known. Validation against the form is lead-capture.server.ts's.
import { CAPTCHA_WIDGETS } from "~/forms/captcha-widgets";
import { HttpUrlSchema, RESERVED_FIELD_KEYS, type SubmissionMode } from "~/forms/schema/form-schema";
import { PROGRESS_FIELD } from "~/forms/schema/form-steps";
import { DomainError, invalidFields, parseJson } from "~/utils/domain-error";
import { HONEYPOT_FIELD, PARTIAL_FIELD, UTM_KEYS } from "../leads/lead-fields";
import { RETRY_FIELD, TIMESTAMP_FIELD } from "./lead-signatures.server";

/**
 * Fields of a form post that describe the submission rather than the lead. Field keys
 * cannot take these names (RESERVED_FIELD_KEYS in form-schema.ts; the spam markers
 * start with "_", which no key can).
 */
const CAPTCHA_FIELDS = Object.values(CAPTCHA_WIDGETS).map((widget) => widget.field);
const META_FIELDS = new Set<string>([
  ...RESERVED_FIELD_KEYS,
  HONEYPOT_FIELD,
  TIMESTAMP_FIELD,
  RETRY_FIELD,
  PROGRESS_FIELD,
  PARTIAL_FIELD,
  ...CAPTCHA_FIELDS,
]);

type FormValue = string | string[];

export type Submission = {
  mode: SubmissionMode;
  formId: string;
  /** The lead's field values, not yet validated. */
  data: unknown;
  /** Tracking values and spam markers as sent, not yet validated. */
  utm: unknown;
  referrerUrl: unknown;
  landingPageUrl: unknown;
  honeypot: unknown;
  timestamp: unknown;
  /** A CAPTCHA widget's token: `captchaToken` in JSON, the provider's own field in a form post. */
  captchaToken?: string;
  /** The signature of the errors page a plain post was sent from, after a refusal. */
  retryOf?: string;
  /** The progress token of a form in steps posted without JavaScript (step-progress.server.ts). */
  progress?: string;
  /** The partial lead this submission completes (`partialId` in JSON, `_partialId` in a form post). */
  partialId?: string;
  /** Top-level keys of a JSON body that the payload does not know. */
  unknownKeys: string[];
};

const JSON_KEYS = new Set([
  "formId",
  "data",
  "utm",
  "referrerUrl",
  "landingPageUrl",
  "captchaToken",
  "partialId",
  HONEYPOT_FIELD,
  TIMESTAMP_FIELD,
]);

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function formIdOrFail(value: unknown): string {
  const formId = typeof value === "string" ? value.trim() : "";
  if (!formId) {
    throw invalidFields([{ path: "formId", message: "Name the form: formId is required." }]);
  }
  return formId;
}

/** The first value of a repeated form field (for the single-valued meta fields). */
function first(value: FormValue | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

type SubmissionKind = "json" | "urlencoded" | "multipart";

/** What kind of submission a Content-Type announces; unsupported_media_type for any other. */
export function submissionKind(contentType: string): SubmissionKind {
  const type = contentType.split(";")[0].trim().toLowerCase();
  if (type === "application/json" || type.endsWith("+json")) return "json";
  if (type === "application/x-www-form-urlencoded") return "urlencoded";
  if (type === "multipart/form-data") return "multipart";
  throw new DomainError(
    "unsupported_media_type",
    "Send the submission as application/json, application/x-www-form-urlencoded or multipart/form-data.",
  );
}

/**
 * Reads a submission body: JSON (`{formId, data, utm?, referrerUrl?, landingPageUrl?}`),
 * or a form post (URL-encoded or multipart) where `formId`, the `utm_*` values,
 * `referrerUrl`, `landingPageUrl` and the spam markers are fields and every other field
 * is the lead's data (a repeated field becomes a list; file parts are ignored).
 * Refuses another content type, malformed JSON or multipart and a missing formId.
 * `referer` stands in for the landing page of a plain form post that names none.
 */
export async function parseSubmission(input: {
  contentType: string;
  /** The body's text, or a multipart post's text fields already read. */
  body: string | ReadonlyArray<readonly [string, string]>;
  referer: string | null;
}): Promise<Submission> {
  const kind = submissionKind(input.contentType);
  const text = input.body;

  if (kind === "json") {
    const body = parseJson(typeof text === "string" ? text : "");
    if (!isPlainObject(body)) {
      throw invalidFields([{ path: "(body)", message: "Send a JSON object with formId and data." }]);
    }
    return {
      mode: "json",
      formId: formIdOrFail(body.formId),
      data: body.data,
      utm: body.utm,
      referrerUrl: body.referrerUrl,
      landingPageUrl: body.landingPageUrl,
      honeypot: body[HONEYPOT_FIELD],
      timestamp: body[TIMESTAMP_FIELD],
      captchaToken: typeof body.captchaToken === "string" ? body.captchaToken : undefined,
      partialId: typeof body.partialId === "string" ? body.partialId : undefined,
      unknownKeys: Object.keys(body).filter((key) => !JSON_KEYS.has(key)),
    };
  }

  const fields: Record<string, FormValue> = Object.create(null);
  const add = (key: string, value: string) => {
    const existing = fields[key];
    if (existing === undefined) fields[key] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else fields[key] = [existing, value];
  };
  if (typeof text !== "string") {
    // A multipart post, read as it streamed in (lead-uploads.server.ts): its text fields.
    for (const [key, value] of text) add(key, value);
  } else if (kind === "urlencoded") {
    for (const [key, value] of new URLSearchParams(text)) add(key, value);
  } else {
    let parsed: FormData;
    try {
      parsed = await new Response(text, { headers: { "Content-Type": input.contentType } }).formData();
    } catch {
      throw new DomainError("malformed_body", "The multipart body is malformed.");
    }
    for (const [key, value] of parsed) if (typeof value === "string") add(key, value);
  }

  // Null prototypes: a posted "__proto__" or "constructor" is a plain key, nothing more.
  const data: Record<string, FormValue> = Object.create(null);
  const utm: Record<string, string | undefined> = Object.create(null);
  for (const key in fields) {
    if (!META_FIELDS.has(key)) data[key] = fields[key];
  }
  for (const key of UTM_KEYS) utm[key] = first(fields[key]);
  return {
    mode: "form",
    formId: formIdOrFail(first(fields.formId)),
    data,
    utm,
    referrerUrl: first(fields.referrerUrl),
    // A plain HTML form on a site without the embed script sends no landing page (the
    // hosted page and the script always do): the page the form was posted from
    // (Referer; only its origin when the site's referrer policy trims it) stands in.
    landingPageUrl: fields.landingPageUrl !== undefined ? first(fields.landingPageUrl) : refererUrl(input.referer),
    honeypot: first(fields[HONEYPOT_FIELD]),
    timestamp: first(fields[TIMESTAMP_FIELD]),
    retryOf: first(fields[RETRY_FIELD]),
    progress: first(fields[PROGRESS_FIELD]),
    partialId: first(fields[PARTIAL_FIELD]),
    captchaToken: CAPTCHA_FIELDS.map((name) => first(fields[name])).find(Boolean),
    unknownKeys: [],
  };
}

function refererUrl(referer: string | null): string | undefined {
  if (!referer) return undefined;
  return HttpUrlSchema.safeParse(referer).success ? referer : undefined;
}
