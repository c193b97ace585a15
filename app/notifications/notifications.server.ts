// Staff notifications by email: a form's leads (each at once, or one daily digest), new
// support requests and customer replies, and a webhook endpoint disabled for failing.
// Every one goes through the outbox (outbox.server.ts: retries, one send across
// instances), written in the same transaction as what it announces, so a crash between
// the two cannot lose it.
import { TZDate } from "@date-fns/tz";
import { every } from "~/jobs/periodic.server";
import { db, isUniqueViolation, type Prisma } from "~/storage/db.server";
import { leadDetailSelect } from "~/storage/leads/lead-detail-store.server";
import { retryWhileBusy } from "~/storage/transactions.server";
import { env } from "~/utils/env.server";
import { log } from "~/utils/log.server";
import { createRateLimiter, type RateLimiter } from "~/utils/rate-limit.server";
import {
  CONFIRMATION_VALID_DAYS,
  FormSettingsSchema,
  type LeadValue,
  type NotificationSettings,
} from "../forms/schema/form-schema";
import { listStaffEmails } from "../staff/user.server";
import { leadDetailOf, type LeadDetail } from "../webhooks/event-bodies.server";
import { kickOutbox, writeStaffEmails } from "./outbox.server";
import { staffEmails, type StaffEmail } from "./staff-emails.server";

// The staff emails themselves are built in staff-emails.server.ts and written through the
// outbox; these are what they say.
export type { StaffEmail } from "./staff-emails.server";

const link = (path: string) => `${env.APP_URL}${path}`;

/** One line per value; lists joined, yes/no for a checkbox, a dash for nothing. */
function shownValue(value: LeadValue | undefined): string {
  if (value === undefined || value === "") return "-";
  if (typeof value === "boolean") return value ? "Yes" : "No";
  if (Array.isArray(value)) return value.length > 0 ? value.join(", ") : "-";
  return String(value);
}

const LINE_BREAK = /\r\n|\r|\n|\u2028|\u2029/;
/** A visitor's text on one line: it cannot start a line of the email that looks like ours. */
const oneLine = (text: string) => text.split(LINE_BREAK).join(" ");

/**
 * A lead's fields in the form's order, and where it came from, as plain text. Every line of
 * a visitor's value is indented under its label, so no value can pass for a line of ours
 * (a link, a footer).
 */
export function leadText(lead: LeadDetail): string {
  const lines: string[] = [];
  for (const field of lead.fields) {
    const value = shownValue(lead.data[field.key]);
    if (LINE_BREAK.test(value)) {
      lines.push(`${oneLine(field.label)}:`, ...value.split(LINE_BREAK).map((line) => `  ${line}`));
    } else {
      lines.push(`${oneLine(field.label)}: ${value}`);
    }
  }
  const source = [
    ...Object.entries(lead.utm)
      .filter(([, value]) => value)
      .map(([key, value]) => `${key}: ${oneLine(String(value))}`),
    ...(lead.referrerUrl ? [`Referrer: ${oneLine(lead.referrerUrl)}`] : []),
    ...(lead.landingPageUrl ? [`Landing page: ${oneLine(lead.landingPageUrl)}`] : []),
  ];
  lines.push(
    "",
    "Source:",
    ...(source.length > 0 ? source.map((line) => `  ${line}`) : ["  direct (no UTM values or referrer)"]),
  );
  return lines.join("\n");
}

/** The lead's first filled-in email field: staff who answer the notification answer the lead. */
export function leadReplyTo(lead: LeadDetail): string | null {
  for (const field of lead.fields) {
    const value = lead.data[field.key];
    if (field.type === "email" && typeof value === "string" && value.includes("@")) return value;
  }
  return null;
}

/**
 * The instant notifications of a new lead, one per recipient, or none (spam, no recipients,
 * or a digest form). Written with the lead by the LeadStore.
 */
export function leadNotifications(notifications: NotificationSettings, leadOf: () => LeadDetail): StaffEmail[] {
  if (notifications.mode !== "instant" || notifications.recipients.length === 0) return [];
  const lead = leadOf();
  if (lead.isSpam) return [];
  return staffEmails(notifications.recipients, {
    subject: `New lead: ${lead.formName}`,
    text: [
      `A new lead arrived through the form "${lead.formName}".`,
      "",
      leadText(lead),
      "",
      `Open it: ${link(`/leads/${encodeURIComponent(lead.id)}`)}`,
      "",
      "-- ",
      "You get this because you are a notification recipient of this form. Replying answers the lead directly.",
    ].join("\n"),
    replyTo: leadReplyTo(lead),
  });
}

