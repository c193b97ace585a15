// Reading a session with its user, and the team's sign-in rules, on every authenticated
// request (decision 014). On SQLite prepared statements through the driver instead of
// Prisma's queries (decisions 003 and 021); on PostgreSQL, Prisma.
import { db, idleSqlite, isoFromUtcText, prepared } from "~/storage/db.server";
import type { Session, User } from "~/storage/db.server";

/** The user fields a session carries (user.server.ts selects the same ones at login). */
export const sessionUserSelect = { id: true, email: true, name: true, role: true, disabledAt: true } as const;

/** The user a session acts as: the stored row without its disabled mark. */
export const sessionUserOf = ({ id, email, name, role }: Pick<User, "id" | "email" | "name" | "role">) => ({
  id,
  email,
  name,
  role,
});

export type SessionWithUser = Pick<Session, "lastSeenAt" | "expiresAt" | "revokedAt" | "passwordAt"> & {
  user: Pick<User, keyof typeof sessionUserSelect>;
};

/** The team's sign-in rules (decision 061); null before an owner has saved any. */
export type SecurityPolicyRow = { requireTwoFactor: boolean; tokensWithoutTwoFactor: boolean; requireSso: boolean };

export interface SessionStore {
  /** The session stored under this id hash, with its user; null when there is none. */
  findWithUser(idHash: string): Promise<SessionWithUser | null>;
  /**
   * The sign-in rules, read afresh on every staff request (a rule an owner turns on holds on
   * every instance at once). Through Prisma this read cost the lead list a third of its
   * throughput on SQLite (bench log 065).
   */
  securityPolicy(): Promise<SecurityPolicyRow | null>;
  /** Whether the user has a second factor (TOTP on, or a passkey), read when the rules require one. */
  hasSecondFactor(userId: string): Promise<boolean>;
}

// The user's columns as scalar subqueries rather than a JOIN: the same primary-key reads, but the
// JOIN took 12 µs a read against 2 here (bench log 066), and this read runs on every staff request.
const userColumn = (column: string) => `(SELECT u."${column}" FROM "User" u WHERE u."id" = s."userId") AS "${column}"`;
const SQLITE_SESSION = `SELECT s."lastSeenAt", s."expiresAt", s."revokedAt", s."passwordAt", s."userId" AS "id",
  ${["email", "name", "role", "disabledAt"].map(userColumn).join(", ")}
  FROM "Session" s WHERE s."idHash" = ?`;

const SQLITE_POLICY = `SELECT "requireTwoFactor", "tokensWithoutTwoFactor", "requireSso" FROM "SecurityPolicy" WHERE "id" = 'security'`;

const SQLITE_SECOND_FACTOR = `SELECT ("totpEnabledAt" IS NOT NULL OR EXISTS (SELECT 1 FROM "Passkey" p WHERE p."userId" = u."id")) AS "has"
  FROM "User" u WHERE u."id" = ?`;

type SqlitePolicyRow = { [K in keyof SecurityPolicyRow]: number | bigint };

type SqliteSessionRow = {
  lastSeenAt: string;
  expiresAt: string;
  revokedAt: string | null;
  passwordAt: string | null;
} & Omit<SessionWithUser["user"], "disabledAt" | "email"> & { email: string | null; disabledAt: string | null };

export const sqliteSessionStore: SessionStore = {
  async findWithUser(idHash) {
    const row = prepared(await idleSqlite(), SQLITE_SESSION).get(idHash) as SqliteSessionRow | undefined;
    // No email: the user row is gone (a session is deleted with its user, unless foreign keys were off).
    if (!row || row.email === null) return null;
    return {
      lastSeenAt: new Date(isoFromUtcText(row.lastSeenAt)),
      expiresAt: new Date(isoFromUtcText(row.expiresAt)),
      revokedAt: row.revokedAt === null ? null : new Date(isoFromUtcText(row.revokedAt)),
      passwordAt: row.passwordAt === null ? null : new Date(isoFromUtcText(row.passwordAt)),
      user: {
        id: row.id,
        email: row.email,
        name: row.name,
        role: row.role,
        disabledAt: row.disabledAt === null ? null : new Date(isoFromUtcText(row.disabledAt)),
      },
    };
  },
  async securityPolicy() {
    const row = prepared(await idleSqlite(), SQLITE_POLICY).get() as SqlitePolicyRow | undefined;
    if (!row) return null;
    return {
      requireTwoFactor: Number(row.requireTwoFactor) === 1,
      tokensWithoutTwoFactor: Number(row.tokensWithoutTwoFactor) === 1,
      requireSso: Number(row.requireSso) === 1,
    };
  },
  async hasSecondFactor(userId) {
    const row = prepared(await idleSqlite(), SQLITE_SECOND_FACTOR).get(userId) as { has: number | bigint } | undefined;
    return Number(row?.has) === 1;
  },
};

export const postgresSessionStore: SessionStore = {
  findWithUser(idHash) {
    return db.session.findUnique({
      where: { idHash },
      select: {
        lastSeenAt: true,
        expiresAt: true,
        revokedAt: true,
        passwordAt: true,
        user: { select: sessionUserSelect },
      },
    });
  },
  securityPolicy() {
    return db.securityPolicy.findUnique({
      where: { id: "security" },
      select: { requireTwoFactor: true, tokensWithoutTwoFactor: true, requireSso: true },
    });
  },
  async hasSecondFactor(userId) {
    const user = await db.user.findUnique({
      where: { id: userId },
      select: { totpEnabledAt: true, _count: { select: { passkeys: true } } },
    });
    return Boolean(user?.totpEnabledAt) || Boolean(user?._count.passkeys);
  },
};
