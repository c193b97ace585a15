// Small HTTP helpers for tests that talk to a running server.
import { createOrResetUser, isStaffEmail } from "~/staff/user.server";

export const STAFF = { email: "staff@example.com", password: "correct horse battery staple" };

/** Creates the staff user (if needed) and returns a Cookie header of a fresh session. */
export async function loginAsStaff(
  baseUrl: string,
  staff = STAFF,
  headers: Record<string, string> = {},
): Promise<string> {
  // Resetting an existing user's password would end the sessions the test already holds.
  if (!(await isStaffEmail(staff.email))) await createOrResetUser(staff);
  return sessionOf(baseUrl, staff, headers);
}

type StaffUser = Parameters<typeof createOrResetUser>[0];

/**
 * Creates the user (or resets their password, name and role) and logs them in: their id,
 * the Cookie header of the new session, and an API client that sends it.
 */
export async function staffSession(baseUrl: string, user: StaffUser, headers: Record<string, string> = {}) {
  const { user: created } = await createOrResetUser(user);
  const cookie = await sessionOf(baseUrl, user, headers);
  return { id: created.id, cookie, call: apiClient(baseUrl, cookie) };
}

async function sessionOf(baseUrl: string, user: StaffUser, headers: Record<string, string>): Promise<string> {
  const { response, cookie } = await logIn(baseUrl, user.email, user.password, headers);
  if (response.status !== 200) throw new Error(`login failed: ${response.status} ${await response.text()}`);
  return cookie;
}

/**
 * One login through the API (the user must exist): its status, and the Cookie header of the
 * new session when it succeeded ("" otherwise).
 */
export async function logIn(baseUrl: string, email: string, password: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${baseUrl}/api/auth/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify({ email, password }),
  });
  return { status: response.status, response, cookie: response.status === 200 ? cookieFrom(response) : "" };
}

/** A form post as a browser sends one: URL-encoded fields, redirects not followed. */
export function sendForm(
  url: string,
  fields: Record<string, string> | Array<[string, string]>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, { method: "POST", headers, body: new URLSearchParams(fields), redirect: "manual" });
}

/** sendForm, with the reply read: status, Location, Cache-Control and the page. */
export async function postForm(
  url: string,
  fields: Record<string, string> | Array<[string, string]>,
  headers: Record<string, string> = {},
) {
  const response = await sendForm(url, fields, headers);
  return {
    status: response.status,
    location: response.headers.get("location"),
    cacheControl: response.headers.get("cache-control"),
    response,
    html: await response.text(),
  };
}

let clientCount = 0;

/**
 * A client address of its own, as the X-Forwarded-For header for a server started with
 * TRUST_PROXY=true. Per-address limits live in the database on PostgreSQL, shared by every
 * server of a test file: a test that exhausts one must not hold back the file's other tests.
 */
export function ownClientAddress(): Record<string, string> {
  clientCount++;
  return { "X-Forwarded-For": `198.51.${100 + (process.pid % 100)}.${clientCount % 250}` };
}

/** The `name=value` pairs of a response's Set-Cookie headers, as a Cookie header. */
export function cookieFrom(response: Response): string {
  return response.headers
    .getSetCookie()
    .map((cookie) => cookie.split(";")[0])
    .join("; ");
}

export type ApiClient = ReturnType<typeof apiClient>;

/** fetch bound to a base URL and a cookie; bodies that are objects are sent as JSON. */
export function apiClient(baseUrl: string, cookie?: string, always: Record<string, string> = {}) {
  return async function call(
    method: string,
    pathname: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; headers: Headers; body: any; text: string }> {
    const init: RequestInit = { method, headers: { ...always, ...headers }, redirect: "manual" };
    if (cookie) (init.headers as Record<string, string>).Cookie = cookie;
    if (body !== undefined) {
      if (typeof body === "string" || body instanceof URLSearchParams || body instanceof FormData) {
        init.body = body as BodyInit;
      } else {
        init.body = JSON.stringify(body);
        (init.headers as Record<string, string>)["Content-Type"] ??= "application/json";
      }
    }
    const response = await fetch(`${baseUrl}${pathname}`, init);
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, body: parsed, text };
  };
}
