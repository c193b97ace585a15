// Staff accounts and their passwords. New hashes are argon2id at OWASP's parameters;
// older scrypt hashes still verify and are replaced at the next successful login
// (docs/decisions/015-password-hashing.md).
import { scrypt as scryptCallback, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";
import argon2 from "argon2";
import { db, type Prisma, type StaffRole } from "~/storage/db.server";
import { sessionUserOf, sessionUserSelect } from "~/storage/session-store.server";
import { parseOrThrow } from "~/utils/domain-error";
import { EmailSchema, PasswordSchema } from "./account-schemas";
import { revokeUserApiTokens } from "./api-tokens.server";
import { revokeUserSessions } from "./session.server";
import { canonicalTimeZone, TimeZoneSchema } from "./time-zone.server";
import type { SessionUser } from "./policy";

// OWASP Password Storage Cheat Sheet: argon2id, 19 MiB, 2 iterations, 1 lane.
const ARGON2 = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

const scrypt = promisify(scryptCallback) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

export { ChangePasswordSchema, EmailSchema, PasswordSchema } from "./account-schemas";

export type { SessionUser };

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, ARGON2);
}

/** True when `stored` was made with weaker parameters than today's and should be redone. */
export function needsRehash(stored: string): boolean {
  return !stored.startsWith("$argon2id$") || argon2.needsRehash(stored, ARGON2);
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  if (stored.startsWith("$argon2")) {
    try {
      return await argon2.verify(stored, password);
    } catch {
      return false; // a damaged hash lets nobody in
    }
  }
  // Hashes written before argon2id: scrypt$N$r$p$salt$hash.
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64");
  const N = Number(n);
  const actual = await scrypt(password, Buffer.from(salt, "base64"), expected.length, {
    N,
    r: Number(r),
    p: Number(p),
    maxmem: 256 * N * Number(r),
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

// Hashing a password for an unknown email keeps the answer time the same, so the
// login form does not reveal which addresses have accounts.
let dummyHash: Promise<string> | undefined;

export async function verifyLogin(email: string, password: string): Promise<SessionUser | null> {
  const user = await db.user.findUnique({
    where: { email: email.trim().toLowerCase() },
    select: { ...sessionUserSelect, passwordHash: true },
  });
  // No account, or an invitation not yet accepted: the same work as a wrong password.
  if (!user?.passwordHash) {
    await verifyPassword(password, await (dummyHash ??= hashPassword("not-a-password")));
    return null;
  }
  if (!(await verifyPassword(password, user.passwordHash))) return null;
  // Disabled: the same answer as a wrong password, after the same work.
  if (user.disabledAt) return null;
  if (needsRehash(user.passwordHash)) {
    // Only if the hash is still the one just checked: a password changed meanwhile wins.
    await db.user.updateMany({
      where: { id: user.id, passwordHash: user.passwordHash },
      data: { passwordHash: await hashPassword(password) },
    });
  }
  return sessionUserOf(user);
}

/**
 * Creates the staff user, or sets a new password (ending every session and API token) when the email has
 * one. A new user gets `role`, except the first one, who is always the owner; the default
 * role is owner too (the command line is the owner's tool).
 */
export async function createOrResetUser(input: {
  email: string;
  password: string;
  name?: string;
  role?: StaffRole;
}): Promise<{ user: SessionUser; created: boolean }> {
  const email = EmailSchema.parse(input.email);
  const password = PasswordSchema.parse(input.password);
  const passwordHash = await hashPassword(password);
  const existing = await db.user.findUnique({ where: { email }, select: { id: true } });
  const role = (await db.user.count()) === 0 ? "owner" : (input.role ?? "owner");
  const user = await db.user.upsert({
    where: { email },
    create: { email, passwordHash, name: input.name ?? null, role },
    update: { passwordHash, ...(input.name ? { name: input.name } : {}) },
    select: sessionUserSelect,
  });
  if (existing) await Promise.all([revokeUserSessions(user.id), revokeUserApiTokens(user.id)]);
  return { user: sessionUserOf(user), created: !existing };
}

/** True when `password` is the user's (false too for a user with no password yet). */
export async function isUsersPassword(userId: string, password: string): Promise<boolean> {
  const user = await db.user.findUnique({ where: { id: userId }, select: { passwordHash: true } });
  return Boolean(user?.passwordHash && (await verifyPassword(password, user.passwordHash)));
}

/** Stores a new password for the user (account-password.server.ts ends what the old one opened). */
export async function storePassword(userId: string, newPassword: string): Promise<void> {
  await db.user.update({
    where: { id: userId },
    data: { passwordHash: await hashPassword(newPassword) },
    select: { id: true },
  });
}

/** Saves the zone the user's dashboard shows times in; validation_failed naming `timeZone` otherwise. */
export async function setTimeZone(userId: string, input: unknown): Promise<string> {
  const { timeZone } = parseOrThrow(TimeZoneSchema, input);
  await db.user.update({ where: { id: userId }, data: { timeZone }, select: { id: true } });
  return timeZone;
}

/** The zone the user's dashboard shows times in: UTC until one is chosen or reported. */
export async function timeZoneOf(userId: string): Promise<string> {
  const user = await db.user.findUnique({ where: { id: userId }, select: { timeZone: true } });
  return user?.timeZone ?? "UTC";
}

/**
 * At login, the zone the browser reported becomes the user's unless they already have one
 * (chosen on /account, or taken at an earlier login). Anything not a known zone is ignored:
 * the dashboard stays in UTC.
 */
export async function defaultTimeZone(userId: string, reported: unknown): Promise<void> {
  const timeZone = canonicalTimeZone(reported);
  if (!timeZone) return;
  await db.user.updateMany({ where: { id: userId, timeZone: null }, data: { timeZone } });
}

export function isStaffEmail(email: string): Promise<boolean> {
  return db.user.findUnique({ where: { email: email.trim().toLowerCase() }, select: { id: true } }).then(Boolean);
}

/** Every staff user's address, oldest account first (bounded): who can be notified. */
export async function listStaffEmails(client: Prisma.TransactionClient = db): Promise<string[]> {
  const users = await client.user.findMany({
    where: { disabledAt: null, passwordHash: { not: null } },
    select: { email: true },
    orderBy: { createdAt: "asc" },
    take: 50,
  });
  return users.map((user) => user.email);
}
