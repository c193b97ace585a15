// CAPTCHA (issue 31, item 5) against a local siteverify server that speaks the protocol
// Turnstile, hCaptcha and reCAPTCHA document (the providers cannot be reached from here):
// a form post of secret, response and remoteip, answered {"success": ..., "error-codes": [...]}.
import http from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { newForm } from "../support/forms";
import { apiClient, loginAsStaff, postForm, type ApiClient } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import type { AddressInfo } from "node:net";

type Check = { path: string; secret: string | null; response: string | null; remoteip: string | null };

let server: TestServer;
let api: ApiClient;
let cookie: string;
let verifier: http.Server;
let checks: Check[] = [];

/** What the provider answers each token with. */
function answer(token: string | null): { status: number; body: string } {
  if (token === "good") return { status: 200, body: JSON.stringify({ success: true, hostname: "127.0.0.1" }) };
  if (token === "down") return { status: 503, body: "Service Unavailable" };
  if (token === "garbled") return { status: 200, body: "<html>not json</html>" };
  if (token === "wrong-secret")
    return { status: 200, body: JSON.stringify({ success: false, "error-codes": ["invalid-input-secret"] }) };
  return { status: 200, body: JSON.stringify({ success: false, "error-codes": ["invalid-input-response"] }) };
}

