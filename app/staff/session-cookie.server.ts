// The staff session cookie. It carries only a random id; whether that id still opens a
// session is decided on the server (app/staff/session.server.ts). The cookie is signed
// with SESSION_SECRET as well, so that changing the secret logs everybody out.
import { createCookie } from "@remix-run/node";
import { hashIp } from "~/capture/lead-signatures.server";
import { findActiveSession, revokeSession, startSession, type ActiveSession } from "~/staff/session.server";
import { env } from "../utils/env.server";

// On https the __Host- prefix makes browsers refuse the cookie unless it is Secure,
// host-only and for the whole path, so no subdomain can plant or read it.
export const SESSION_COOKIE = env.COOKIE_SECURE ? "__Host-session" : "__session";

const sessionCookie = createCookie(SESSION_COOKIE, {
  httpOnly: true,
  sameSite: "lax",
  secure: env.COOKIE_SECURE,
  path: "/",
  secrets: [env.SESSION_SECRET],
});

async function sessionIdOf(request: Request): Promise<string | null> {
  const header = request.headers.get("Cookie");
  if (!header || !header.includes(SESSION_COOKIE)) return null;
  const value: unknown = await sessionCookie.parse(header);
  return typeof value === "string" ? value : null;
}

/** The live session this request's cookie names, or null. */
export async function getActiveSession(request: Request): Promise<ActiveSession | null> {
  const id = await sessionIdOf(request);
  return id ? findActiveSession(id) : null;
}

/** Starts a session for the user and returns the Set-Cookie header value for it. */
export async function commitUserSession(userId: string, request: Request, clientIp: string): Promise<string> {
  const { id, expiresAt } = await startSession(userId, {
    userAgent: request.headers.get("User-Agent"),
    ipHash: hashIp(clientIp),
  });
  return sessionCookie.serialize(id, { expires: expiresAt });
}

/** Ends this request's session on the server and returns the Set-Cookie that clears it. */
export async function destroySessionCookie(request: Request): Promise<string> {
  const id = await sessionIdOf(request);
  if (id) await revokeSession(id);
  return sessionCookie.serialize("", { maxAge: 0, expires: new Date(0) });
}
