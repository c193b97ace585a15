// Password reset by email (docs/api/staff.md): /forgot-password asks for a link, which is
// valid for 1 hour and works once; /reset-password/:token sets the new password and ends
// every session of the user. The answer to a request is the same whether the address has an
// account or not, and requests are limited per address and per client address.
import { recordAudit } from "~/audit/audit.server";
import { db } from "~/storage/db.server";
import { parseOrThrow } from "~/utils/domain-error";
import { log } from "~/utils/log.server";
import { consumeOrFail, createRateLimiter } from "~/utils/rate-limit.server";
import {
  checkLinkBeforeUse,
  readAccountLink,
  sendAccountLink,
  sendLinksNow,
  useAccountLink,
} from "../account-links.server";
import { ForgotPasswordSchema, ResetPasswordSchema } from "../account-schemas";
import { revokeUserApiTokens } from "../api-tokens.server";
import { revokeUserSessions } from "../session.server";
import { hashPassword } from "../user.server";

const HOUR = 60 * 60;
const requestsByAddress = createRateLimiter({ keyPrefix: "reset-email", points: 3, durationSeconds: HOUR });
const requestsByIp = createRateLimiter({ keyPrefix: "reset-ip", points: 10, durationSeconds: HOUR });

/**
 * Sends a reset link to `email` if it belongs to an enabled staff user with a password (an
 * invited one accepts the invitation instead); does nothing visible otherwise. 429 past 3
 * requests per address or 10 per client address an hour, whether or not the address exists.
 */
export async function requestPasswordReset(input: unknown, ip: string): Promise<void> {
  const { email } = parseOrThrow(ForgotPasswordSchema, input);
  const tooMany = "Too many reset requests. Try again later.";
  await consumeOrFail(requestsByIp, ip, tooMany);
  await consumeOrFail(requestsByAddress, email, tooMany);
  const user = await db.user.findUnique({
    where: { email },
    select: { id: true, email: true, disabledAt: true, passwordHash: true },
  });
  if (!user || user.disabledAt || user.passwordHash === null) return;
  // Not awaited: the answer takes the same time whether or not the address has an account
  // (writing the link is a synced commit).
  void db
    .$transaction((tx) => sendAccountLink(tx, user, "reset"))
    .then(sendLinksNow, (error: unknown) => log.error("could not write a password reset link", error));
}

/** Who a reset link is for (410 when it is used, expired or its account disabled). */
export function readResetLink(token: string) {
  return readAccountLink(token, "reset");
}

/**
 * Sets the new password, uses the link up and ends every session of the user; 410 when the
 * link no longer works. Audited as `password.reset`.
 */
export async function resetPassword(token: string, input: unknown, ip: string): Promise<{ id: string; email: string }> {
  const { password } = parseOrThrow(ResetPasswordSchema, input);
  await checkLinkBeforeUse(token, "reset", ip);
  const passwordHash = await hashPassword(password);
  const user = await useAccountLink(token, "reset", (tx, holder) =>
    tx.user.update({ where: { id: holder.userId }, data: { passwordHash }, select: { id: true, email: true } }),
  );
  // A reset is how an account is taken back: whatever a thief made with it ends too.
  await Promise.all([revokeUserSessions(user.id), revokeUserApiTokens(user.id)]);
  await recordAudit({ action: "password.reset", actor: user, target: `user:${user.id}`, ip });
  return user;
}
