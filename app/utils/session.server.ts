// The staff session: a signed cookie holding the user id. Nothing is kept on the
// server, so every instance behind a load balancer reads the same session.
import { createCookieSessionStorage } from "@remix-run/node";
import { env } from "./env.server";

export const SESSION_COOKIE = "__session";
const SESSION_MAX_AGE = 60 * 60 * 24 * 14;

export const sessionStorage = createCookieSessionStorage<{ userId: string }>({
  cookie: {
    name: SESSION_COOKIE,
    httpOnly: true,
    sameSite: "lax",
    secure: env.COOKIE_SECURE,
    path: "/",
    maxAge: SESSION_MAX_AGE,
    secrets: [env.SESSION_SECRET],
  },
});

export function getSession(request: Request) {
  return sessionStorage.getSession(request.headers.get("Cookie"));
}

/** Set-Cookie header value for a fresh session of this user. */
export async function commitUserSession(userId: string): Promise<string> {
  const session = await sessionStorage.getSession();
  session.set("userId", userId);
  return sessionStorage.commitSession(session);
}

export async function destroySessionCookie(request: Request): Promise<string> {
  return sessionStorage.destroySession(await getSession(request));
}
