// The company's brand: set and read through /api/settings/branding and /settings/branding
// (owners and admins), its logo checked by its bytes and served from /brand/logo/<hash>,
// and shown on the hosted form, the thank-you, login and support pages. A form's
// settings.thankYou puts a way back to the customer's site on its thank-you page.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, staffSession, type ApiClient } from "../support/http";
import { startServer, type TestServer } from "../support/server";

const PASSWORD = "branding test password";
// A 1×1 PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);
const GIF = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");
const dataUrl = (bytes: Buffer, type = "image/png") => `data:${type};base64,${bytes.toString("base64")}`;

let server: TestServer;
let owner: ApiClient;
let ownerCookie: string;
let agent: ApiClient;

const logIn = async (email: string, role: "owner" | "admin" | "agent") =>
  (await staffSession(server.url, { email, password: PASSWORD, role })).cookie;

async function html(path: string, cookie?: string) {
  const response = await fetch(`${server.url}${path}`, { headers: cookie ? { Cookie: cookie } : {} });
  return { status: response.status, html: await response.text() };
}

beforeAll(async () => {
  server = await startServer();
  ownerCookie = await logIn("owner@brand.example", "owner");
  owner = apiClient(server.url, ownerCookie);
  agent = apiClient(server.url, await logIn("agent@brand.example", "agent"));
});
afterAll(async () => {
  await server?.stop();
});

describe("PATCH and GET /api/settings/branding", () => {
  it("sets the name, colour and logo, reads them back, and serves the logo as an image for good", async () => {
    const res = await owner("PATCH", "/api/settings/branding", {
      name: "Acme & Sons",
      accentColor: "#0A7D5A",
      logo: dataUrl(PNG),
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ name: "Acme & Sons", accentColor: "#0a7d5a" });
    expect(res.body.logoUrl).toMatch(/^\/brand\/logo\/[0-9a-f]{20}$/);
    expect((await owner("GET", "/api/settings/branding")).body).toEqual(res.body);

    const logo = await fetch(`${server.url}${res.body.logoUrl}`);
    expect(logo.status).toBe(200);
    expect(logo.headers.get("content-type")).toBe("image/png");
    expect(logo.headers.get("x-content-type-options")).toBe("nosniff");
    expect(logo.headers.get("cache-control")).toContain("immutable");
    expect(Buffer.from(await logo.arrayBuffer()).equals(PNG)).toBe(true);
    expect((await fetch(`${server.url}/brand/logo/0000000000`)).status).toBe(404);
  });

  it("records who changed the brand in the audit log", async () => {
    await owner("PATCH", "/api/settings/branding", { name: "Audited Ltd" });
    const res = await owner("GET", "/api/audit?action=branding.update&limit=1");
    expect(res.body.entries[0]).toMatchObject({
      action: "branding.update",
      actor: { email: "owner@brand.example" },
      details: { fields: ["name"], logo: "unchanged" },
    });
  });

  it("refuses an accent colour white button text is hard to read on, saying so", async () => {
    const res = await owner("PATCH", "/api/settings/branding", { accentColor: "#ffcc00" });
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual([
      { path: "accentColor", message: expect.stringMatching(/too little contrast .*4\.5:1/) },
    ]);
    expect((await owner("PATCH", "/api/settings/branding", { accentColor: "blue" })).status).toBe(422);
  });

  it("refuses an SVG, bytes that are no image whatever their declared type, and a logo over 512 KiB", async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    const refusedSvg = await owner("PATCH", "/api/settings/branding", { logo: dataUrl(svg, "image/png") });
    expect(refusedSvg.status).toBe(422);
    expect(refusedSvg.body.error.details[0]).toMatchObject({ path: "logo", message: expect.stringContaining("SVG") });

    const text = await owner("PATCH", "/api/settings/branding", { logo: dataUrl(Buffer.from("hello, world")) });
    expect(text.status).toBe(422);
    expect(text.body.error.details[0].message).toBe("The logo is not a PNG, JPEG, WebP or GIF image.");

    const notDataUrl = await owner("PATCH", "/api/settings/branding", { logo: "https://example.com/logo.png" });
    expect(notDataUrl.status).toBe(422);

    const big = Buffer.concat([PNG, Buffer.alloc(520 * 1024)]);
    const tooBig = await owner("PATCH", "/api/settings/branding", { logo: dataUrl(big) });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.error.code).toBe("payload_too_large");
  });

  it("removes the logo with null", async () => {
    await owner("PATCH", "/api/settings/branding", { logo: dataUrl(GIF, "image/gif") });
    const res = await owner("PATCH", "/api/settings/branding", { logo: null });
    expect(res.status).toBe(200);
    expect(res.body.logoUrl).toBeNull();
  });

  it("is for owners and admins: an agent is refused with 403", async () => {
    expect((await agent("GET", "/api/settings/branding")).status).toBe(403);
    expect((await agent("PATCH", "/api/settings/branding", { name: "Agent Co" })).status).toBe(403);
  });
});

