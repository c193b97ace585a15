// A signed-in user's own password: entering it again (to change it, or to make an API token
// when the session's last entry is older than 10 minutes, as GitHub's sudo mode does) and
// changing it, which ends everything the old password opened (decision 037).
import { DomainError } from "~/utils/domain-error";
import { consumeOrFail, createRateLimiter } from "~/utils/rate-limit.server";
import { recordAudit, type auditor } from "../audit/audit.server";
import { createApiToken, revokeUserApiTokens, type ApiTokenJson } from "./api-tokens.server";
import { recordPasswordEntry, revokeUserSessions, type ActiveSession } from "./session.server";
import { isUsersPassword, storePassword } from "./user.server";

/** How long a password entry lets the session make API tokens without asking again. */
export const RECENT_PASSWORD_MS = 10 * 60 * 1000;

// Wrong passwords per session, like logins: 10 in 15 minutes, a point taken before the slow
// hash and given back when it was right. Per session, not per account: whoever holds a
// stolen cookie is slowed, and the owner's own sessions are not.
const WINDOW_SECONDS = 15 * 60;
const passwordChecks = createRateLimiter({
  keyPrefix: "password-recheck",
  points: 10,
  durationSeconds: WINDOW_SECONDS,
});

/** Whether the password was entered in this session within the last 10 minutes. */
export function passwordIsRecent(session: ActiveSession, now = Date.now()): boolean {
  return session.passwordAt !== null && now - session.passwordAt.getTime() < RECENT_PASSWORD_MS;
}

/**
 * Checks the password the session's user typed again; a right one is recorded as the
 * session's last entry. Past 10 wrong ones in 15 minutes in this session: RateLimited (429).
 */
export async function checkOwnPassword(session: ActiveSession, password: string): Promise<boolean> {
  await consumeOrFail(passwordChecks, session.idHash, "Too many wrong passwords. Try again later.");
  if (!(await isUsersPassword(session.user.id, password))) return false;
  await Promise.all([passwordChecks.reward(session.idHash, 1), recordPasswordEntry(session.idHash)]);
  return true;
}

/**
 * For a step that needs the password entered recently (making an API token): passes when it
 * was entered in this session within 10 minutes, or when `password` is given and right.
 * password_required (403) when it is needed and missing; validation_failed (422) naming
 * `password` when it is wrong; rate_limited (429) past the limit.
 */
export async function requireRecentPassword(session: ActiveSession, password: unknown): Promise<void> {
  if (password === undefined || password === null || password === "") {
    if (passwordIsRecent(session)) return;
    throw new DomainError(
      "password_required",
      "Enter your password again: making an API token needs it within the last 10 minutes.",
      [{ path: "password", message: "Enter your password." }],
    );
  }
  if (typeof password !== "string" || password.length > 200) {
    throw new DomainError("validation_failed", "The request has invalid fields.", [
      { path: "password", message: "Give your password as text." },
    ]);
  }
  if (!(await checkOwnPassword(session, password))) {
    throw new DomainError("validation_failed", "The request has invalid fields.", [
      { path: "password", message: "That is not your password." },
    ]);
  }
}

/**
 * A new API token for the session's user, once the password is recent (or `password` is
 * right; see requireRecentPassword); the answer carries the token, once. Audited as
 * `token.create`.
 */
export async function createOwnApiToken(
  session: ActiveSession,
  password: unknown,
  input: unknown,
  audit: ReturnType<typeof auditor>,
): Promise<ApiTokenJson & { token: string }> {
  await requireRecentPassword(session, password);
  const created = await createApiToken(session.user, input);
  await audit("token.create", `token:${created.id}`, { name: created.name, scopes: created.scopes });
  return created;
}

/** `password` taken out of a JSON body, and the rest of the body as it was. */
export function takePassword(body: unknown): { password: unknown; rest: unknown } {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return { password: undefined, rest: body };
  const { password, ...rest } = body as Record<string, unknown>;
  return { password, rest };
}

/**
 * Changes the user's password when `currentPassword` is right (false otherwise): every
 * session of the user ends (the caller starts a new one for this device) and every API
 * token is revoked, since whoever held a session may have made one. Audited as
 * `password.change`. RateLimited past 10 wrong current passwords in 15 minutes.
 */
export async function changeOwnPassword(
  session: ActiveSession,
  passwords: { currentPassword: string; newPassword: string },
  ip: string,
): Promise<boolean> {
  if (!(await checkOwnPassword(session, passwords.currentPassword))) return false;
  const { user } = session;
  await storePassword(user.id, passwords.newPassword);
  const [sessionsEnded, tokensRevoked] = await Promise.all([revokeUserSessions(user.id), revokeUserApiTokens(user.id)]);
  await recordAudit({
    action: "password.change",
    actor: user,
    target: `user:${user.id}`,
    ip,
    details: { sessionsEnded, tokensRevoked },
  });
  return true;
}