// ---------------------------------------------------------------------------
// Support requests

type TicketNotice = {
  reference: string;
  subject: string;
  email: string;
  name: string | null;
  /** The staff user working the ticket, told of its customer replies beside SUPPORT_NOTIFY_EMAILS. */
  assigneeEmail?: string | null;
};

// Without the "#" a staff member's reply to this email cannot be read as one to a ticket.
const bare = (text: string) => text.replace(/#/g, "").replace(/\s+/g, " ").trim().slice(0, 150);
const MESSAGE_EXCERPT = 4000;

/** To SUPPORT_NOTIFY_EMAILS: a new request, or a customer's reply to one. */
export function supportNotifications(
  kind: "created" | "reply",
  ticket: TicketNotice,
  message: { from: string; body: string; unverifiedSender?: boolean; isAutoReply?: boolean },
): StaffEmail[] {
  const recipients = [
    ...new Set([...env.SUPPORT_NOTIFY_EMAILS, ...(ticket.assigneeEmail ? [ticket.assigneeEmail] : [])]),
  ];
  if (recipients.length === 0 || message.isAutoReply) return [];
  // The address the message came from (for a reply, the email's own sender), never the
  // ticket's: a stranger writing into someone's ticket is named as themselves.
  const from = kind === "created" && ticket.name ? `${oneLine(ticket.name)} <${message.from}>` : message.from;
  // A stranger's text is not relayed from our address: staff read it in the thread.
  const body = message.unverifiedSender
    ? "(Its text is in the dashboard: the sender could not be verified as the requester, so it is not quoted here.)"
    : message.body.length > MESSAGE_EXCERPT
      ? `${message.body.slice(0, MESSAGE_EXCERPT)}\n[...]`
      : message.body;
  return staffEmails(recipients, {
    subject:
      kind === "created"
        ? `New support request ${ticket.reference}: ${bare(ticket.subject)}`
        : `Customer reply on ${ticket.reference}: ${bare(ticket.subject)}`,
    text: [
      kind === "created"
        ? `${from} opened support request ${ticket.reference}.`
        : `${from} replied on ${ticket.reference}.`,
      ...(message.unverifiedSender ? [`The sender could not be verified as the requester (${ticket.email}).`] : []),
      "",
      body.trim(),
      "",
      `Answer it in the dashboard: ${link(`/support/${encodeURIComponent(ticket.reference)}`)}`,
      "",
      "-- ",
      "Replies to this email do not reach the customer.",
    ].join("\n"),
  });
}

// Anyone can email a ticket's reference: at most this many reply notices per ticket an hour
// (the messages are all filed; only the emails about them stop).
const REPLY_NOTICES_PER_HOUR = 10;
let replyNotices: RateLimiter | undefined;

/** The notices of a customer email filed in a ticket, unless that ticket has had its hour's share. */
export async function supportReplyNotifications(
  ticket: TicketNotice & { id: string },
  message: Parameters<typeof supportNotifications>[2],
): Promise<StaffEmail[]> {
  const notices = supportNotifications("reply", ticket, message);
  if (notices.length === 0) return notices;
  replyNotices ??= createRateLimiter({
    keyPrefix: "reply-notice",
    points: REPLY_NOTICES_PER_HOUR,
    durationSeconds: 3600,
  });
  try {
    await replyNotices.consume(ticket.id);
    return notices;
  } catch (error) {
    if (error instanceof Error) throw error;
    return [];
  }
}

// ---------------------------------------------------------------------------
// A webhook endpoint disabled for failing

/** The form's notification recipients, or every staff user. */
async function recipientsFor(formId: string | null, tx: Prisma.TransactionClient): Promise<string[]> {
  if (formId) {
    const form = await tx.form.findUnique({ where: { id: formId }, select: { settings: true } });
    const settings = FormSettingsSchema.safeParse(form?.settings ?? {});
    if (settings.success && settings.data.notifications.recipients.length > 0) {
      return settings.data.notifications.recipients;
    }
  }
  return listStaffEmails(tx);
}

export async function webhookDisabledEmails(
  endpoint: { id: string; url: string; formId: string | null; failingSince: Date },
  tx: Prisma.TransactionClient,
): Promise<StaffEmail[]> {
  const recipients = await recipientsFor(endpoint.formId, tx);
  return staffEmails(recipients, {
    subject: `Webhook endpoint disabled: ${new URL(endpoint.url).host}`,
    // The host only: a URL (a Slack incoming webhook's, one with a token) can be the credential.
    text: [
      `A webhook endpoint on ${new URL(endpoint.url).host} was disabled: every delivery to it has failed since ${endpoint.failingSince.toISOString()}.`,
      "",
      "Its undelivered events are kept. Fix the receiver, then enable the endpoint again:",
      link(`/settings/webhooks/${encodeURIComponent(endpoint.id)}`),
    ].join("\n"),
  });
}

// ---------------------------------------------------------------------------
// Daily digests

/** The last DIGEST_HOUR:00 in TIME_ZONE at or before `now`. */
export function digestPeriodEnd(now: Date, hour = env.DIGEST_HOUR, timeZone = env.TIME_ZONE): Date {
  const local = new TZDate(now.getTime(), timeZone);
  let end = new TZDate(local.getFullYear(), local.getMonth(), local.getDate(), hour, 0, 0, timeZone);
  if (end.getTime() > now.getTime()) {
    end = new TZDate(local.getFullYear(), local.getMonth(), local.getDate() - 1, hour, 0, 0, timeZone);
  }
  return new Date(end.getTime());
}

const DAY_MS = 24 * 60 * 60_000;
// A lead written just before the hour may commit just after it: the digest waits this long.
const DIGEST_GRACE_MS = 60_000;
// After a long outage, one digest covers at most this much.
const DIGEST_MAX_SPAN_MS = 7 * DAY_MS;
const DIGEST_MAX_LISTED = 50;

function localTime(date: Date): string {
  return new Intl.DateTimeFormat("en-GB", {
    timeZone: env.TIME_ZONE,
    dateStyle: "medium",
    timeStyle: "short",
  }).format(date);
}

/**
 * The leads of the form that counted in [from, to): those stored then, and those whose address
 * was confirmed then (double opt-in, decision 067: a lead waiting for its visitor is announced
 * nowhere, and is counted when confirmed, at most CONFIRMATION_VALID_DAYS after it was stored).
 */
async function digestOf(
  form: { id: string; name: string; fields: unknown },
  from: Date,
  to: Date,
  client: Prisma.TransactionClient = db,
) {
  const where = {
    formId: form.id,
    isSpam: false,
    awaitingConfirmation: false,
    // A day of margin past the link's days: a confirmation written just after its link expired.
    createdAt: { gte: new Date(from.getTime() - (CONFIRMATION_VALID_DAYS + 1) * DAY_MS), lt: to },
    OR: [{ confirmedAt: null, createdAt: { gte: from } }, { confirmedAt: { gte: from, lt: to } }],
  } satisfies Prisma.LeadWhereInput;
  const [count, leads] = await Promise.all([
    client.lead.count({ where }),
    client.lead.findMany({
      where,
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      take: DIGEST_MAX_LISTED,
      select: leadDetailSelect,
    }),
  ]);
  const details = leads.map((lead) =>
    leadDetailOf({ ...lead, data: lead.data as Record<string, LeadValue>, formName: form.name, fields: form.fields }),
  );
  return { count, details };
}

function digestText(formName: string, from: Date, to: Date, count: number, leads: LeadDetail[], formId: string) {
  const lines = [
    `${count} new ${count === 1 ? "lead" : "leads"} for "${formName}" from ${localTime(from)} to ${localTime(to)} (${env.TIME_ZONE}).`,
  ];
  leads.forEach((lead, i) => {
    lines.push("", `${i + 1}. ${localTime(new Date(lead.createdAt))}`, leadText(lead).replace(/^/gm, "   "));
    lines.push(`   ${link(`/leads/${encodeURIComponent(lead.id)}`)}`);
  });
  if (count > leads.length) {
    lines.push("", `${count - leads.length} more: ${link(`/leads?formId=${encodeURIComponent(formId)}`)}`);
  }
  lines.push("", "-- ", "You get this daily digest because you are a notification recipient of this form.");
  return lines.join("\n");
}

type DigestForm = { id: string; name: string; fields: unknown };

/**
 * Writes the form's digest of the leads from the end of its last one (at most 7 days back;
 * none yet: a day back) to `end`, once: the NotificationDigest row's unique (formId,
 * periodEnd) is claimed first, so of two instances only one writes it. A period with no lead
 * is recorded, not sent. Returns whether this call wrote it.
 */
async function sendDigest(form: DigestForm, recipients: string[], end: Date, title = "Daily digest"): Promise<boolean> {
  const last = await db.notificationDigest.findFirst({
    where: { formId: form.id },
    orderBy: { periodEnd: "desc" },
    select: { periodEnd: true },
  });
  if (last && last.periodEnd >= end) return false;
  const from = new Date(
    Math.max(last?.periodEnd.getTime() ?? end.getTime() - DAY_MS, end.getTime() - DIGEST_MAX_SPAN_MS),
  );
  // A period that ended DIGEST_GRACE_MS ago no longer changes: it is read before the claim's
  // transaction, which on SQLite holds the write lock. One that ends now ("Digest until now")
  // is read inside it, as a lead may be committing.
  const settled = end.getTime() <= Date.now() - DIGEST_GRACE_MS ? await digestOf(form, from, end) : null;
  try {
    // Another process writing meanwhile (SQLite) means again: the claim tells who was first.
    await retryWhileBusy(() => writeDigest(form, recipients, { from, end, title }, settled));
  } catch (error) {
    // Another instance wrote this digest first.
    if (isUniqueViolation(error)) return false;
    throw error;
  }
  kickOutbox();
  return true;
}

type DigestPeriod = { from: Date; end: Date; title: string };

/** The digest's claim, its count and its emails (`settled`, or read here), in one transaction. */
function writeDigest(
  form: DigestForm,
  recipients: string[],
  { from, end, title }: DigestPeriod,
  settled: Awaited<ReturnType<typeof digestOf>> | null,
): Promise<void> {
  return db.$transaction(async (tx) => {
    // The claim first: a write opens the transaction, so SQLite waits for another writer
    // rather than failing a read-then-write (though not when another process committed
    // after its snapshot began: sendDigest runs it again), and a second instance stops here.
    const digest = await tx.notificationDigest.create({
      data: { formId: form.id, periodEnd: end, leadCount: 0 },
      select: { id: true },
    });
    const { count, details } = settled ?? (await digestOf(form, from, end, tx));
    if (count === 0) return;
    await tx.notificationDigest.update({ where: { id: digest.id }, data: { leadCount: count } });
    await writeStaffEmails(
      staffEmails(recipients, {
        subject: `${title}: ${count} new ${count === 1 ? "lead" : "leads"} for ${form.name}`,
        text: digestText(form.name, from, end, count, details, form.id),
      }),
      tx,
    );
  });
}

/** Sends each digest form its digest for the period that ended at the last DIGEST_HOUR. Returns how many were written. */
export async function sendDueDigests(now = new Date()): Promise<number> {
  const end = digestPeriodEnd(new Date(now.getTime() - DIGEST_GRACE_MS));
  const forms = await db.form.findMany({ select: { id: true, name: true, fields: true, settings: true } });
  let written = 0;
  for (const form of forms) {
    const settings = FormSettingsSchema.safeParse(form.settings ?? {});
    if (!settings.success) continue;
    const { mode, recipients } = settings.data.notifications;
    if (mode !== "digest" || recipients.length === 0) continue;
    if (await sendDigest(form, recipients, end)) written++;
  }
  return written;
}

/**
 * After a form's notifications changed, so that no lead is emailed twice or never: leaving
 * the digest sends the leads since the last one at once; entering it starts the first period
 * now (the leads before were emailed one by one, or were not meant to be).
 */
export async function notificationsChanged(
  form: DigestForm,
  before: NotificationSettings,
  after: NotificationSettings,
  now = new Date(),
): Promise<void> {
  const digestBefore = before.mode === "digest" && before.recipients.length > 0;
  const digestAfter = after.mode === "digest" && after.recipients.length > 0;
  if (digestBefore && !digestAfter) {
    await sendDigest(form, before.recipients, now, "Digest until now");
  } else if (!digestBefore && digestAfter) {
    await db.notificationDigest.upsert({
      where: { formId_periodEnd: { formId: form.id, periodEnd: now } },
      create: { formId: form.id, periodEnd: now, leadCount: 0 },
      update: {},
    });
  }
}

const DIGEST_CHECK_MS = 60_000;

/**
 * Checks once a minute (and once at start) whether a digest period has ended since the last
 * pass that completed, and only then reads the forms: a period ends once a day.
 */
export function startDigestSchedule(): { stop: () => Promise<void> } {
  let doneThrough = 0;
  const tick = async () => {
    const end = digestPeriodEnd(new Date(Date.now() - DIGEST_GRACE_MS)).getTime();
    if (end === doneThrough) return;
    await sendDueDigests();
    doneThrough = end;
  };
  tick().catch((error) => log.error("digests failed", error));
  return every(DIGEST_CHECK_MS, "digests", tick);
}
