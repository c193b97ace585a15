// A one-time notice for the page a POST redirects to ("12 leads marked won"): a signed
// cookie that the page's loader reads and clears. The URL stays the page's own, a reload
// does not repeat the notice, and no link can make the page say something it did not do.
import { createCookie } from "@remix-run/node";
import { env } from "../env.server";

const noticeCookie = createCookie(env.COOKIE_SECURE ? "__Host-notice" : "__notice", {
  httpOnly: true,
  sameSite: "lax",
  secure: env.COOKIE_SECURE,
  path: "/",
  maxAge: 60,
  secrets: [env.SESSION_SECRET],
});

/** The Set-Cookie header value that carries `text` to the next page. */
export function noticeCookieFor(text: string): Promise<string> {
  return noticeCookie.serialize(text.slice(0, 500));
}

/** The notice this request carries (null: none) and the headers that clear it. */
export async function takeNotice(request: Request): Promise<{ notice: string | null; headers: HeadersInit }> {
  const header = request.headers.get("Cookie");
  const value: unknown = header ? await noticeCookie.parse(header).catch(() => null) : null;
  if (typeof value !== "string" || value === "") return { notice: null, headers: {} };
  return { notice: value, headers: { "Set-Cookie": await noticeCookie.serialize("", { maxAge: 0 }) } };
}
