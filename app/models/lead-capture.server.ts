// Public lead capture: reading a submission (JSON, URL-encoded or multipart), finding
// its form, the spam defences, and storing the lead with its source. This is the hot
// path of the service (every website's traffic), so a submission costs one indexed
// form lookup at most (usually none: see the form cache below), one validation with a
// cached validator, and one INSERT. See docs/api/lead-capture.md for the public rules.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import {
  FieldsSchema,
  FormSettingsSchema,
  HttpUrlSchema,
  RESERVED_FIELD_KEYS,
  buildLeadDataSchema,
  isReservedFieldKey,
  leadSearchText,
  type FormField,
  type FormSettings,
  type LeadData,
  type SubmissionMode,
} from "~/models/form-schema";
import { leadStore } from "~/storage/index.server";
import { db, isUniqueViolation } from "~/utils/db.server";
import { DomainError, invalidFields, parseJson, textPolicyDetails, type ErrorDetail } from "~/utils/domain-error";
import { env } from "~/utils/env.server";
import { consumeOrFail, createRateLimiter } from "~/utils/rate-limit.server";
import { hasForbiddenText, textPolicyIssues } from "~/utils/text-policy";
import { HONEYPOT_FIELD, UTM_KEYS, type UtmKey } from "./lead-fields";

/** Largest body the submit endpoint reads (64 KiB); more is refused with 413. */
/** The largest submission body, in bytes (413 past it). */
export const SUBMISSION_BODY_LIMIT = 64 * 1024;

export { HONEYPOT_FIELD, UTM_KEYS, type UtmKey };
/** The hosted page's signed render time, `<ms>.<signature>`, for the time-to-submit check. */
export const TIMESTAMP_FIELD = "_ts";
/** A hosted-page submission sent sooner than this after the page was rendered is spam. */
export const MIN_SUBMIT_MS = 3_000;

const UTM_MAX_LENGTH = 200;
const USER_AGENT_MAX_LENGTH = 512;
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,200}$/;

/**
 * Fields of a form post that describe the submission rather than the lead. Field keys
 * cannot take these names (RESERVED_FIELD_KEYS in form-schema.ts; the spam markers
 * start with "_", which no key can).
 */
const META_FIELDS = new Set<string>([...RESERVED_FIELD_KEYS, HONEYPOT_FIELD, TIMESTAMP_FIELD]);

// ---------------------------------------------------------------------------
// Forms as the public side sees them, cached in process memory.
//
// A form's fields, settings and status are read at most once per FORM_CACHE_TTL_MS per
// process. A change made in this process (archive, new schema) is seen at once when
// the forms module calls forgetCachedForm; a change made by another instance is seen
// within the TTL. Unknown ids are cached too, so a flood of made-up ids cannot turn
// into a flood of queries. The validators are cached per (form, schema version).
// ---------------------------------------------------------------------------

const FORM_CACHE_TTL_MS = 3_000;
const FORM_CACHE_MAX = 5_000;
const FORM_ID_MAX_LENGTH = 100;

export type PublicForm = {
  id: string;
  name: string;
  description: string;
  status: "active" | "archived";
  schemaVersion: number;
  fields: FormField[];
  settings: FormSettings;
  allowedOrigins: ReadonlySet<string>;
};

const formCache = new Map<string, { expiresAt: number; form: Promise<PublicForm | null> }>();
const validatorCache = new Map<string, z.ZodType<LeadData>>();

async function loadPublicForm(id: string): Promise<PublicForm | null> {
  const row = await db.form.findUnique({
    where: { id },
    select: {
      id: true,
      name: true,
      description: true,
      status: true,
      schemaVersion: true,
      fields: true,
      settings: true,
    },
  });
  if (!row) return null;
  // The forms module validated the fields when it wrote them; a list written under
  // older rules (say, before a key became reserved) is still used as it is.
  const parsedFields = FieldsSchema.safeParse(row.fields);
  const fields = parsedFields.success ? parsedFields.data : (row.fields as FormField[]);
  const parsedSettings = FormSettingsSchema.safeParse(row.settings ?? {});
  const settings = parsedSettings.success ? parsedSettings.data : FormSettingsSchema.parse({});
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    status: row.status,
    schemaVersion: row.schemaVersion,
    fields,
    settings,
    allowedOrigins: new Set(settings.allowedOrigins),
  };
}

