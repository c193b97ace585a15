// Two-factor sign-in with TOTP (RFC 6238) and single-use recovery codes
// (docs/decisions/061-two-factor.md, docs/api/auth.md#two-factor).
//
// The secret is sealed with AES-256-GCM under a key derived from SESSION_SECRET: a copy of
// the database alone gives no codes, and the secret is shown once, at setup, never again.
// A code is taken once: the step it belongs to is written with a conditional update, so a
// replayed code (or the same code sent twice in parallel) finds the step already used.
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";
import { Secret, TOTP } from "otpauth";
import QRCode from "qrcode";
import { db } from "~/storage/db.server";
import { DomainError, invalidFields } from "~/utils/domain-error";
import { env } from "~/utils/env.server";
import { log } from "~/utils/log.server";
import { consumeOrFail, createRateLimiter } from "~/utils/rate-limit.server";
import { recordAudit } from "../../audit/audit.server";
import { checkOwnPassword } from "../account-password.server";
import { InvalidCredentialsError } from "../auth.server";
import { mustSignInWithPasskey } from "./security-policy.server";
import type { ActiveSession } from "../session.server";

const ISSUER = "Lead Capture";
const PERIOD_SECONDS = 30;
/** Codes of the step before and after are accepted too (clocks drift). */
const WINDOW_STEPS = 1;
const RECOVERY_CODE_COUNT = 10;

// Wrong codes per account: 10 in 15 minutes, a point taken before the check and given back
// when it was right, as withLoginLimits does for passwords. Per account (not per address),
// since whoever sends codes already knows the password: many addresses gain nothing.
const codeChecks = createRateLimiter({ keyPrefix: "totp-account", points: 10, durationSeconds: 15 * 60 });
const TOO_MANY_CODES = "Too many wrong codes. Try again later.";

function sealKey(): Buffer {
  return Buffer.from(hkdfSync("sha256", env.SESSION_SECRET, "", "lead-capture totp secret v1", 32));
}

function seal(plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", sealKey(), iv);
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return `v1:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url")}`;
}

