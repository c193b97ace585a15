// Personal API tokens (docs/api/tokens.md): `lc_` and 32 random bytes (base64url), shown once
// and kept only as their SHA-256. A token acts as its user, and only within its scopes and
// what the user's role allows at the time of the request; it ends when revoked, expired, or
// when its user is disabled.
import { createHash, randomBytes } from "node:crypto";
import { db } from "~/storage/db.server";
import { DomainError, parseOrThrow } from "~/utils/domain-error";
import { canChangeStaff, grantableScopes, TOKEN_SCOPES, type Actor, type SessionUser, type TokenScope } from "./policy";
import { NewTokenSchema } from "./staff-schemas";
import type { auditor } from "../audit/audit.server";

const PREFIX = "lc_";
const TOKEN = /^lc_[A-Za-z0-9_-]{43}$/;
// lastUsedAt is written at most this often per token.
const TOUCH_INTERVAL_MS = 60_000;

const hashOf = (token: string) => createHash("sha256").update(token).digest("hex");

export type ApiTokenJson = {
  id: string;
  name: string;
  scopes: TokenScope[];
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
};

const tokenSelect = {
  id: true,
  name: true,
  scopes: true,
  createdAt: true,
  lastUsedAt: true,
  expiresAt: true,
  revokedAt: true,
} as const;

type TokenRow = {
  id: string;
  name: string;
  scopes: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
};

function tokenJson(row: TokenRow): ApiTokenJson {
  return {
    id: row.id,
    name: row.name,
    scopes: row.scopes.split(" ").filter(Boolean) as TokenScope[],
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}

/**
 * Creates a token for `user`; the answer carries the token itself, once. 422 naming `scopes`
 * when one is beyond what the user's role allows.
 */
export async function createApiToken(user: Actor, input: unknown): Promise<ApiTokenJson & { token: string }> {
  const { name, scopes, expiresAt } = parseOrThrow(NewTokenSchema, input);
  const allowed = new Set(grantableScopes(user));
  const beyond = [...new Set(scopes)].filter((scope) => !allowed.has(scope));
  if (beyond.length > 0) {
    throw new DomainError("validation_failed", "The request has invalid fields.", [
      { path: "scopes", message: `Your role does not allow ${beyond.join(", ")}.` },
    ]);
  }
  const token = `${PREFIX}${randomBytes(32).toString("base64url")}`;
  const row = await db.apiToken.create({
    data: {
      userId: user.id,
      name,
      scopes: TOKEN_SCOPES.filter((scope) => scopes.includes(scope)).join(" "),
      tokenHash: hashOf(token),
      expiresAt: expiresAt ?? null,
    },
    select: tokenSelect,
  });
  return { ...tokenJson(row), token };
}

/** The user's tokens, newest first (never the tokens themselves). */
export async function listApiTokens(userId: string): Promise<ApiTokenJson[]> {
  const rows = await db.apiToken.findMany({
    where: { userId },
    select: tokenSelect,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
  });
  return rows.map(tokenJson);
}

/**
 * `userId`'s tokens (the viewer's own when null) for whoever may change that user
 * (staff.manage; an owner's, only an owner); 403 otherwise, and for an unknown user.
 */
export async function listApiTokensFor(viewer: Actor, userId: string | null): Promise<ApiTokenJson[]> {
  if (userId && userId !== viewer.id) {
    const other = await db.user.findUnique({ where: { id: userId }, select: { role: true } });
    if (!other || !canChangeStaff(viewer, other)) {
      throw new DomainError(
        "forbidden",
        "Only owners and admins see other people's tokens (an owner's, only an owner).",
        [{ path: "permission", message: "staff.manage" }],
      );
    }
  }
  return listApiTokens(userId ?? viewer.id);
}

/**
 * Revokes a token: one's own, or anyone's for a staff manager (owners and admins manage the
 * team's tokens). 404 for an unknown id or another user's token otherwise. A token revoked
 * twice keeps its first revocation time. Audited as `token.revoke`.
 */
export async function revokeApiToken(actor: Actor, id: string, audit: ReturnType<typeof auditor>): Promise<void> {
  const token = await db.apiToken.findUnique({ where: { id }, select: { user: { select: { id: true, role: true } } } });
  // Another user's token: only for whoever may change that user (an admin, not an owner's).
  const allowed = token && (token.user.id === actor.id || canChangeStaff(actor, token.user));
  const where = { id, userId: allowed ? token.user.id : actor.id };
  const { count } = await db.apiToken.updateMany({
    where: { ...where, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  if (count === 0 && (await db.apiToken.count({ where })) === 0) {
    throw new DomainError("not_found", `No token with id ${JSON.stringify(id)}.`);
  }
  await audit("token.revoke", `token:${id}`);
}

/** Ends every token of a user (disabled, password reset or changed); returns how many were live. */
export async function revokeUserApiTokens(userId: string): Promise<number> {
  const { count } = await db.apiToken.updateMany({
    where: { userId, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  return count;
}

export const looksLikeApiToken = (value: string) => value.startsWith(PREFIX);

/** The user and scopes behind a presented token, or null when it is unknown, revoked, expired or its user disabled. */
export async function findApiTokenCaller(
  token: string,
  now = Date.now(),
): Promise<{ user: SessionUser; scopes: TokenScope[] } | null> {
  if (!TOKEN.test(token)) return null;
  const row = await db.apiToken.findUnique({
    where: { tokenHash: hashOf(token) },
    select: {
      id: true,
      scopes: true,
      expiresAt: true,
      revokedAt: true,
      lastUsedAt: true,
      user: { select: { id: true, email: true, name: true, role: true, disabledAt: true } },
    },
  });
  if (!row || row.revokedAt || (row.expiresAt && row.expiresAt.getTime() <= now) || row.user.disabledAt) return null;
  if (!row.lastUsedAt || now - row.lastUsedAt.getTime() >= TOUCH_INTERVAL_MS) {
    await db.apiToken.update({ where: { id: row.id }, data: { lastUsedAt: new Date(now) } });
  }
  const { id, email, name, role } = row.user;
  return { user: { id, email, name, role }, scopes: row.scopes.split(" ") as TokenScope[] };
}
