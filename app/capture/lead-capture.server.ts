// Public lead capture: validating a submission against its form, the spam defences, the
// per-address limit, and storing the lead with its source. This is the hot path of the
// service (every website's traffic), so a submission costs one indexed form lookup at
// most (usually none: the form cache in public-form.server.ts), one validation with a
// cached validator, and one INSERT. Reading the body is lead-submission.server.ts's; the
// HMACs are lead-signatures.server.ts's. See docs/api/lead-capture.md for the public rules.
import { z } from "zod";
import { HttpUrlSchema, isReservedFieldKey, type LeadData } from "~/forms/schema/form-schema";
import { leadEmail, leadSearchText } from "~/forms/schema/lead-values";
import { db, isUniqueViolation } from "~/storage/db.server";
import { leadStore, type NewLead } from "~/storage/index.server";
import { invalidFields, textPolicyDetails, type ErrorDetail } from "~/utils/domain-error";
import { env } from "~/utils/env.server";
import { timeOrderedId } from "~/utils/random-text.server";
import { consumeOrFail, createRateLimiter } from "~/utils/rate-limit.server";
import { textPolicyIssues } from "~/utils/text-policy";
import { leadDetailOf, type LeadDetail } from "../leads/lead-detail.server";
import { UTM_KEYS, type UtmKey } from "../leads/lead-fields";
import { personName } from "../leads/lead-name";
import { leadNotifications } from "../notifications/notifications.server";
import { kickOutbox, type StaffEmail } from "../notifications/outbox.server";
import { nudgeWebhooks } from "../webhooks/webhook-delivery.server";
import { leadCreatedEvent } from "../webhooks/webhook-events.server";
import { acceptedConsents } from "./consent-records.server";
import { confirmationEmail } from "./lead-confirmation.server";
import { hashIp, isSpamBySignals, timestampVerdict } from "./lead-signatures.server";
import { isPlainObject, type Submission } from "./lead-submission.server";
import { leadValidator, type PublicForm } from "./public-form.server";
import { isBotAgent } from "./views/form-views.server";

/** The largest submission body, in bytes (413 past it). */
export const SUBMISSION_BODY_LIMIT = 64 * 1024;

const UTM_MAX_LENGTH = 200;
const USER_AGENT_MAX_LENGTH = 512;
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,200}$/;

// ---------------------------------------------------------------------------
// The rate limit
// ---------------------------------------------------------------------------

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

