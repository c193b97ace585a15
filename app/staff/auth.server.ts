// Who is calling: staff login (remix-auth + remix-auth-form), the session guard used
// by every protected loader and action, and the limits on guessing passwords and keys.
import { createHash, timingSafeEqual } from "node:crypto";
import { redirect } from "@remix-run/node";
import { Authenticator } from "remix-auth";
import { FormStrategy } from "remix-auth-form";
import { z } from "zod";
import { recordAudit } from "~/audit/audit.server";
import { LoginFormSchema } from "~/staff/account-schemas";
import { findApiTokenCaller, looksLikeApiToken } from "~/staff/api-tokens.server";
import { can, refusalFor, SCOPE_FOR, type Permission, type TokenScope } from "~/staff/policy";
import type { ActiveSession } from "~/staff/session.server";
import { verifyLogin, type SessionUser } from "~/staff/user.server";
import { env } from "../utils/env.server";
import { fail } from "../utils/http/api.server";
import { clientIp, clientIpOf, isApiRequest, isCrossSiteMutation } from "../utils/http/request.server";
import { consumeOrFail, createRateLimiter, secondsBlocked, tooManyRequests } from "../utils/rate-limit.server";
import { getActiveSession } from "./session-cookie.server";
import { countWrongSecret, countWrongToken } from "./sign-in/guess-limits.server";
import { mustSetUpTwoFactor } from "./sign-in/security-policy.server";
import type { AppLoadContext } from "@remix-run/node";

export const LoginSchema = LoginFormSchema.strict();

export class InvalidCredentialsError extends Error {
  constructor() {
    super("Invalid email or password.");
  }
}

export const authenticator = new Authenticator<SessionUser>();

authenticator.use(
  new FormStrategy(async ({ form }) => {
    const { email, password } = LoginSchema.parse({
      email: form.get("email"),
      password: form.get("password"),
    });
    const user = await verifyLogin(email, password);
    if (!user) throw new InvalidCredentialsError();
    return user;
  }),
  "form",
);

// Login limits (docs/decisions/014-server-side-sessions.md). A point is taken BEFORE the
// password is checked and given back when it was right, so parallel guesses are
// counted as they arrive, not after the slow hash.
const WINDOW_SECONDS = 15 * 60;
/** Attempts per client address per window. */
const loginsByIp = createRateLimiter({ keyPrefix: "login-ip", points: 10, durationSeconds: WINDOW_SECONDS });
/** Failures per account per window (never refuses by itself: it only counts). */
const failuresByAccount = createRateLimiter({
  keyPrefix: "login-account",
  points: 1_000_000,
  durationSeconds: WINDOW_SECONDS,
});
/** The growing wait an attacked account imposes on addresses that have failed. */
const accountDelay = createRateLimiter({ keyPrefix: "login-delay", points: 1, durationSeconds: WINDOW_SECONDS });
/** Failures an account takes before it slows down, and the longest wait it imposes. */
const FREE_FAILURES = 5;
const MAX_DELAY_SECONDS = WINDOW_SECONDS;

const TOO_MANY_LOGINS = "Too many failed logins. Try again later.";

/**
 * Runs a login attempt through the limits: 10 attempts per address per 15 minutes, and
 * past 5 failures on an account a wait that doubles with each further failure for
 * addresses that have been failing. An address with no failure on record is never
 * held back by the account's wait, so the real user gets in during an attack.
 */
export async function withLoginLimits<T extends { id: string; email: string }>(
  ip: string,
  email: string,
  attempt: () => Promise<T>,
): Promise<T> {
  const account = email.trim().toLowerCase();
  const ipRecord = await loginsByIp.get(ip);
  const cleanAddress = !ipRecord || ipRecord.consumedPoints === 0;
  if (!cleanAddress) {
    const wait = await secondsBlocked(accountDelay, account);
    if (wait > 0) tooManyRequests(wait, TOO_MANY_LOGINS);
  }
  await consumeOrFail(loginsByIp, ip, TOO_MANY_LOGINS);
  const failures = (await failuresByAccount.consume(account)).consumedPoints;
  try {
    const result = await attempt();
    await Promise.all([
      loginsByIp.reward(ip, 1),
      failuresByAccount.delete(account),
      accountDelay.delete(account),
      recordAudit({ action: "session.login", actor: result, target: `user:${result.id}`, ip }),
    ]);
    return result;
  } catch (error) {
    if (!(error instanceof InvalidCredentialsError || error instanceof z.ZodError)) {
      await Promise.all([loginsByIp.reward(ip, 1), failuresByAccount.reward(account, 1)]);
    } else {
      // Who was tried (not whether the account exists); text that is no address (a password
      // typed in the wrong box) is not kept.
      const tried = z.email().safeParse(account).success ? account.slice(0, 254) : "(not an email address)";
      await recordAudit({ action: "session.login_failed", actor: null, ip, details: { email: tried } });
      if (failures > FREE_FAILURES) {
        await accountDelay.block(account, Math.min(2 ** (failures - FREE_FAILURES), MAX_DELAY_SECONDS));
      }
    }
    throw error;
  }
}

