// Double opt-in (issue 32, item 2; docs/decisions/067-double-opt-in.md): a lead of a form with
// settings.doubleOptIn is stored awaiting its visitor's confirmation, and the only email it
// sends is one to the address typed, with a link valid 7 days. The link opens a page whose
// button confirms by POST, so a mail scanner that follows links confirms nothing. Confirming
// sets confirmedAt and only then writes the lead's lead.created and the form's instant
// notifications, in the same transaction. The link is signed (HMAC with SESSION_SECRET), not
// stored: it names the lead and its expiry, and confirming twice changes nothing the second time.
import { createHmac, timingSafeEqual } from "node:crypto";
import { CONFIRMATION_VALID_DAYS, type FormField } from "~/forms/schema/form-schema";
import { leadDetailOf } from "~/leads/lead-detail.server";
import { leadNotifications } from "~/notifications/notifications.server";
import { kickOutbox, writeStaffEmails } from "~/notifications/outbox.server";
import { staffEmails, type StaffEmail } from "~/notifications/staff-emails.server";
import { db } from "~/storage/db.server";
import { leadDetailSelect } from "~/storage/leads/lead-detail-store.server";
import { env } from "~/utils/env.server";
import { nudgeWebhooks } from "../webhooks/webhook-delivery.server";
import { leadCreatedEvent, writeLeadCreatedEvent } from "../webhooks/webhook-events.server";
import { findOpenForm } from "./public-form.server";

const DAY_MS = 24 * 60 * 60 * 1000;
const TOKEN = /^([a-z0-9]{1,64})\.([a-z0-9]{1,12})\.([A-Za-z0-9_-]{43})$/;

const mac = (body: string) =>
  createHmac("sha256", env.SESSION_SECRET).update(`lead-confirmation:${body}`).digest("base64url");

/** The signed token of a lead's confirmation link: its id and when the link stops working. */
export function confirmationToken(leadId: string, createdAt: Date): string {
  const expires = Math.floor((createdAt.getTime() + CONFIRMATION_VALID_DAYS * DAY_MS) / 1000);
  const body = `${leadId}.${expires.toString(36)}`;
  return `${body}.${mac(body)}`;
}

/** The lead a token names, if this service signed it; `expired` once its 7 days are over. */
export function readConfirmationToken(token: string): { leadId: string; expired: boolean } | null {
  const match = TOKEN.exec(token);
  if (!match) return null;
  const [, leadId, expires] = match;
  const expected = Buffer.from(mac(`${leadId}.${expires}`));
  const given = Buffer.from(match[3]);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  return { leadId, expired: parseInt(expires, 36) * 1000 < Date.now() };
}

/** The one email a lead awaiting confirmation sends: to the address its visitor typed. */
export function confirmationEmail(lead: { id: string; email: string; createdAt: Date }, formName: string): StaffEmail {
  const link = `${env.APP_URL}/confirm/${confirmationToken(lead.id, lead.createdAt)}`;
  const [email] = staffEmails(
    [lead.email],
    {
      subject: `Please confirm your email address`,
      text: [
        `You (or someone using your address) sent the form "${formName}".`,
        "",
        `To confirm that this is your address, open this link and press "Confirm":`,
        link,
        "",
        `The link works for ${CONFIRMATION_VALID_DAYS} days. If you did not send the form, ignore this email:`,
        "nothing more will be sent to you, and the answers are deleted.",
      ].join("\n"),
    },
    lead.createdAt,
  );
  return email;
}

export type ConfirmationState = "pending" | "confirmed" | "expired" | "unknown";

/** Where a token's lead stands: the page's words before the button, and the button's answer. */
function stateOf(read: { expired: boolean } | null, lead: { awaitingConfirmation: boolean } | null): ConfirmationState {
  if (!read || !lead) return "unknown";
  if (!lead.awaitingConfirmation) return "confirmed";
  return read.expired ? "expired" : "pending";
}

/** What the confirmation page shows for a token, before its button is pressed. */
export async function confirmationState(token: string): Promise<ConfirmationState> {
  const read = readConfirmationToken(token);
  const lead = read
    ? await db.lead.findUnique({ where: { id: read.leadId }, select: { awaitingConfirmation: true } })
    : null;
  return stateOf(read, lead);
}

/**
 * The button's POST: the lead is confirmed once (confirmedAt set), and with it, in one
 * transaction, its lead.created and the form's instant notifications are written, as the
 * submit writes them for a lead that needs no confirmation. Again, or after the link expired,
 * it changes nothing.
 */
export async function confirmLead(token: string): Promise<ConfirmationState> {
  const read = readConfirmationToken(token);
  const lead = read
    ? await db.lead.findUnique({
        where: { id: read.leadId },
        select: { ...leadDetailSelect, form: { select: { name: true } } },
      })
    : null;
  const state = stateOf(read, lead);
  if (state !== "pending" || !lead) return state;
  const leadId = lead.id;
  const form = await findOpenForm(lead.formId).catch(() => null);
  const now = new Date();
  const event = lead.isSpam ? null : await leadCreatedEvent(lead.formId, now);
  const emails: StaffEmail[] = form
    ? leadNotifications(form.settings.notifications, () =>
        leadDetailOf({
          ...lead,
          data: lead.data as never,
          formName: lead.form.name,
          fields: form.fields as FormField[],
        }),
      )
    : [];
  const confirmed = await db.$transaction(async (tx) => {
    const changed = await tx.lead.updateMany({
      where: { id: leadId, awaitingConfirmation: true },
      data: { awaitingConfirmation: false, confirmedAt: now },
    });
    if (changed.count !== 1) return false;
    if (event) await writeLeadCreatedEvent(tx, leadId, event);
    await writeStaffEmails(emails, tx);
    return true;
  });
  if (!confirmed) return "confirmed";
  if (event) nudgeWebhooks();
  if (emails.length > 0) kickOutbox();
  return "confirmed";
}
