// Who is calling: staff login (remix-auth + remix-auth-form), the session guard used
// by every protected loader and action, and the login rate limits.
import { createHash, timingSafeEqual } from "node:crypto";
import { redirect } from "@remix-run/node";
import { Authenticator } from "remix-auth";
import { FormStrategy } from "remix-auth-form";
import { z } from "zod";
import { getUserById, verifyLogin, type SessionUser } from "~/models/user.server";
import { fail } from "./api.server";
import { env } from "./env.server";
import { createRateLimiter, recordFailure, secondsBlocked, tooManyRequests } from "./rate-limit.server";
import { isApiRequest, isCrossSiteMutation } from "./request.server";
import { getSession } from "./session.server";

export const LoginSchema = z.object({
  email: z.string().trim().toLowerCase().pipe(z.email("Enter a valid email address.").max(254)),
  password: z.string().min(1, "Enter your password.").max(200),
});

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

// 10 failed logins per 15 minutes, counted per client address and per email.
const LOGIN_FAILURES = { points: 10, durationSeconds: 15 * 60 };
const failuresByIp = createRateLimiter({ keyPrefix: "login-ip", ...LOGIN_FAILURES });
const failuresByEmail = createRateLimiter({ keyPrefix: "login-email", ...LOGIN_FAILURES });

/**
 * Runs a login attempt through the rate limits: refuses with 429 while either key is
 * blocked, counts a failure against both when `attempt` rejects the credentials.
 */
export async function withLoginLimits<T>(
  ip: string,
  email: string,
  attempt: () => Promise<T>,
): Promise<T> {
  const emailKey = email.trim().toLowerCase();
  const wait = Math.max(
    await secondsBlocked(failuresByIp, ip),
    await secondsBlocked(failuresByEmail, emailKey),
  );
  if (wait > 0) tooManyRequests(wait, "Too many failed logins. Try again later.");
  try {
    const result = await attempt();
    await failuresByEmail.delete(emailKey);
    return result;
  } catch (error) {
    if (error instanceof InvalidCredentialsError) {
      await Promise.all([recordFailure(failuresByIp, ip), recordFailure(failuresByEmail, emailKey)]);
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
  const session = await getSession(request);
  const userId = session.get("userId");
  return userId ? getUserById(userId) : null;
}

/**
 * The logged-in staff user. Without one, a page redirects to /login?redirectTo=...
 * and an /api route answers 401 JSON. Cross-site mutations are refused with 403.
 */
export async function requireUser(request: Request): Promise<SessionUser> {
  const user = await getOptionalUser(request);
  if (!user) {
    if (isApiRequest(request)) fail(401, "unauthorized", "Log in first: this needs a staff session.");
    const url = new URL(request.url);
    const redirectTo = `${url.pathname}${url.search}`;
    throw redirect(`/login?${new URLSearchParams({ redirectTo })}`);
  }
  assertSameOrigin(request);
  return user;
}

/** A redirect target that stays on this site. */
export function safeRedirect(to: FormDataEntryValue | string | null | undefined, fallback = "/"): string {
  if (typeof to !== "string" || !to.startsWith("/") || to.startsWith("//") || to.startsWith("/\\")) {
    return fallback;
  }
  return to;
}

/** Compares secrets in constant time (hashing first makes the lengths equal). */
export function secretsMatch(given: string, expected: string): boolean {
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}

export type StaffCaller = { author: "api"; user: null } | { author: "staff"; user: SessionUser };

/**
 * Support staff: `Authorization: Bearer <SUPPORT_API_KEY>` (author "api"), or a staff
 * session (author "staff"; cross-site mutations refused). A bearer attempt while the
 * key is unset answers 503 not_configured; anything else without a session, 401 JSON.
 */
export async function requireStaff(request: Request): Promise<StaffCaller> {
  const authorization = request.headers.get("Authorization");
  if (authorization !== null) {
    const token = /^Bearer\s+(.+)$/i.exec(authorization)?.[1]?.trim();
    if (token !== undefined && !env.SUPPORT_API_KEY) {
      fail(503, "not_configured", "The support API key is not configured (SUPPORT_API_KEY is unset).");
    }
    if (token === undefined || !secretsMatch(token, env.SUPPORT_API_KEY!)) {
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
  return { author: "staff", user };
}