/** The form with this id (cached for a few seconds), or null. */
export function getPublicForm(id: string): Promise<PublicForm | null> {
  // No form id holds a control character, and PostgreSQL refuses a NUL outright.
  if (id.length === 0 || id.length > FORM_ID_MAX_LENGTH || hasForbiddenText(id)) return Promise.resolve(null);
  const now = Date.now();
  const cached = formCache.get(id);
  if (cached && cached.expiresAt > now) return cached.form;
  if (cached) formCache.delete(id);
  else if (formCache.size >= FORM_CACHE_MAX) formCache.delete(formCache.keys().next().value!);
  // Concurrent requests for the same form share one query.
  const entry = { expiresAt: now + FORM_CACHE_TTL_MS, form: loadPublicForm(id) };
  formCache.set(id, entry);
  // A failed read is not remembered: the next request tries again.
  entry.form.catch(() => {
    if (formCache.get(id) === entry) formCache.delete(id);
  });
  return entry.form;
}

/** Drops a form from this process's cache, so its next submission reads it again. */
export function forgetCachedForm(id: string): void {
  formCache.delete(id);
}

function leadValidator(form: PublicForm, mode: SubmissionMode): z.ZodType<LeadData> {
  const key = `${form.id}\u0000${form.schemaVersion}\u0000${mode}`;
  let validator = validatorCache.get(key);
  if (!validator) {
    if (validatorCache.size >= FORM_CACHE_MAX) validatorCache.delete(validatorCache.keys().next().value!);
    validator = buildLeadDataSchema(form.fields, mode);
    validatorCache.set(key, validator);
  }
  return validator;
}

// ---------------------------------------------------------------------------
// Reading the body
// ---------------------------------------------------------------------------

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
  /** Top-level keys of a JSON body that the payload does not know. */
  unknownKeys: string[];
};

const JSON_KEYS = new Set(["formId", "data", "utm", "referrerUrl", "landingPageUrl", HONEYPOT_FIELD, TIMESTAMP_FIELD]);

function isPlainObject(value: unknown): value is Record<string, unknown> {
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
  body: string;
  referer: string | null;
}): Promise<Submission> {
  const kind = submissionKind(input.contentType);
  const text = input.body;

  if (kind === "json") {
    const body = parseJson(text);
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
  if (kind === "urlencoded") {
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
    unknownKeys: [],
  };
}

function refererUrl(referer: string | null): string | undefined {
  if (!referer) return undefined;
  return HttpUrlSchema.safeParse(referer).success ? referer : undefined;
}

// ---------------------------------------------------------------------------
// The form, the origin and the rate limit
// ---------------------------------------------------------------------------

/** The form a submission names: 404 when there is none, 410 when it is archived. */
export async function findOpenForm(formId: string): Promise<PublicForm> {
  const form = await getPublicForm(formId);
  if (!form) throw new DomainError("form_not_found", "There is no form with this formId.");
  if (form.status === "archived") throw new DomainError("form_archived", "This form no longer accepts submissions.");
  return form;
}

/**
 * Whether a browser on `origin` may post to this form: any origin when the form lists
 * none, the app's own pages always, otherwise only the listed ones. A request without
 * an Origin header is not from a browser page (curl, a server) and is allowed.
 */
export function isOriginAllowed(form: PublicForm, origin: string | null, ownOrigin: () => string): boolean {
  if (origin === null) return true;
  if (form.allowedOrigins.size === 0) return true;
  return form.allowedOrigins.has(origin) || origin === ownOrigin();
}

const submitLimiter =
  env.SUBMIT_RATE_LIMIT_PER_MINUTE > 0
    ? createRateLimiter({ keyPrefix: "lead-submit", points: env.SUBMIT_RATE_LIMIT_PER_MINUTE, durationSeconds: 60 })
    : null;

/** Counts a submission per client address per form: 429 with Retry-After over the limit. */
export async function limitSubmissions(formId: string, ip: string): Promise<void> {
  if (!submitLimiter) return;
  await consumeOrFail(
    submitLimiter,
    `${formId}|${ip}`,
    "Too many submissions from your address. Try again in a minute.",
  );
}

// ---------------------------------------------------------------------------
// Validation, spam checks, storage
// ---------------------------------------------------------------------------

const UtmValueSchema = z
  .string({ error: "Use text." })
  .trim()
  .max(UTM_MAX_LENGTH, `Use at most ${UTM_MAX_LENGTH} characters.`);

const UtmSchema = z
  .object(
    Object.fromEntries(UTM_KEYS.map((key) => [key, UtmValueSchema.nullish()])) as Record<
      UtmKey,
      z.ZodOptional<z.ZodNullable<typeof UtmValueSchema>>
    >,
  )
  .strict()
  .nullish();

const OptionalUrlSchema = z.preprocess(
  (value) => (value === null || (typeof value === "string" && value.trim() === "") ? undefined : value),
  HttpUrlSchema.optional(),
);

export type LeadSource = {
  utmSource: string | null;
  utmMedium: string | null;
  utmCampaign: string | null;
  utmTerm: string | null;
  utmContent: string | null;
  referrerUrl: string | null;
  referrerHost: string | null;
  landingPageUrl: string | null;
};

export type ValidLead = {
  formId: string;
  schemaVersion: number;
  data: LeadData;
  source: LeadSource;
  isSpam: boolean;
};

function detailsOf(error: z.ZodError, prefix: string | undefined): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const issue of error.issues) {
    const base = [prefix, ...issue.path.map(String)].filter(Boolean).join(".");
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        details.push({ path: base ? `${base}.${key}` : key, message: "This field is not part of the form." });
      }
    } else {
      details.push({ path: base || "(body)", message: issue.message });
    }
  }
  return details;
}