/** Refuses (403) a state-changing request that another site made with the staff cookie. */
export function assertSameOrigin(request: Request): void {
  if (!isCrossSiteMutation(request)) return;
  if (isApiRequest(request)) {
    fail(403, "forbidden", "Cross-site requests are not allowed with a session.");
  }
  throw new Response("Cross-site requests are not allowed.", { status: 403 });
}

export async function getOptionalUser(request: Request): Promise<SessionUser | null> {
  return (await getActiveSession(request))?.user ?? null;
}

function unauthenticated(request: Request): never {
  if (isApiRequest(request)) fail(401, "unauthorized", "Log in first: this needs a staff session.");
  const url = new URL(request.url);
  const redirectTo = `${url.pathname}${url.search}`;
  throw redirect(`/login?${new URLSearchParams({ redirectTo })}`);
}

/**
 * Refuses (403) a staff user whose role lacks `permission` (app/staff/policy.ts): an
 * /api route answers the JSON error naming it, a page a plain message.
 */
function assertAllowed(request: Request, user: SessionUser, permission: Permission): void {
  if (can(user, permission)) return;
  const message = refusalFor(user.role, permission);
  if (isApiRequest(request)) {
    fail(403, "forbidden", message, { details: [{ path: "permission", message: permission }] });
  }
  throw new Response(message, { status: 403, headers: { "Content-Type": "text/plain; charset=utf-8" } });
}

/** Who makes a request: a staff session (every permission of the role), or an API token (its scopes). */
type Caller = { user: SessionUser; scopes: readonly TokenScope[] | null };

/**
 * The caller of an /api request presenting `Authorization: Bearer lc_...` (a personal API
 * token; 401 when it is unknown, revoked, expired or its user disabled, 429 past 10 such
 * from one address in 15 minutes), else the session.
 * Pages take sessions only.
 */
async function callerOf(request: Request): Promise<Caller> {
  const authorization = request.headers.get("Authorization");
  if (authorization !== null && isApiRequest(request)) {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
    if (token !== undefined && looksLikeApiToken(token)) {
      const found = await findApiTokenCaller(token);
      if (!found) {
        await countWrongToken(clientIpOf(request));
        fail(401, "unauthorized", "The API token is unknown, revoked or expired.", {
          headers: { "WWW-Authenticate": 'Bearer error="invalid_token"' },
        });
      }
      await refuseWithoutTwoFactor(request, found.user.id, true);
      return found;
    }
  }
  const { user } = await requireUserSession(request);
  await refuseWithoutTwoFactor(request, user.id, false);
  return { user, scopes: null };
}

/** Where a user whom the team requires to have two-factor may still go without it. */
const SETUP_PATHS = ["/account/security", "/api/auth/"];

/**
 * When the owners require two-factor and the caller has none (decision 061): a page goes to
 * /account/security, an /api call answers 403 two_factor_required (a token too, unless the
 * owners let tokens work meanwhile).
 */
async function refuseWithoutTwoFactor(request: Request, userId: string, viaToken: boolean): Promise<void> {
  const { pathname } = new URL(request.url);
  if (SETUP_PATHS.some((path) => pathname.startsWith(path))) return;
  if (!(await mustSetUpTwoFactor(userId, viaToken))) return;
  if (isApiRequest(request)) {
    fail(403, "two_factor_required", "Your team requires two-factor sign-in: set it up at /account/security first.");
  }
  throw redirect("/account/security?required=1");
}

/** Refuses (403 insufficient_scope) a token without the scope `permission` needs. */
function assertScope(caller: Caller, permission: Permission): void {
  if (caller.scopes === null) return;
  const scope = SCOPE_FOR[permission];
  if (scope && caller.scopes.includes(scope)) return;
  fail(
    403,
    "insufficient_scope",
    scope ? `This token lacks the ${scope} scope.` : `No API token may do this (${permission}): log in.`,
    { details: [{ path: "scope", message: scope ?? permission }] },
  );
}

/**
 * The staff user, if allowed `permission`: by their role (app/staff/policy.ts) and, for an
 * API token, by its scopes. Without a session a page redirects to /login and an /api route
 * answers 401; without the permission or the scope, 403.
 */