beforeAll(async () => {
  verifier = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      const fields = new URLSearchParams(body);
      checks.push({
        path: req.url ?? "",
        secret: fields.get("secret"),
        response: fields.get("response"),
        remoteip: fields.get("remoteip"),
      });
      const { status, body: reply } = answer(fields.get("response"));
      res.writeHead(status, { "Content-Type": "application/json" });
      res.end(reply);
    });
  });
  await new Promise<void>((resolve) => verifier.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(verifier.address() as AddressInfo).port}`;
  server = await startServer({
    SUBMIT_RATE_LIMIT_PER_MINUTE: "0",
    CAPTCHA_VERIFY_URL_TURNSTILE: `${base}/turnstile/v0/siteverify`,
    CAPTCHA_VERIFY_URL_HCAPTCHA: `${base}/hcaptcha/siteverify`,
    CAPTCHA_VERIFY_URL_RECAPTCHA: `${base}/recaptcha/api/siteverify`,
  });
  cookie = await loginAsStaff(server.url);
  api = apiClient(server.url, cookie);
});
afterAll(async () => {
  await server?.stop();
  await new Promise((resolve) => verifier?.close(resolve));
});
beforeEach(() => {
  checks = [];
});

const FIELDS = [
  { key: "name", label: "Name", type: "text", required: true },
  { key: "email", label: "Email", type: "email", required: true },
];
const GOOD = { name: "Ada Lovelace", email: "ada@example.com" };
const SECRET = "0x4AAAAAAAserverSideSecret";

const captchaForm = (provider: "turnstile" | "hcaptcha" | "recaptcha" = "turnstile") =>
  newForm({
    name: "Protected",
    fields: FIELDS,
    settings: { captcha: { provider, siteKey: `site-${provider}`, secretKey: SECRET } },
  });

const submit = (body: Record<string, unknown>) => api("POST", "/api/leads/submit", body);

describe("the submit endpoint", () => {
  it("takes a lead whose token the provider accepts, sending it the form's secret and the visitor's address", async () => {
    const formId = await captchaForm();
    const reply = await submit({ formId, data: GOOD, captchaToken: "good" });
    expect(reply.status).toBe(201);
    expect(checks).toEqual([
      { path: "/turnstile/v0/siteverify", secret: SECRET, response: "good", remoteip: expect.stringMatching(/\d/) },
    ]);
    const lead = await db.lead.findUniqueOrThrow({ where: { id: reply.body.id } });
    expect(lead.isSpam).toBe(false);
  });

  it("refuses a missing or refused token with 422 captcha_failed, storing nothing", async () => {
    const formId = await captchaForm();
    for (const body of [
      { formId, data: GOOD },
      { formId, data: GOOD, captchaToken: "forged" },
    ]) {
      const reply = await submit(body);
      expect(reply.status).toBe(422);
      expect(reply.body.error).toMatchObject({ code: "captcha_failed", message: expect.stringContaining("CAPTCHA") });
    }
    expect(checks.map((check) => check.response)).toEqual(["forged"]);
    expect(await db.lead.count({ where: { formId } })).toBe(0);
  });

  it("checks the answers first, so a refused field does not spend the visitor's token", async () => {
    const formId = await captchaForm();
    const reply = await submit({ formId, data: { name: "Ada" }, captchaToken: "good" });
    expect(reply.status).toBe(422);
    expect(reply.body.error.code).toBe("validation_failed");
    expect(checks).toEqual([]);
  });

  it("keeps the lead, marked as spam, when the provider cannot answer or refuses our secret", async () => {
    const formId = await captchaForm();
    for (const token of ["down", "garbled", "wrong-secret"]) {
      const reply = await submit({ formId, data: GOOD, captchaToken: token });
      expect(reply.status).toBe(201);
      const lead = await db.lead.findUniqueOrThrow({ where: { id: reply.body.id } });
      expect(lead.isSpam).toBe(true);
    }
    expect(checks.map((check) => check.response)).toEqual(["down", "garbled", "wrong-secret"]);
  });

  it.each([
    ["turnstile", "cf-turnstile-response", "/turnstile/v0/siteverify"],
    ["hcaptcha", "h-captcha-response", "/hcaptcha/siteverify"],
    ["recaptcha", "g-recaptcha-response", "/recaptcha/api/siteverify"],
  ] as const)(
    "reads %s's own field from a form post, asks that provider, and keeps the token out of the lead",
    async (provider, field, path) => {
      const formId = await captchaForm(provider);
      const reply = await postForm(
        `${server.url}/api/leads/submit`,
        { formId, ...GOOD, [field]: "good" },
        { Accept: "application/json" },
      );
      expect(reply.status).toBe(201);
      expect(checks.map((check) => check.path)).toEqual([path]);
      const lead = await db.lead.findUniqueOrThrow({ where: { id: JSON.parse(reply.html).id } });
      expect(lead.data).toEqual(GOOD);
    },
  );

  it("asks nothing of a form without a CAPTCHA", async () => {
    const created = await api("POST", "/api/forms", { name: "Open", fields: FIELDS });
    const reply = await submit({ formId: created.body.id, data: GOOD });
    expect(reply.status).toBe(201);
    expect(checks).toEqual([]);
  });
});

describe("the forms API", () => {
  it("stores the secret but never returns it, and keeps it when a PATCH changes the site key", async () => {
    const created = await api("POST", "/api/forms", {
      name: "With CAPTCHA",
      fields: FIELDS,
      settings: { captcha: { provider: "hcaptcha", siteKey: "site-1", secretKey: SECRET } },
    });
    expect(created.status).toBe(201);
    expect(created.body.settings.captcha).toEqual({ provider: "hcaptcha", siteKey: "site-1" });
    const id = created.body.id;
    const patched = await api("PATCH", `/api/forms/${id}`, { settings: { captcha: { siteKey: "site-2" } } });
    expect(patched.status).toBe(200);
    expect(patched.body.settings.captcha).toEqual({ provider: "hcaptcha", siteKey: "site-2" });
    for (const path of [`/api/forms/${id}`, "/api/forms", `/forms/${id}/settings`, `/forms/${id}/share`]) {
      const reply = await api("GET", path);
      expect(reply.status).toBe(200);
      expect(reply.text).not.toContain(SECRET);
    }
    const stored = await db.form.findUniqueOrThrow({ where: { id }, select: { settings: true } });
    const settings = typeof stored.settings === "string" ? JSON.parse(stored.settings) : stored.settings;
    expect(settings.captcha).toEqual({ provider: "hcaptcha", siteKey: "site-2", secretKey: SECRET });

    const removed = await api("PATCH", `/api/forms/${id}`, { settings: { captcha: null } });
    expect(removed.body.settings.captcha).toBeUndefined();
  });

  it("refuses an unknown provider or a CAPTCHA without its keys", async () => {
    for (const captcha of [
      { provider: "friendlycaptcha", siteKey: "a", secretKey: "b" },
      { provider: "turnstile", siteKey: "a" },
      { provider: "turnstile", secretKey: "b" },
    ]) {
      const reply = await api("POST", "/api/forms", { name: "X", settings: { captcha } });
      expect(reply.status).toBe(422);
      expect(reply.body.error.details[0].path).toMatch(/^settings\.captcha/);
    }
  });
});

describe("the hosted form and the builder", () => {
  it("draws the provider's widget with the site key, allowed by the page's CSP, the secret nowhere", async () => {
    const formId = await captchaForm("turnstile");
    const response = await fetch(`${server.url}/f/${formId}`);
    const html = await response.text();
    expect(html).toMatch(/class="lc-captcha cf-turnstile" data-sitekey="site-turnstile"/);
    expect(html).not.toContain(SECRET);
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toMatch(/script-src [^;]*https:\/\/challenges\.cloudflare\.com/);
    expect(csp).toMatch(/frame-src [^;]*https:\/\/challenges\.cloudflare\.com/);
    // The dashboard keeps its own strict policy.
    const dashboard = await fetch(`${server.url}/forms`, { headers: { Cookie: cookie } });
    expect(dashboard.headers.get("content-security-policy")).not.toContain("cloudflare");
  });

  it("sets, keeps and removes the CAPTCHA from the settings section without JavaScript", async () => {
    const created = await api("POST", "/api/forms", { name: "Builder CAPTCHA", fields: FIELDS });
    const id = created.body.id;
    const post = (fields: Record<string, string>) =>
      postForm(`${server.url}/forms/${id}/settings`, { intent: "update-captcha", ...fields }, { Cookie: cookie });
    const stored = async () => {
      const row = await db.form.findUniqueOrThrow({ where: { id }, select: { settings: true } });
      return (typeof row.settings === "string" ? JSON.parse(row.settings) : row.settings).captcha;
    };

    const noSecret = await post({ provider: "turnstile", siteKey: "site-a", secretKey: "" });
    expect(noSecret.status).toBe(422);
    expect(noSecret.html).toContain("Give this provider&#x27;s secret key.");
    expect(await stored()).toBeUndefined();

    expect((await post({ provider: "turnstile", siteKey: "site-a", secretKey: SECRET })).status).toBe(200);
    expect(await stored()).toEqual({ provider: "turnstile", siteKey: "site-a", secretKey: SECRET });
    // A new site key with the secret left empty keeps the stored one.
    expect((await post({ provider: "turnstile", siteKey: "site-b", secretKey: "" })).status).toBe(200);
    expect(await stored()).toEqual({ provider: "turnstile", siteKey: "site-b", secretKey: SECRET });
    const page = await post({ provider: "turnstile", siteKey: "", secretKey: "" });
    expect(page.status).toBe(422);
    expect(page.html).toContain("Give the site key.");

    const share = await api("GET", `/forms/${id}/share`);
    // The snippet is shown as code: its quotes escaped in the page.
    expect(share.text).toContain("data-captcha=&quot;turnstile&quot; data-captcha-sitekey=&quot;site-b&quot;");

    expect((await post({ provider: "none" })).status).toBe(200);
    expect(await stored()).toBeUndefined();
  });
});
