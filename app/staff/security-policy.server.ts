// The team's sign-in rules (decision 061, docs/api/auth.md#requiring-two-factor): owners may
// require two-factor for everybody; a user still without it can then only set it up, and
// their API tokens keep working only if the owners allow it (off by default).
import { z } from "zod";
import { db } from "~/storage/db.server";
import { invalidFields, zodDetails } from "~/utils/domain-error";
import { recordAudit } from "../audit/audit.server";

export type SecurityPolicyJson = { requireTwoFactor: boolean; tokensWithoutTwoFactor: boolean };

export const SecurityPolicySchema = z.strictObject({
  requireTwoFactor: z.boolean().optional(),
  tokensWithoutTwoFactor: z.boolean().optional(),
});

export async function getSecurityPolicy(): Promise<SecurityPolicyJson> {
  const row = await db.securityPolicy.findUnique({ where: { id: "security" } });
  return {
    requireTwoFactor: row?.requireTwoFactor ?? false,
    tokensWithoutTwoFactor: row?.tokensWithoutTwoFactor ?? false,
  };
}

/** Changes the rules (the caller has checked the permission); audited as `security.update`. */
export async function updateSecurityPolicy(
  actor: { id: string; email: string },
  input: unknown,
  ip: string,
): Promise<SecurityPolicyJson> {
  const parsed = SecurityPolicySchema.safeParse(input);
  if (!parsed.success) throw invalidFields(zodDetails(parsed.error));
  const changes = parsed.data;
  // Else the owner locks themselves out of this very setting.
  if (changes.requireTwoFactor && (await mustSetUpTwoFactorOwn(actor.id))) {
    throw invalidFields([{ path: "requireTwoFactor", message: "Turn on two-factor for yourself first." }]);
  }
  const row = await db.securityPolicy.upsert({
    where: { id: "security" },
    create: { id: "security", ...changes },
    update: changes,
  });
  await recordAudit({ action: "security.update", actor, target: "security", ip, details: changes });
  return { requireTwoFactor: row.requireTwoFactor, tokensWithoutTwoFactor: row.tokensWithoutTwoFactor };
}

/**
 * Whether this caller must set two-factor up before anything else: two-factor is required and
 * the user has none. For an API token (`viaToken`), only when tokens are not allowed meanwhile.
 */
export async function mustSetUpTwoFactor(userId: string, viaToken: boolean): Promise<boolean> {
  const policy = await getSecurityPolicy();
  if (!policy.requireTwoFactor || (viaToken && policy.tokensWithoutTwoFactor)) return false;
  return mustSetUpTwoFactorOwn(userId);
}

/** A user has two-factor with TOTP on or with a passkey (decision 068). */
async function mustSetUpTwoFactorOwn(userId: string): Promise<boolean> {
  const user = await db.user.findUnique({
    where: { id: userId },
    select: { totpEnabledAt: true, _count: { select: { passkeys: true } } },
  });
  return !user?.totpEnabledAt && !user?._count.passkeys;
}

/**
 * Whether the password alone must be refused because the team requires two-factor and this
 * user's second factor is a passkey (no TOTP to ask for): they sign in with the passkey.
 */
export async function mustSignInWithPasskey(userId: string): Promise<boolean> {
  if (!(await getSecurityPolicy()).requireTwoFactor) return false;
  const user = await db.user.findUnique({
    where: { id: userId },
    select: { totpEnabledAt: true, _count: { select: { passkeys: true } } },
  });
  return !user?.totpEnabledAt && Boolean(user?._count.passkeys);
}
