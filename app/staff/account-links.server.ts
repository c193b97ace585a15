// Single-use links sent by email (docs/api/staff.md): an invitation to join the staff
// (valid 7 days) and a password reset (valid 1 hour). The link carries 32 random bytes;
// only their SHA-256 is stored, so the table cannot be used to log in. A link is used up
// in the transaction that sets the password, so two tabs cannot both use it.
import { createHash, randomBytes } from "node:crypto";
import { db, type Prisma } from "~/storage/db.server";
import { DomainError } from "~/utils/domain-error";
import { env } from "~/utils/env.server";
import { consumeOrFail, createRateLimiter } from "~/utils/rate-limit.server";
import { kickOutbox, writeStaffEmails } from "../notifications/outbox.server";
import { staffEmails } from "../notifications/staff-emails.server";

export type LinkKind = "invite" | "reset";

const LIFETIME_MS: Record<LinkKind, number> = { invite: 7 * 24 * 60 * 60_000, reset: 60 * 60_000 };
const PATH: Record<LinkKind, string> = { invite: "/invite/", reset: "/reset-password/" };
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

const hashOf = (token: string) => createHash("sha256").update(token).digest("hex");

/**
 * Creates a link for `user` (ending the unused ones of the same kind) and writes the email
 * that carries it, in the caller's transaction.
 */
export async function sendAccountLink(
  tx: Prisma.TransactionClient,
  user: { id: string; email: string },
  kind: LinkKind,
  inviter?: string,
): Promise<void> {
  const token = randomBytes(32).toString("base64url");
  const now = new Date();
  await tx.accountToken.updateMany({ where: { userId: user.id, kind, usedAt: null }, data: { usedAt: now } });
  await tx.accountToken.create({
    data: { userId: user.id, kind, tokenHash: hashOf(token), expiresAt: new Date(now.getTime() + LIFETIME_MS[kind]) },
  });
  const url = `${env.APP_URL}${PATH[kind]}${token}`;
  const message =
    kind === "invite"
      ? {
          subject: "You are invited to Lead Capture",
          text: [
            `${inviter ?? "A colleague"} invited you to join the staff of Lead Capture as ${user.email}.`,
            "",
            "Choose your name and password here (the link works once, for 7 days):",
            url,
          ].join("\n"),
        }
      : {
          subject: "Reset your Lead Capture password",
          text: [
            `Someone asked to reset the password of ${user.email} on Lead Capture.`,
            "",
            "Choose a new password here (the link works once, for 1 hour):",
            url,
            "",
            "If it was not you, ignore this email: your password stays as it is.",
          ].join("\n"),
        };
  await writeStaffEmails(staffEmails([user.email], message, now), tx);
}

// Setting a password from a link costs an argon2 hash: each client address may try 20 an hour.
const usesByIp = createRateLimiter({ keyPrefix: "account-link-ip", points: 20, durationSeconds: 60 * 60 });

/**
 * Before the password is hashed: the link must still work (410) and the client address be
 * within its limit (429), so a made-up link costs the server no hash.
 */
export async function checkLinkBeforeUse(token: string, kind: LinkKind, ip: string): Promise<void> {
  await readAccountLink(token, kind);
  await consumeOrFail(usesByIp, ip, "Too many attempts from this address. Try again later.");
}

/** After the transaction that wrote a link's email committed. */
export const sendLinksNow = kickOutbox;

export type LinkHolder = { userId: string; email: string; name: string | null };

const gone = () => new DomainError("gone", "This link has expired or was already used.");

/** The user a link is for, while it is unused and unexpired and the user enabled; else 410. */
export async function readAccountLink(token: string, kind: LinkKind): Promise<LinkHolder> {
  if (!TOKEN.test(token)) throw gone();
  const row = await db.accountToken.findUnique({
    where: { tokenHash: hashOf(token) },
    select: {
      kind: true,
      usedAt: true,
      expiresAt: true,
      user: { select: { id: true, email: true, name: true, disabledAt: true } },
    },
  });
  if (!row || row.kind !== kind || row.usedAt || row.expiresAt <= new Date() || row.user.disabledAt) throw gone();
  return { userId: row.user.id, email: row.user.email, name: row.user.name };
}

/**
 * Uses a link up and runs `apply` in the same transaction; 410 when it is no longer usable
 * (another request used it first, it expired, or its user was disabled).
 */
export async function useAccountLink<T>(
  token: string,
  kind: LinkKind,
  apply: (tx: Prisma.TransactionClient, holder: LinkHolder) => Promise<T>,
): Promise<T> {
  const holder = await readAccountLink(token, kind);
  return db.$transaction(async (tx) => {
    const now = new Date();
    const used = await tx.accountToken.updateMany({
      where: { tokenHash: hashOf(token), usedAt: null, expiresAt: { gt: now } },
      data: { usedAt: now },
    });
    if (used.count !== 1) throw gone();
    return apply(tx, holder);
  });
}
