// Reading a session with its user, on every authenticated request (decision 014). On
// SQLite one prepared statement through the driver instead of Prisma's two queries
// (decisions 003 and 021); on PostgreSQL, Prisma.
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

export interface SessionStore {
  /** The session stored under this id hash, with its user; null when there is none. */
  findWithUser(idHash: string): Promise<SessionWithUser | null>;
}

const SQLITE_SESSION = `SELECT s."lastSeenAt", s."expiresAt", s."revokedAt", s."passwordAt", u."id", u."email", u."name", u."role", u."disabledAt"
  FROM "Session" s JOIN "User" u ON u."id" = s."userId" WHERE s."idHash" = ?`;

type SqliteSessionRow = {
  lastSeenAt: string;
  expiresAt: string;
  revokedAt: string | null;
  passwordAt: string | null;
} & Omit<SessionWithUser["user"], "disabledAt"> & { disabledAt: string | null };

export const sqliteSessionStore: SessionStore = {
  async findWithUser(idHash) {
    const row = prepared(await idleSqlite(), SQLITE_SESSION).get(idHash) as SqliteSessionRow | undefined;
    if (!row) return null;
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
};
