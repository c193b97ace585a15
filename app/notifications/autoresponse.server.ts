// Autoresponses in the outbox (issue 32, decision 066): the row with its List-Unsubscribe
// address, the signed per-address unsubscribe token, and the suppression list.
// app/capture/autoresponse.server.ts decides whether one goes.
import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import { db } from "~/storage/db.server";
import { env } from "~/utils/env.server";

function signature(email: string): Buffer {
  return createHmac("sha256", env.SESSION_SECRET).update(`unsubscribe:${email}`).digest();
}

/** The per-address unsubscribe token: the address and its HMAC, both base64url. */
export function unsubscribeToken(email: string): string {
  return `${Buffer.from(email).toString("base64url")}.${signature(email).toString("base64url")}`;
}

/** The address a token was made for, or null when it is not one of ours. */
export function addressOfToken(token: string): string | null {
  const [encoded, mac, extra] = token.split(".");
  if (!encoded || !mac || extra !== undefined) return null;
  const email = Buffer.from(encoded, "base64url").toString("utf8");
  const given = Buffer.from(mac, "base64url");
  const expected = signature(email);
  return given.length === expected.length && timingSafeEqual(given, expected) ? email : null;
}

export const unsubscribeUrl = (email: string) => `${env.APP_URL}/unsubscribe/${unsubscribeToken(email)}`;

/** Records that an address wants no more autoresponses (idempotent). */
export async function suppressAddress(email: string): Promise<void> {
  await db.emailSuppression.upsert({ where: { email }, create: { email }, update: {} });
}

/** Whether an address asked for no more autoresponses. */
export async function isSuppressed(email: string): Promise<boolean> {
  return (await db.emailSuppression.findUnique({ where: { email }, select: { email: true } })) !== null;
}

/** Writes an autoresponse to the outbox, with its unsubscribe link in the text and the headers. */
export async function writeAutoresponse(email: {
  toEmail: string;
  subject: string;
  text: string;
  replyTo: string | null;
}): Promise<void> {
  const url = unsubscribeUrl(email.toEmail);
  await db.outboxEmail.create({
    data: {
      ...email,
      text: `${email.text}\n\n--\nTo get no more emails like this one: ${url}`,
      messageId: `<autoresponse-${randomUUID()}@${new URL(env.APP_URL).hostname}>`,
      listUnsubscribe: url,
    },
  });
}