describe("/settings/branding without JavaScript", () => {
  async function post(fields: Record<string, string>, logo?: Buffer) {
    const body = new FormData();
    for (const [name, value] of Object.entries(fields)) body.set(name, value);
    if (logo) body.set("logo", new Blob([new Uint8Array(logo)], { type: "image/png" }), "logo.png");
    const response = await fetch(`${server.url}/settings/branding`, {
      method: "POST",
      headers: { Cookie: ownerCookie },
      body,
    });
    return { status: response.status, html: await response.text() };
  }

  it("saves a multipart post with a logo, and shows a refused colour by its field", async () => {
    const saved = await post({ name: "Plain Post Inc", accentColor: "#7a1f5c" }, GIF);
    expect(saved.status).toBe(200);
    expect(saved.html).toContain("The branding was saved.");
    const brand = (await owner("GET", "/api/settings/branding")).body;
    expect(brand).toMatchObject({ name: "Plain Post Inc", accentColor: "#7a1f5c" });
    expect((await fetch(`${server.url}${brand.logoUrl}`)).headers.get("content-type")).toBe("image/gif");

    const refused = await post({ name: "Plain Post Inc", accentColor: "#eeeeee" });
    expect(refused.status).toBe(422);
    expect(refused.html).toMatch(/id="branding-accentColor-error"[^>]*>White button text on #eeeeee/);

    const svg = await post({ name: "Plain Post Inc", accentColor: "#7a1f5c" }, Buffer.from("<svg/>"));
    expect(svg.status).toBe(422);
    expect(svg.html).toContain("SVG (or other markup) is refused");

    const tooBig = await post(
      { name: "Plain Post Inc", accentColor: "#7a1f5c" },
      Buffer.concat([PNG, Buffer.alloc(600 * 1024)]),
    );
    expect(tooBig.status).toBe(413);
    expect(tooBig.html).toContain("The logo is larger than 512 KiB.");
  });

  it("is not shown to an agent", async () => {
    const cookie = await logIn("agent2@brand.example", "agent");
    expect((await html("/settings/branding", cookie)).status).toBe(403);
  });
});

describe("the brand on the public pages", () => {
  let formId: string;
  beforeAll(async () => {
    const res = await owner("PATCH", "/api/settings/branding", {
      name: "Brightside <Studio>",
      accentColor: "#8a2be2",
      logo: dataUrl(PNG),
    });
    expect(res.status, res.text).toBe(200);
    const form = await owner("POST", "/api/forms", {
      name: "Brand check",
      fields: [{ key: "email", label: "Email", type: "email", required: true }],
    });
    formId = form.body.id;
  });

  it("shows the name (escaped), the logo and the accent colour on the hosted form, thank-you, login and support pages", async () => {
    const logoUrl = (await owner("GET", "/api/settings/branding")).body.logoUrl;
    for (const path of [`/f/${formId}`, `/f/${formId}/thanks`, "/login", "/support/new"]) {
      const page = await html(path);
      expect(page.status, path).toBe(200);
      expect(page.html, path).toContain('<span class="brand-name">Brightside &lt;Studio&gt;</span>');
      expect(page.html, path).toContain(`src="${logoUrl}"`);
      expect(page.html, path).toContain("--accent:#8a2be2");
    }
    expect((await html(`/f/${formId}`)).html).toContain("--lc-accent:#8a2be2");
  });
});

describe("settings.thankYou", () => {
  it("puts the message and a link back to the site on the thank-you page; the success message stays the fallback", async () => {
    const form = await owner("POST", "/api/forms", {
      name: "Thanks check",
      fields: [{ key: "email", label: "Email", type: "email", required: true }],
      settings: { successMessage: "Got it." },
    });
    expect(form.status, form.text).toBe(201);
    const before = await html(`/f/${form.body.id}/thanks`);
    expect(before.html).toContain("Got it.");
    expect(before.html).not.toContain('class="button"');

    const thankYou = {
      message: "Thanks, we will call you.",
      linkUrl: "https://www.example.com/?a=1&b=2",
      linkText: "Back to Example",
    };
    const patched = await owner("PATCH", `/api/forms/${form.body.id}`, { settings: { thankYou } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.settings).toMatchObject({ successMessage: "Got it.", thankYou });
    const after = await html(`/f/${form.body.id}/thanks`);
    expect(after.html).toContain("Thanks, we will call you.");
    expect(after.html).toContain('<a class="button" href="https://www.example.com/?a=1&amp;b=2">Back to Example</a>');
  });

  it("is edited in the builder's Settings section without JavaScript, and cleared there", async () => {
    const form = await owner("POST", "/api/forms", {
      name: "Builder thanks",
      fields: [{ key: "email", label: "Email", type: "email", required: true }],
    });
    const post = (fields: Record<string, string>) =>
      fetch(`${server.url}/forms/${form.body.id}/settings`, {
        method: "POST",
        headers: { Cookie: ownerCookie },
        body: new URLSearchParams({
          intent: "update-settings",
          allowedOrigins: "",
          successMessage: "Thanks",
          ...fields,
        }),
      });
    const saved = await post({ thankYouLinkUrl: "https://shop.example/", thankYouLinkText: "Back to the shop" });
    expect(saved.status).toBe(200);
    expect((await owner("GET", `/api/forms/${form.body.id}`)).body.settings.thankYou).toEqual({
      linkUrl: "https://shop.example/",
      linkText: "Back to the shop",
    });
    const refused = await post({ thankYouLinkUrl: "javascript:alert(1)" });
    expect(refused.status).toBe(422);
    expect(await refused.text()).toContain('id="settings-thankYouLinkUrl-error"');
    expect((await post({})).status).toBe(200);
    expect((await owner("GET", `/api/forms/${form.body.id}`)).body.settings).not.toHaveProperty("thankYou");
  });

  it("refuses a link that is not http or https", async () => {
    const form = await owner("POST", "/api/forms", {
      name: "Bad link",
      fields: [{ key: "email", label: "Email", type: "email", required: true }],
    });
    const res = await owner("PATCH", `/api/forms/${form.body.id}`, {
      settings: { thankYou: { linkUrl: "javascript:alert(1)", linkText: "Back" } },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.details[0].path).toBe("settings.thankYou.linkUrl");
  });
});