function emptyToNull(value: string | null | undefined): string | null {
  return value ? value : null;
}

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

/**
 * A timestamp field that is present must be ours (signed for this form) and older than
 * MIN_SUBMIT_MS. Forms without the field (the embed script, plain HTML forms, the API)
 * are not timed.
 */
export function isTooFastOrForged(formId: string, value: unknown, now: number): boolean {
  if (value === undefined || value === null || value === "") return false;
  if (typeof value !== "string") return true;
  const match = /^(\d{1,15})\.([A-Za-z0-9_-]{32})$/.exec(value);
  if (!match) return true;
  const ms = Number(match[1]);
  const expected = Buffer.from(timestampSignature(formId, ms));
  const given = Buffer.from(match[2]);
  if (!timingSafeEqual(expected, given)) return true;
  return now - ms < MIN_SUBMIT_MS;
}

/**
 * Validates a submission against the form's current schema and the tracking rules:
 * 422 with one detail per bad field (`data.<key>`, `utm.<key>`, `referrerUrl`, ...).
 * A filled honeypot or a too-fast hosted-page post is not refused: the lead is marked
 * as spam and the caller answers as for any lead, so a bot learns nothing.
 */
export function validateSubmission(form: PublicForm, submission: Submission, now = Date.now()): ValidLead {
  const details: ErrorDetail[] = [];
  const inForm = submission.mode === "form";

  for (const key of submission.unknownKeys) {
    details.push({ path: key, message: "This field is not part of the submission payload." });
  }
  const { data: rawData, utm: rawUtm, referrerUrl, landingPageUrl } = submission;
  details.push(
    ...textPolicyDetails(textPolicyIssues(rawData), inForm ? undefined : "data"),
    ...textPolicyDetails(textPolicyIssues(rawUtm), inForm ? undefined : "utm"),
    ...textPolicyDetails(textPolicyIssues({ referrerUrl, landingPageUrl })),
  );

  let data: LeadData = {};
  if (!isPlainObject(submission.data)) {
    details.push({ path: "data", message: "Send the lead's field values as an object keyed by field." });
  } else {
    // A form from before such keys were reserved may have a field named like an
    // Object.prototype member: it must see only the submission's own value.
    const own = form.fields.some((field) => isReservedFieldKey(field.key))
      ? Object.assign(Object.create(null) as Record<string, unknown>, submission.data)
      : submission.data;
    const result = leadValidator(form, submission.mode).safeParse(own);
    if (result.success) data = result.data;
    else details.push(...detailsOf(result.error, "data"));
  }

  let utm: Partial<Record<UtmKey, string | null>> = {};
  const utmResult = UtmSchema.safeParse(submission.utm);
  if (utmResult.success) utm = utmResult.data ?? {};
  else details.push(...detailsOf(utmResult.error, inForm ? undefined : "utm"));

  const urls: Record<"referrerUrl" | "landingPageUrl", string | null> = { referrerUrl: null, landingPageUrl: null };
  for (const key of ["referrerUrl", "landingPageUrl"] as const) {
    const result = OptionalUrlSchema.safeParse(submission[key]);
    if (result.success) urls[key] = result.data ?? null;
    else
      details.push({
        path: key,
        message: result.error.issues[0]?.message ?? "Use a full http:// or https:// address.",
      });
  }

  if (details.length > 0) {
    // One entry per bad field: zod may report several rules broken by one value.
    const seen = new Set<string>();
    const unique = details.filter((detail) => !seen.has(detail.path) && seen.add(detail.path));
    throw invalidFields(unique, "The submission has invalid fields.");
  }

  const honeypot = submission.honeypot;
  const honeypotFilled = honeypot !== undefined && honeypot !== null && String(honeypot).trim() !== "";
  return {
    formId: form.id,
    schemaVersion: form.schemaVersion,
    data,
    source: {
      utmSource: emptyToNull(utm.utm_source),
      utmMedium: emptyToNull(utm.utm_medium),
      utmCampaign: emptyToNull(utm.utm_campaign),
      utmTerm: emptyToNull(utm.utm_term),
      utmContent: emptyToNull(utm.utm_content),
      referrerUrl: urls.referrerUrl,
      referrerHost: urls.referrerUrl ? new URL(urls.referrerUrl).hostname.toLowerCase() : null,
      landingPageUrl: urls.landingPageUrl,
    },
    isSpam: honeypotFilled || isTooFastOrForged(form.id, submission.timestamp, now),
  };
}