function unseal(sealed: string): string {
  const raw = Buffer.from(sealed.slice(3), "base64url");
  const decipher = createDecipheriv("aes-256-gcm", sealKey(), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
}

/**
 * The secret, or null (logged) when it was sealed under another SESSION_SECRET: the user's
 * codes then fail and a recovery code (hashed, not sealed) still signs in (decision 061).
 */
function unsealOrNull(sealed: string): string | null {
  try {
    return unseal(sealed);
  } catch {
    log.error("a two-factor secret could not be unsealed: was SESSION_SECRET changed? Recovery codes still work");
    return null;
  }
}

function totpFor(email: string, base32: string): TOTP {
  return new TOTP({
    issuer: ISSUER,
    label: email,
    digits: 6,
    period: PERIOD_SECONDS,
    secret: Secret.fromBase32(base32),
  });
}

const hashCode = (code: string) => createHash("sha256").update(normalizeRecoveryCode(code)).digest("hex");
const normalizeRecoveryCode = (code: string) => code.toLowerCase().replace(/[\s-]/g, "");

function newRecoveryCode(): string {
  const alphabet = "abcdefghjkmnpqrstuvwxyz23456789";
  const chars = [...randomBytes(10)].map((byte) => alphabet[byte % alphabet.length]);
  return `${chars.slice(0, 5).join("")}-${chars.slice(5).join("")}`;
}

type Who = { id: string; email: string };

/** Whether the user has two-factor turned on. */
export async function hasTwoFactor(userId: string): Promise<boolean> {
  const user = await db.user.findUnique({ where: { id: userId }, select: { totpEnabledAt: true } });
  return Boolean(user?.totpEnabledAt);
}

/**
 * Starts setup: a new secret (replacing one not yet confirmed), answered once with its
 * otpauth:// URI and the QR code as SVG. Conflict when two-factor is already on.
 */
export async function startTwoFactorSetup(user: Who): Promise<{ secret: string; otpauthUri: string; qrSvg: string }> {
  if (await hasTwoFactor(user.id)) throw new DomainError("conflict", "Two-factor is already on: turn it off first.");
  const secret = new Secret({ size: 20 }).base32;
  await db.user.update({ where: { id: user.id }, data: { totpSecret: seal(secret), totpLastStep: null } });
  const otpauthUri = totpFor(user.email, secret).toString();
  const qrSvg = await QRCode.toString(otpauthUri, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
  return { secret, otpauthUri, qrSvg };
}

/**
 * Checks a TOTP code against the user's secret and takes its step, once: the step must be
 * later than the last one taken. Counts wrong codes (RateLimited past 10 in 15 minutes).
 */
async function takeTotpCode(userId: string, email: string, sealed: string, code: string): Promise<boolean> {
  await consumeOrFail(codeChecks, userId, TOO_MANY_CODES);
  const now = Date.now();
  const secret = unsealOrNull(sealed);
  if (secret === null) return false;
  const delta = totpFor(email, secret).validate({ token: code, timestamp: now, window: WINDOW_STEPS });
  if (delta === null) return false;
  const step = Math.floor(now / 1000 / PERIOD_SECONDS) + delta;
  const taken = await db.user.updateMany({
    where: { id: userId, OR: [{ totpLastStep: null }, { totpLastStep: { lt: step } }] },
    data: { totpLastStep: step },
  });
  if (taken.count !== 1) return false;
  await codeChecks.reward(userId, 1);
  return true;
}

async function replaceRecoveryCodes(userId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await db.$transaction([
    db.recoveryCode.deleteMany({ where: { userId } }),
    db.recoveryCode.createMany({ data: codes.map((code) => ({ userId, codeHash: hashCode(code) })) }),
  ]);
  return codes;
}

const CodeSchemaMessage = [{ path: "code", message: "Enter the 6-digit code from your authenticator app." }];

/** Turns two-factor on with the first code of the secret from setup; answers the recovery codes, once. */
export async function enableTwoFactor(user: Who, code: unknown, ip: string): Promise<string[]> {
  if (typeof code !== "string" || !/^\d{6}$/.test(code.replace(/\s/g, ""))) throw invalidFields(CodeSchemaMessage);
  const row = await db.user.findUnique({ where: { id: user.id }, select: { totpSecret: true, totpEnabledAt: true } });
  if (row?.totpEnabledAt) throw new DomainError("conflict", "Two-factor is already on.");
  if (!row?.totpSecret) throw new DomainError("conflict", "Start the setup first (POST /api/auth/2fa/setup).");
  if (!(await takeTotpCode(user.id, user.email, row.totpSecret, code.replace(/\s/g, "")))) {
    throw invalidFields([{ path: "code", message: "That code is not right. Check your app's clock and try again." }]);
  }
  await db.user.update({ where: { id: user.id }, data: { totpEnabledAt: new Date() } });
  const codes = await replaceRecoveryCodes(user.id);
  await recordAudit({ action: "two_factor.enable", actor: user, target: `user:${user.id}`, ip });
  return codes;
}

/** Turns two-factor off (the caller has checked the password): secret and recovery codes go. */
export async function disableTwoFactor(user: Who, ip: string): Promise<void> {
  const wasOn = await hasTwoFactor(user.id);
  await db.$transaction([
    db.user.update({ where: { id: user.id }, data: { totpSecret: null, totpEnabledAt: null, totpLastStep: null } }),
    db.recoveryCode.deleteMany({ where: { userId: user.id } }),
  ]);
  if (wasOn) await recordAudit({ action: "two_factor.disable", actor: user, target: `user:${user.id}`, ip });
}

/** New recovery codes, replacing the old ones (the caller has checked the password). */
export async function regenerateRecoveryCodes(user: Who, ip: string): Promise<string[]> {
  if (!(await hasTwoFactor(user.id))) throw new DomainError("conflict", "Two-factor is off: there are no codes.");
  const codes = await replaceRecoveryCodes(user.id);
  await recordAudit({ action: "two_factor.recovery_regenerate", actor: user, target: `user:${user.id}`, ip });
  return codes;
}

async function takeRecoveryCode(user: Who, code: string, ip: string): Promise<boolean> {
  await consumeOrFail(codeChecks, user.id, TOO_MANY_CODES);
  const used = await db.recoveryCode.updateMany({
    where: { userId: user.id, codeHash: hashCode(code), usedAt: null },
    data: { usedAt: new Date() },
  });
  if (used.count !== 1) return false;
  await codeChecks.reward(user.id, 1);
  const remaining = await db.recoveryCode.count({ where: { userId: user.id, usedAt: null } });
  await recordAudit({
    action: "two_factor.recovery_used",
    actor: user,
    target: `user:${user.id}`,
    ip,
    details: { remaining },
  });
  return true;
}

/**
 * The second step of a sign-in: "none" when the user has no two-factor, "missing" when no
 * code came, "wrong" or "ok". A 6-digit code is a TOTP code, anything else a recovery code.
 */
export async function checkSecondFactor(
  user: Who,
  code: string | undefined,
  ip: string,
): Promise<"none" | "missing" | "wrong" | "ok"> {
  const row = await db.user.findUnique({ where: { id: user.id }, select: { totpSecret: true, totpEnabledAt: true } });
  if (!row?.totpEnabledAt || !row.totpSecret) return "none";
  const given = (code ?? "").trim();
  if (given === "") return "missing";
  const ok = /^\d{6}$/.test(given.replace(/\s/g, ""))
    ? await takeTotpCode(user.id, user.email, row.totpSecret, given.replace(/\s/g, ""))
    : await takeRecoveryCode(user, given.slice(0, 64), ip);
  return ok ? "ok" : "wrong";
}

/** The password was right but the account needs a code and none came (not counted as a failure). */
export class SecondFactorRequiredError extends Error {
  constructor(readonly userId: string) {
    super("Enter the code from your authenticator app, or a recovery code.");
  }
}

/** A wrong code: counted by withLoginLimits as a wrong password is. */
export class WrongSecondFactorError extends InvalidCredentialsError {}

/** The password was right, but the team requires two-factor and this user's is a passkey (decision 068). */
export class PasskeyRequiredError extends Error {
  constructor() {
    super("Your team requires two-factor sign-in, and yours is a passkey: sign in with your passkey.");
  }
}

/**
 * Throws when the user needs a code and `code` is missing or wrong (for withLoginLimits), or
 * when the password alone is not enough because their second factor is a passkey.
 */
export async function requireSecondFactor(user: Who, code: string | undefined, ip: string): Promise<void> {
  const outcome = await checkSecondFactor(user, code, ip);
  if (outcome === "missing") throw new SecondFactorRequiredError(user.id);
  if (outcome === "wrong") throw new WrongSecondFactorError();
  if (outcome === "none" && (await mustSignInWithPasskey(user.id))) throw new PasskeyRequiredError();
}

/** For turning two-factor off and new recovery codes: the password, every time (422 naming it when wrong). */
export async function requirePasswordAgain(session: ActiveSession, password: unknown): Promise<void> {
  const given = typeof password === "string" && password !== "" && password.length <= 200 ? password : null;
  if (given === null || !(await checkOwnPassword(session, given))) {
    throw invalidFields([{ path: "password", message: "That is not your password." }]);
  }
}

/** The QR code of an otpauth URI as an image address (data: is allowed by the pages' CSP). */
export const qrImageSource = (qrSvg: string) => `data:image/svg+xml;base64,${Buffer.from(qrSvg).toString("base64")}`;
