// Staff sessions kept on the server, so that logging out, changing a password or
// "log out everywhere else" ends them at once on every instance
// (docs/decisions/014-server-side-sessions.md). The browser holds a random 256-bit id;
// the table holds only its SHA-256.
import { createHash, randomBytes } from "node:crypto";
import { every } from "~/jobs/periodic.server";
import { db } from "~/storage/db.server";
import { sessionStore } from "~/storage/index.server";
import { sessionUserOf } from "~/storage/session-store.server";
import { env } from "~/utils/env.server";
import { deviceName } from "./device-name.server";
import type { SessionUser } from "./policy";

const HOUR_MS = 60 * 60 * 1000;
/** lastSeenAt is written at most this often per session, not on every request. */
export const TOUCH_INTERVAL_MS = 60 * 1000;

export const sessionLifetime = () => ({
  idleMs: env.SESSION_IDLE_HOURS * HOUR_MS,
  maxMs: env.SESSION_MAX_DAYS * 24 * HOUR_MS,
});

const SESSION_ID = /^[A-Za-z0-9_-]{43}$/; // 32 bytes, base64url

function hashId(id: string): string {
  return createHash("sha256").update(id).digest("hex");
}

/** A live session: its id's hash, its user, and when the password was last entered in it. */
export type ActiveSession = { idHash: string; user: SessionUser; passwordAt: Date | null };

/**
 * Starts a session; returns the id for the cookie (never stored as such). Every session
 * starts with the password just entered (a login, an accepted invitation, a password change).
 */
export async function startSession(
  userId: string,
  client: { userAgent: string | null; ipHash: string },
): Promise<{ id: string; expiresAt: Date }> {
  const id = randomBytes(32).toString("base64url");
  const expiresAt = new Date(Date.now() + sessionLifetime().maxMs);
  await db.session.create({
    data: {
      idHash: hashId(id),
      userId,
      expiresAt,
      passwordAt: new Date(),
      userAgent: (client.userAgent ?? "").slice(0, 300),
      ipHash: client.ipHash,
    },
    select: { idHash: true },
  });
  return { id, expiresAt };
}

/**
 * The session behind a cookie's id while it is neither revoked, past its absolute end,
 * nor idle too long; null otherwise. Refreshes lastSeenAt once a minute at most.
 */
export async function findActiveSession(id: string, now = Date.now()): Promise<ActiveSession | null> {
  if (!SESSION_ID.test(id)) return null;
  const idHash = hashId(id);
  const row = await sessionStore.findWithUser(idHash);
  if (!row || row.revokedAt || row.user.disabledAt) return null;
  const { idleMs } = sessionLifetime();
  if (row.expiresAt.getTime() <= now || row.lastSeenAt.getTime() + idleMs <= now) return null;
  // Once a minute at most (sooner only under an idle limit shorter than a few minutes).
  if (now - row.lastSeenAt.getTime() >= Math.min(TOUCH_INTERVAL_MS, idleMs / 4)) {
    await db.session.updateMany({ where: { idHash, revokedAt: null }, data: { lastSeenAt: new Date(now) } });
  }
  return { idHash, user: sessionUserOf(row.user), passwordAt: row.passwordAt };
}

/** Notes that the password was entered again in this session now (docs/api/tokens.md). */
export async function recordPasswordEntry(idHash: string, at = new Date()): Promise<void> {
  await db.session.updateMany({ where: { idHash, revokedAt: null }, data: { passwordAt: at } });
}

/** Ends the session behind a cookie's id (logout). Unknown ids are ignored. */
export async function revokeSession(id: string): Promise<void> {
  if (!SESSION_ID.test(id)) return;
  await db.session.updateMany({ where: { idHash: hashId(id), revokedAt: null }, data: { revokedAt: new Date() } });
}

/** Ends every session of a user, or every one but `keepIdHash` ("log out everywhere else"). */
export async function revokeUserSessions(userId: string, keepIdHash?: string): Promise<number> {
  const { count } = await db.session.updateMany({
    where: { userId, revokedAt: null, ...(keepIdHash ? { idHash: { not: keepIdHash } } : {}) },
    data: { revokedAt: new Date() },
  });
  return count;
}

export type SessionListing = {
  idHash: string;
  createdAt: Date;
  lastSeenAt: Date;
  userAgent: string;
  current: boolean;
};

/** The user's sessions that can still be used, most recently seen first. */
async function listUserSessions(userId: string, currentIdHash: string): Promise<SessionListing[]> {
  const now = Date.now();
  const { idleMs } = sessionLifetime();
  const rows = await db.session.findMany({
    where: {
      userId,
      revokedAt: null,
      expiresAt: { gt: new Date(now) },
      lastSeenAt: { gt: new Date(now - idleMs) },
    },
    select: { idHash: true, createdAt: true, lastSeenAt: true, userAgent: true },
    orderBy: { lastSeenAt: "desc" },
    take: 100,
  });
  return rows.map((row) => ({ ...row, current: row.idHash === currentIdHash }));
}

/** Deletes sessions that can never be used again (ended or expired a day ago or more). */
export async function deleteEndedSessions(now = Date.now()): Promise<number> {
  const dayAgo = new Date(now - 24 * HOUR_MS);
  const { count } = await db.session.deleteMany({
    where: {
      OR: [
        { expiresAt: { lt: dayAgo } },
        { revokedAt: { lt: dayAgo } },
        { lastSeenAt: { lt: new Date(dayAgo.getTime() - sessionLifetime().idleMs) } },
      ],
    },
  });
  return count;
}

/** Runs deleteEndedSessions hourly while the server runs, so the table does not grow forever. */
export function startSessionCleanup(): { stop: () => Promise<void> } {
  return every(HOUR_MS, "session clean-up", () => deleteEndedSessions());
}

/** A user's sessions as the account page lists them: dates as ISO strings, the device named. */
export async function listSessionsShown(userId: string, currentIdHash: string) {
  const sessions = await listUserSessions(userId, currentIdHash);
  return sessions.map(({ createdAt, lastSeenAt, userAgent, current }, index) => ({
    key: index,
    createdAt: createdAt.toISOString(),
    lastSeenAt: lastSeenAt.toISOString(),
    device: deviceName(userAgent),
    userAgent,
    current,
  }));
}
