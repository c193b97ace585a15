// Who a sign-in through the provider signs in (decision 062, docs/api/auth.md#single-sign-on):
// the enabled staff user with the verified email the provider vouches for; an unknown address
// in one of OIDC_ALLOWED_DOMAINS becomes an agent. Every sign-in and refusal is audited.
import { randomBytes } from "node:crypto";
import { db, isUniqueViolation } from "~/storage/db.server";
import { sessionUserOf, sessionUserSelect } from "~/storage/session-store.server";
import { env } from "~/utils/env.server";
import { consumeOrFail, createRateLimiter } from "~/utils/rate-limit.server";
import { recordAudit } from "../../audit/audit.server";
import { hashPassword, type SessionUser } from "../user.server";
import { finishSsoFlow, SsoRefusal, type SsoClaims } from "./oidc-flow.server";

// Each callback costs a request to the provider: 30 per address per 15 minutes (a person
// needs one per sign-in; a success gives its point back).
const callbacksByIp = createRateLimiter({ keyPrefix: "sso-callback", points: 30, durationSeconds: 15 * 60 });

/**
 * Finishes a sign-in through the provider: the user to start a session for, and where they
 * wanted to go. Refusals are audited as `session.sso_refused` with the reason and thrown as
 * SsoRefusal; a sign-in is audited as `session.sso_login`.
 */
export async function signInWithSso(request: Request, ip: string): Promise<{ user: SessionUser; redirectTo: string }> {
  await consumeOrFail(callbacksByIp, ip, "Too many sign-in attempts. Try again in a few minutes.");
  try {
    const { claims, redirectTo } = await finishSsoFlow(request);
    const { user, joined } = await staffUserFor(claims);
    await Promise.all([
      callbacksByIp.reward(ip, 1),
      recordAudit({
        action: "session.sso_login",
        actor: user,
        target: `user:${user.id}`,
        ip,
        details: { subject: claims.subject, ...(joined ? { joined } : {}) },
      }),
    ]);
    return { user, redirectTo };
  } catch (error) {
    if (error instanceof SsoRefusal) {
      await recordAudit({
        action: "session.sso_refused",
        actor: null,
        ip,
        details: { reason: error.reason, ...error.details },
      });
    }
    throw error;
  }
}

const UNVERIFIED = "Your sign-in provider has not verified your email address, so it cannot sign you in here.";

/** The staff user the claims name; `joined` when this sign-in made them (or let them join). */
async function staffUserFor(claims: SsoClaims): Promise<{ user: SessionUser; joined?: "created" | "invitation" }> {
  const { email } = claims;
  if (!email || !email.includes("@")) {
    throw new SsoRefusal("email_missing", "Your sign-in provider did not give an email address.", 403);
  }
  if (!claims.emailVerified) throw new SsoRefusal("email_unverified", UNVERIFIED, 403, { email });
  const found = await db.user.findUnique({ where: { email }, select: { ...sessionUserSelect, passwordHash: true } });
  if (found?.disabledAt) {
    throw new SsoRefusal("user_disabled", "Your account here is disabled. Ask an owner or admin.", 403, { email });
  }
  if (found && found.passwordHash !== null) return { user: sessionUserOf(found) };
  // An invited address: the provider's word that it is theirs accepts the invitation.
  if (found) return { user: await joinByInvitation(found.id, email), joined: "invitation" };
  const domain = email.slice(email.lastIndexOf("@") + 1);
  if (!env.OIDC?.allowedDomains.includes(domain)) {
    throw new SsoRefusal("unknown_user", `${email} has no account here. Ask an owner or admin to invite you.`, 403, {
      email,
    });
  }
  return { user: await createAgent(email, claims.name), joined: "created" };
}

/**
 * A password nobody knows: the account counts as joined (not "invited"), a password login
 * takes as long as for anybody else, and "Forgot your password?" can still give it one.
 */
async function unusablePassword(): Promise<string> {
  return hashPassword(randomBytes(32).toString("base64url"));
}

async function joinByInvitation(userId: string, email: string): Promise<SessionUser> {
  await db.user.updateMany({
    where: { id: userId, passwordHash: null },
    data: { passwordHash: await unusablePassword() },
  });
  const user = await db.user.findUniqueOrThrow({ where: { id: userId }, select: sessionUserSelect });
  if (user.disabledAt) throw new SsoRefusal("user_disabled", "Your account here is disabled.", 403, { email });
  return sessionUserOf(user);
}

async function createAgent(email: string, name: string | null): Promise<SessionUser> {
  const passwordHash = await unusablePassword();
  try {
    const user = await db.user.create({
      data: { email, name, role: "agent", passwordHash },
      select: sessionUserSelect,
    });
    return sessionUserOf(user);
  } catch (error) {
    // Two first sign-ins at once: the other one made the account.
    if (!isUniqueViolation(error)) throw error;
    const user = await db.user.findUniqueOrThrow({ where: { email }, select: sessionUserSelect });
    return sessionUserOf(user);
  }
}