/** An Idempotency-Key header's value: absent, or 1-200 visible ASCII characters (validation_failed otherwise). */
export function idempotencyKeyOf(value: string | null): string | null {
  if (value === null) return null;
  if (!IDEMPOTENCY_KEY.test(value)) {
    throw invalidFields([{ path: "Idempotency-Key", message: "Use 1 to 200 visible ASCII characters." }]);
  }
  return value;
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

export type StoredLead = { id: string; formId: string; createdAt: Date };

/** A cuid-shaped id (25 characters, time first), like the ones Prisma makes for other rows. */
// Random bytes are drawn 4 KiB at a time: one call to the CSPRNG per 512 ids.
let randomPool = Buffer.alloc(0);
let randomOffset = 0;
function newLeadId(): string {
  if (randomOffset + 8 > randomPool.length) {
    randomPool = randomBytes(4096);
    randomOffset = 0;
  }
  const random = randomPool.toString("hex", randomOffset, (randomOffset += 8));
  return `c${Date.now().toString(36)}${random}`;
}

// The one INSERT of a lead goes through the LeadStore, in the driver under Prisma: Prisma's
// client costs about 1 ms per create here, ten times this whole endpoint's budget
// (docs/decisions/003-*).
async function insertLead(
  lead: ValidLead,
  meta: { ip: string; userAgent: string | null; idempotencyKey: string | null },
): Promise<StoredLead> {
  const stored: StoredLead = { id: newLeadId(), formId: lead.formId, createdAt: new Date() };
  await leadStore.insert({
    ...lead.source,
    id: stored.id,
    formId: lead.formId,
    schemaVersion: lead.schemaVersion,
    data: lead.data,
    searchText: leadSearchText(lead.data),
    userAgent: meta.userAgent ? meta.userAgent.slice(0, USER_AGENT_MAX_LENGTH) : null,
    ipHash: hashIp(meta.ip),
    isSpam: lead.isSpam,
    idempotencyKey: meta.idempotencyKey,
    createdAt: stored.createdAt,
  });
  return stored;
}

/**
 * Stores a lead in one INSERT. With an idempotency key, a second submission for the
 * same form finds the first lead instead (`replayed: true`); the unique index on
 * (formId, idempotencyKey) decides, so concurrent retries store exactly one.
 */
export async function storeLead(
  lead: ValidLead,
  meta: { ip: string; userAgent: string | null; idempotencyKey: string | null },
): Promise<{ lead: StoredLead; replayed: boolean }> {
  for (let attempt = 0; ; attempt++) {
    try {
      return { lead: await insertLead(lead, meta), replayed: false };
    } catch (error) {
      if (!meta.idempotencyKey || !isUniqueViolation(error)) throw error;
      const first = await db.lead.findUnique({
        where: { formId_idempotencyKey: { formId: lead.formId, idempotencyKey: meta.idempotencyKey } },
        select: { id: true, formId: true, createdAt: true },
      });
      if (first) return { lead: first, replayed: true };
      // The first lead was deleted between our INSERT and this read: store this one.
      if (attempt >= 1) throw error;
    }
  }
}

// ---------------------------------------------------------------------------
// Errors carried back to the hosted page after a refused plain form post
// ---------------------------------------------------------------------------

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
