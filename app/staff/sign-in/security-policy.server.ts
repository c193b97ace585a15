// The team's sign-in rules (decision 061, docs/api/auth.md#requiring-two-factor): owners may
// require two-factor for everybody; a user still without it can then only set it up, and
// their API tokens keep working only if the owners allow it (off by default). Owners may also
// require single sign-on (decision 062): password and passkey sign-in are then refused to all
// but owners.
import { z } from "zod";
import { db } from "~/storage/db.server";
import { sessionStore } from "~/storage/index.server";
import type { SecurityPolicyRow } from "~/storage/session-store.server";
import { invalidFields, zodDetails } from "~/utils/domain-error";
import { env } from "~/utils/env.server";
import { recordAudit } from "../../audit/audit.server";

export type SecurityPolicyJson = { requireTwoFactor: boolean; tokensWithoutTwoFactor: boolean; requireSso: boolean };

export const SecurityPolicySchema = z.strictObject({
  requireTwoFactor: z.boolean().optional(),
  tokensWithoutTwoFactor: z.boolean().optional(),
  requireSso: z.boolean().optional(),
});

function policyJson(row: SecurityPolicyRow | null): SecurityPolicyJson {
  return {
    requireTwoFactor: row?.requireTwoFactor ?? false,
    tokensWithoutTwoFactor: row?.tokensWithoutTwoFactor ?? false,
    requireSso: row?.requireSso ?? false,
  };
}

export async function getSecurityPolicy(): Promise<SecurityPolicyJson> {
  return policyJson(await sessionStore.securityPolicy());
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
  // Else nobody but the owners could sign in at all.
  if (changes.requireSso && !env.OIDC) {
    throw invalidFields([
      {
        path: "requireSso",
        message: "Single sign-on is not configured (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET).",
      },
    ]);
  }
  const before = await getSecurityPolicy();
  const row = await db.securityPolicy.upsert({
    where: { id: "security" },
    create: { id: "security", ...changes },
    update: changes,
  });
  // What changed (the page sends every box, ticked or not), so the log reads as what was done.
  const changed = Object.fromEntries(
    Object.entries(changes).filter(([key, value]) => before[key as keyof SecurityPolicyJson] !== value),
  );
  await recordAudit({ action: "security.update", actor, target: "security", ip, details: changed });
  return policyJson(row);
}

/** A right password or passkey of a user who must sign in through the provider (the owners require it). */
export class SsoRequiredError extends Error {
  constructor() {
    super(
      `Your team signs in with ${env.OIDC?.name ?? "single sign-on"}: use "Sign in with ${env.OIDC?.name ?? "single sign-on"}" instead of your password or passkey.`,
    );
  }
}

/**
 * Refuses a sign-in that does not go through the provider (a password after the right one, or
 * a verified passkey) when the owners require single sign-on, it is configured, and the user is
 * no owner: owners keep their password and passkeys, so that nobody is locked out while the
 * provider is down or misconfigured. Audited as `session.login_failed` with the reason.
 */
export async function refuseSignInUnderSso(
  user: { id: string; email: string; role: string },
  ip: string,
  method: "password" | "passkey" = "password",
) {
  if (!env.OIDC || user.role === "owner" || !(await getSecurityPolicy()).requireSso) return;
  await recordAudit({
    action: "session.login_failed",
    actor: null,
    ip,
    target: `user:${user.id}`,
    details: { email: user.email, reason: "sso_required", ...(method === "passkey" ? { method } : {}) },
  });
  throw new SsoRequiredError();
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
  return !(await sessionStore.hasSecondFactor(userId));
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