/** Counts a step's post without JavaScript (a budget of its own beside the submissions'). */
export async function limitStepPosts(formId: string, ip: string): Promise<void> {
  if (!submitLimiter) return;
  await consumeOrFail(
    submitLimiter,
    `${formId}|${ip}|steps`,
    "Too many steps from your address. Try again in a minute.",
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

/**
 * Validates a submission against the form's current schema and the tracking rules:
 * 422 with one detail per bad field (`data.<key>`, `utm.<key>`, `referrerUrl`, ...).
 * Spam (isSpamBySignals: a filled honeypot, a forged timestamp, or a too-fast post from a
 * scripted User-Agent) is not refused: the lead is marked as spam and the caller answers
 * as for any lead, so a bot learns nothing.
 */
export function validateSubmission(
  form: PublicForm,
  submission: Submission,
  now = Date.now(),
  userAgent: string | null = null,
  dataSchema: z.ZodType<LeadData> = leadValidator(form, submission.mode),
): ValidLead {
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
    const result = dataSchema.safeParse(own);
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
    isSpam: isSpamBySignals({
      honeypotFilled,
      timestamp: timestampVerdict(form.id, submission.timestamp, now),
      scriptedAgent: !userAgent || isBotAgent(userAgent),
    }),
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

const NO_EMAILS: StaffEmail[] = [];

export type StoredLead = { id: string; formId: string; createdAt: Date; awaitingConfirmation?: boolean };

/** A cuid-shaped id (25 characters, time first), like the ones Prisma makes for other rows. */
function newLeadId(): string {
  return timeOrderedId("c", "hex");
}

// The one INSERT of a lead goes through the LeadStore, in the driver under Prisma: Prisma's
// client costs about 1 ms per create here, ten times this whole endpoint's budget
// (docs/decisions/003-*).
type LeadMeta = {
  ip: string;
  userAgent: string | null;
  idempotencyKey: string | null;
  /** The stored key of the partial lead this one finishes: deleted in the lead's transaction. */
  completesPartial?: string | null;
  /** The ids of the files uploaded with it (written unlinked), linked in its transaction. */
  files?: readonly string[];
};

async function insertLead(lead: ValidLead, form: PublicForm, meta: LeadMeta): Promise<StoredLead> {
  const stored: StoredLead = { id: newLeadId(), formId: lead.formId, createdAt: new Date() };
  const { source } = lead;
  // Named one by one (no spread): one object shape on the hot path.
  const row: NewLead = {
    id: stored.id,
    formId: lead.formId,
    schemaVersion: lead.schemaVersion,
    data: lead.data,
    searchText: leadSearchText(lead.data),
    utmSource: source.utmSource,
    utmMedium: source.utmMedium,
    utmCampaign: source.utmCampaign,
    utmTerm: source.utmTerm,
    utmContent: source.utmContent,
    referrerUrl: source.referrerUrl,
    referrerHost: source.referrerHost,
    landingPageUrl: source.landingPageUrl,
    userAgent: meta.userAgent ? meta.userAgent.slice(0, USER_AGENT_MAX_LENGTH) : null,
    ipHash: hashIp(meta.ip),
    isSpam: lead.isSpam,
    idempotencyKey: meta.idempotencyKey,
    createdAt: stored.createdAt,
    email: leadEmail(lead.data, form.fields),
    awaitingConfirmation: false,
    personName: null,
  };
  // Its person's name (decision 071), only when it names one.
  if (row.email) row.personName = personName(lead.data, form.fields);
  // What the visitor agreed to (decision 065), written in the lead's own transaction.
  const consents = acceptedConsents(form, lead.data, stored.createdAt, row.ipHash);
  // Double opt-in (decision 067): the visitor confirms the address first; until then the lead
  // announces nothing, and the one email it sends is the confirmation link to that address.
  if (form.settings.doubleOptIn && row.email && !lead.isSpam) {
    row.awaitingConfirmation = stored.awaitingConfirmation = true;
    await leadStore.insert(
      row,
      null,
      [confirmationEmail({ ...row, email: row.email }, form.name)],
      meta.completesPartial,
      consents,
      meta.files,
    );
    kickOutbox();
    return stored;
  }
  // lead.created for the subscribed endpoints, and the form's instant notification emails
  // (neither: nothing more is written). Spam is kept for review but announced to no one.
  // The event's body is built by the webhook worker, from the stored lead (decision 028).
  let detail: LeadDetail | undefined;
  const detailOf = () => (detail ??= leadDetailOf({ ...row, formName: form.name, fields: form.fields }));
  const event = lead.isSpam ? null : await leadCreatedEvent(lead.formId, stored.createdAt);
  const emails = lead.isSpam ? NO_EMAILS : leadNotifications(form.settings.notifications, detailOf);
  await leadStore.insert(row, event, emails, meta.completesPartial, consents, meta.files);
  if (event) nudgeWebhooks();
  if (emails.length > 0) kickOutbox();
  return stored;
}

/**
 * Stores a lead in one INSERT. With an idempotency key, a second submission for the
 * same form finds the first lead instead (`replayed: true`); the unique index on
 * (formId, idempotencyKey) decides, so concurrent retries store exactly one.
 */
export async function storeLead(
  lead: ValidLead,
  form: PublicForm,
  meta: LeadMeta,
): Promise<{ lead: StoredLead; replayed: boolean }> {
  for (let attempt = 0; ; attempt++) {
    try {
      return { lead: await insertLead(lead, form, meta), replayed: false };
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