export async function authorize(request: Request, permission: Permission): Promise<SessionUser> {
  const caller = await callerOf(request);
  assertScope(caller, permission);
  assertAllowed(request, caller.user, permission);
  return caller.user;
}

/** The logged-in user with their session (for pages that act on the session itself). */
export async function requireUserSession(request: Request): Promise<ActiveSession> {
  const session = await getActiveSession(request);
  if (!session) unauthenticated(request);
  assertSameOrigin(request);
  return session;
}

/**
 * The logged-in staff user (or, on /api, the user of an API token). Without one, a page
 * redirects to /login?redirectTo=... and an /api route answers 401 JSON. Cross-site
 * mutations with the session cookie are refused with 403.
 */
export async function requireUser(request: Request): Promise<SessionUser> {
  return (await callerOf(request)).user;
}

const CONTROL_OR_BACKSLASH = /[\u0000-\u001f\u007f\\]/;

/**
 * The path to send a user to after login (or any other `redirectTo`), when it is a path on
 * this site's own origin; anything else gives `fallback`. The check is made on the path's
 * final form, after the URL parser has removed dot segments (`/.//evil.com` and
 * `/%2e%2e//evil.com` become `//evil.com`, which a browser reads as another host) and after
 * percent-decoding: it must start with exactly one `/`, and hold no control characters or
 * backslashes (which browsers read as slashes).
 */
export function safeRedirect(to: FormDataEntryValue | string | null | undefined, fallback = "/"): string {
  if (typeof to !== "string" || !to.startsWith("/") || CONTROL_OR_BACKSLASH.test(to)) return fallback;
  let url: URL;
  let decodedPath: string;
  try {
    url = new URL(to, env.APP_URL);
    decodedPath = decodeURIComponent(url.pathname);
  } catch {
    return fallback;
  }
  if (url.origin !== new URL(env.APP_URL).origin) return fallback;
  if (/^\/[/\\]/.test(url.pathname) || /^\/[/\\]/.test(decodedPath) || CONTROL_OR_BACKSLASH.test(decodedPath)) {
    return fallback;
  }
  return `${url.pathname}${url.search}${url.hash}`;
}

/** Compares secrets in constant time (hashing first makes the lengths equal). */
export function secretsMatch(given: string, expected: string): boolean {
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * Checks a secret presented by a caller at `ip`: true when it matches, always, even from an
 * address that sent wrong ones (guess-limits.server.ts). A wrong one is counted: past 10 in
 * 15 minutes from that address it answers 429 instead of false.
 */
export async function checkSecretGuess(ip: string, given: string, expected: string, what: string): Promise<boolean> {
  if (secretsMatch(given, expected)) return true;
  await countWrongSecret(ip, what);
  return false;
}

export type StaffCaller = { author: "api"; user: null } | { author: "staff"; user: SessionUser };

/**
 * Support staff: `Authorization: Bearer <SUPPORT_API_KEY>` (author "api", the legacy key: it
 * may do what the support routes do), or a staff session whose role allows `permission`
 * (author "staff"; cross-site mutations refused). A bearer attempt while the key is unset
 * answers 503 not_configured; anything else without a session, 401 JSON.
 */
export async function requireStaff(
  request: Request,
  context: AppLoadContext,
  permission: Extract<Permission, `support.${string}`>,
): Promise<StaffCaller> {
  const authorization = request.headers.get("Authorization");
  if (authorization !== null) {
    const token = /^Bearer\s+(.+)$/i.exec(authorization)?.[1]?.trim();
    if (token !== undefined && looksLikeApiToken(token)) {
      return { author: "staff", user: await authorize(request, permission) };
    }
    if (token !== undefined && !env.SUPPORT_API_KEY) {
      fail(503, "not_configured", "The support API key is not configured (SUPPORT_API_KEY is unset).");
    }
    if (
      token === undefined ||
      !(await checkSecretGuess(clientIp(context), token, env.SUPPORT_API_KEY!, "support API key"))
    ) {
      fail(401, "unauthorized", "The API key is wrong.", { headers: { "WWW-Authenticate": "Bearer" } });
    }
    return { author: "api", user: null };
  }
  const user = await getOptionalUser(request);
  if (!user) {
    fail(401, "unauthorized", "Send Authorization: Bearer <SUPPORT_API_KEY> or log in as staff.", {
      headers: { "WWW-Authenticate": "Bearer" },
    });
  }
  assertSameOrigin(request);
  // As on every other staff route: a team that requires two-factor lets nobody without it in.
  await refuseWithoutTwoFactor(request, user.id, false);
  assertAllowed(request, user, permission);
  return { author: "staff", user };
}
