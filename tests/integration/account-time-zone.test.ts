// The staff user's time zone: taken from the browser at the first login (the login form's
// hidden `timeZone`), chosen on /account from the server's list, and used for the
// dashboard's times (components/LocalTime).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrResetUser } from "~/staff/user.server";
import { db } from "~/storage/db.server";
import { cookieFrom, loginAsStaff } from "../support/http";
import { startServer, type TestServer } from "../support/server";

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.stop();
});

const PASSWORD = "time zone test password";

async function newUser(email: string) {
  const { user } = await createOrResetUser({ email, password: PASSWORD });
  return user;
}

/** The login page's form, as a browser without JavaScript (or with it) posts it. */
function logIn(email: string, timeZone: string) {
  return fetch(`${server.url}/login`, {
    method: "POST",
    body: new URLSearchParams({ email, password: PASSWORD, redirectTo: "/leads", timeZone }),
    redirect: "manual",
  });
}

const zoneOf = async (id: string) =>
  (await db.user.findUnique({ where: { id }, select: { timeZone: true } }))?.timeZone;

describe("the time zone at login", () => {
  it("takes the browser's zone at the first login, and never overrides one already set", async () => {
    const user = await newUser("berlin@tz.example");
    const first = await logIn(user.email, "Europe/Berlin");
    expect(first.status).toBe(302);
    expect(first.headers.get("location")).toBe("/leads");
    expect(await zoneOf(user.id)).toBe("Europe/Berlin");

    const later = await logIn(user.email, "America/New_York");
    expect(later.status).toBe(302);
    expect(await zoneOf(user.id)).toBe("Europe/Berlin");
  });

  it("stays UTC when the form carries no zone or an unknown one, and the login still works", async () => {
    const user = await newUser("nowhere@tz.example");
    expect((await logIn(user.email, "")).status).toBe(302);
    expect((await logIn(user.email, "Mars/Olympus_Mons")).status).toBe(302);
    expect(await zoneOf(user.id)).toBeNull();
    const cookie = cookieFrom(await logIn(user.email, ""));
    const html = await (await fetch(`${server.url}/account`, { headers: { Cookie: cookie } })).text();
    expect(html).toMatch(/<option value="UTC" selected="">UTC<\/option>/);
  });

  it("keeps a wrong password a plain 401, whatever the zone", async () => {
    const user = await newUser("wrong@tz.example");
    const res = await fetch(`${server.url}/login`, {
      method: "POST",
      body: new URLSearchParams({ email: user.email, password: "not the password", timeZone: "Europe/Paris" }),
    });
    expect(res.status).toBe(401);
    expect(await zoneOf(user.id)).toBeNull();
  });
});

describe("the time zone on /account", () => {
  it("saves a zone from the list and shows the dashboard's times in it", async () => {
    const user = await newUser("tokyo@tz.example");
    const cookie = await loginAsStaff(server.url, { email: user.email, password: PASSWORD });
    const res = await fetch(`${server.url}/account`, {
      method: "POST",
      headers: { Cookie: cookie },
      body: new URLSearchParams({ intent: "time-zone", timeZone: "Asia/Tokyo" }),
      redirect: "manual",
    });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/account?zone=1");
    expect(await zoneOf(user.id)).toBe("Asia/Tokyo");

    const html = await (await fetch(`${server.url}/account?zone=1`, { headers: { Cookie: cookie } })).text();
    expect(html).toContain("Times are now shown in Asia/Tokyo.");
    expect(html).toMatch(/<option value="Asia\/Tokyo" selected="">Asia\/Tokyo<\/option>/);
    // This session's start, in Tokyo time (JST, UTC+9).
    expect(html).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2} GMT\+9/);
  });

  it("refuses a zone that is not in the list with 422, naming the field, and keeps the old one", async () => {
    const user = await newUser("bad@tz.example");
    const cookie = await loginAsStaff(server.url, { email: user.email, password: PASSWORD });
    for (const timeZone of ["Mars/Olympus_Mons", "", "x".repeat(5000)]) {
      const res = await fetch(`${server.url}/account`, {
        method: "POST",
        headers: { Cookie: cookie },
        body: new URLSearchParams({ intent: "time-zone", timeZone }),
        redirect: "manual",
      });
      expect(res.status).toBe(422);
      const html = await res.text();
      expect(html).toContain('id="timeZone-error"');
      expect(html).toContain("Choose a time zone from the list.");
      expect(html).toContain('aria-describedby="timeZone-error"');
    }
    const missing = await fetch(`${server.url}/account`, {
      method: "POST",
      headers: { Cookie: cookie },
      body: new URLSearchParams({ intent: "time-zone" }),
      redirect: "manual",
    });
    expect(missing.status).toBe(422);
    expect(await zoneOf(user.id)).toBeNull();
  });
});
