// Staff accounts and their passwords. Passwords are hashed with scrypt (Node's
// crypto, memory-hard) and compared in constant time.
import { randomBytes, scrypt as scryptCallback, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";
import { z } from "zod";
import { db } from "~/utils/db.server";

const scrypt = promisify(scryptCallback) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

const SCRYPT = { N: 2 ** 15, r: 8, p: 1, keylen: 32 };

export const EmailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.email("Enter a valid email address.").max(254));
export const PasswordSchema = z.string().min(12, "Use at least 12 characters.").max(200);

export type SessionUser = { id: string; email: string; name: string | null };
const sessionUserSelect = { id: true, email: true, name: true } as const;

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const { N, r, p, keylen } = SCRYPT;
  const hash = await scrypt(password, salt, keylen, { N, r, p, maxmem: 256 * N * r });
  return ["scrypt", N, r, p, salt.toString("base64"), hash.toString("base64")].join("$");
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
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
  if (!user) {
    await verifyPassword(password, await (dummyHash ??= hashPassword("not-a-password")));
    return null;
  }
  if (!(await verifyPassword(password, user.passwordHash))) return null;
  return { id: user.id, email: user.email, name: user.name };
}

// requireUser looks the session's user up on every dashboard and API request; a user
// found in the last few seconds is taken from memory. Accounts are never removed by the
// app, and a password reset does not end sessions, so the cache changes no answer.
const USER_CACHE_MS = 5_000;
const recentUsers = new Map<string, { user: SessionUser; until: number }>();

export async function getUserById(id: string): Promise<SessionUser | null> {
  const now = Date.now();
  const cached = recentUsers.get(id);
  if (cached && cached.until > now) return cached.user;
  const user = await db.user.findUnique({ where: { id }, select: sessionUserSelect });
  if (!user) {
    recentUsers.delete(id);
    return null;
  }
  if (recentUsers.size >= 1_000) recentUsers.clear();
  recentUsers.set(id, { user, until: now + USER_CACHE_MS });
  return user;
}

/** Creates the staff user, or sets a new password when the email already has one. */
export async function createOrResetUser(input: {
  email: string;
  password: string;
  name?: string;
}): Promise<{ user: SessionUser; created: boolean }> {
  const email = EmailSchema.parse(input.email);
  const password = PasswordSchema.parse(input.password);
  const passwordHash = await hashPassword(password);
  const existing = await db.user.findUnique({ where: { email }, select: { id: true } });
  const user = await db.user.upsert({
    where: { email },
    create: { email, passwordHash, name: input.name ?? null },
    update: { passwordHash, ...(input.name ? { name: input.name } : {}) },
    select: sessionUserSelect,
  });
  return { user, created: !existing };
}

export function countUsers(): Promise<number> {
  return db.user.count();
}

export function isStaffEmail(email: string): Promise<boolean> {
  return db.user
    .findUnique({ where: { email: email.trim().toLowerCase() }, select: { id: true } })
    .then(Boolean);
}
