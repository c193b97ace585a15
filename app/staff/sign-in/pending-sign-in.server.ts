// The /login page's second step (decision 061): after the right password for an account with
// two-factor, a signed cookie names the user for 5 minutes; the password is never put back
// into the page. The code step reads the cookie, and a right code turns it into a session.
import { createCookie } from "@remix-run/node";
import { z } from "zod";
import { db } from "~/storage/db.server";
import { sessionUserOf, sessionUserSelect } from "~/storage/session-store.server";
import { env } from "../../utils/env.server";
import type { SessionUser } from "../user.server";

const PENDING_SECONDS = 5 * 60;

const pendingCookie = createCookie(env.COOKIE_SECURE ? "__Host-sign-in" : "__sign-in", {
  httpOnly: true,
  sameSite: "lax",
  secure: env.COOKIE_SECURE,
  path: "/",
  maxAge: PENDING_SECONDS,
  secrets: [env.SESSION_SECRET],
});

const PendingSchema = z.object({ userId: z.string().max(100), expiresAt: z.number() });

/** The Set-Cookie value of a pending sign-in for `userId`. */
export function startPendingSignIn(userId: string): Promise<string> {
  return pendingCookie.serialize({ userId, expiresAt: Date.now() + PENDING_SECONDS * 1000 });
}

/** The Set-Cookie value that ends the pending sign-in. */
export function endPendingSignIn(): Promise<string> {
  return pendingCookie.serialize("", { maxAge: 0 });
}

/** The user of the request's pending sign-in, while it lasts and they are not disabled; else null. */
export async function pendingSignInUser(request: Request): Promise<SessionUser | null> {
  const parsed = PendingSchema.safeParse(await pendingCookie.parse(request.headers.get("Cookie")));
  if (!parsed.success || parsed.data.expiresAt < Date.now()) return null;
  const user = await db.user.findUnique({ where: { id: parsed.data.userId }, select: sessionUserSelect });
  return user && !user.disabledAt ? sessionUserOf(user) : null;
}
