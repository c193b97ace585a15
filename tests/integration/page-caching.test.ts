// Pages are made for one person at one moment: no browser or proxy may keep a copy that
// Back (after logging out, or after a refused form was sent) or a later visitor is shown.
// Remix does not carry a loader's headers to the document, so the default is set for all.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loginAsStaff } from "../support/http";
import { createForm, field } from "../support/leads";
import { startServer, type TestServer } from "../support/server";

let server: TestServer;
let cookie: string;
let formId: string;

beforeAll(async () => {
  server = await startServer();
  cookie = await loginAsStaff(server.url);
  formId = (await createForm("Contact us", [[field("email", "Email", "email")]])).id;
});
afterAll(async () => {
  await server?.stop();
});

describe("caching of pages", () => {
  it("marks every kind of page private and not to be stored", async () => {
    const pages = [
      { path: "/leads", staff: true },
      { path: "/support", staff: true },
      { path: `/forms/${formId}/fields`, staff: true },
      { path: `/f/${formId}`, staff: false },
      { path: `/f/${formId}/thanks`, staff: false },
      { path: "/support/new", staff: false },
      { path: "/login", staff: false },
    ];
    for (const { path, staff } of pages) {
      const res = await fetch(`${server.url}${path}`, { headers: staff ? { Cookie: cookie } : {}, redirect: "manual" });
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type"), path).toMatch(/^text\/html/);
      expect(res.headers.get("cache-control"), path).toBe("private, no-store");
    }
  });

  it("still lets the build's assets be cached", async () => {
    const page = await (await fetch(`${server.url}/login`)).text();
    const asset = /href="(\/assets\/[^"]+\.css)"/.exec(page)?.[1];
    expect(asset).toBeDefined();
    const res = await fetch(`${server.url}${asset}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toContain("public");
  });
});
