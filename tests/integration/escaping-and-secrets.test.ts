// Stored values reach every page as text, never as markup; secrets never reach a log
// line or an error body.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newForm } from "../support/forms";
import { apiClient, loginAsStaff } from "../support/http";
import { startServer, type TestServer } from "../support/server";

const SCRIPT = `<script>alert("x")</script>`;
const IMG = `<img src=x onerror=alert(1)>`;

let server: TestServer;
let cookie: string;
let formId: string;
let leadId: string;
let reference: string;

beforeAll(async () => {
  server = await startServer({ SUBMIT_RATE_LIMIT_PER_MINUTE: "0", SUPPORT_RATE_LIMIT_PER_HOUR: "0" });
  cookie = await loginAsStaff(server.url);
  formId = await newForm({
    name: `Form ${SCRIPT}`,
    description: IMG,
    fields: [
      { key: "name", label: `Name ${IMG}`, type: "text", required: true, helpText: SCRIPT },
      { key: "topic", label: "Topic", type: "select", options: [SCRIPT, "Other"] },
    ],
    settings: { successMessage: `Thanks ${SCRIPT}` },
  });
  const lead = await apiClient(server.url)("POST", "/api/leads/submit", {
    formId,
    data: { name: `${SCRIPT}${IMG}`, topic: SCRIPT },
    utm: { utm_source: SCRIPT, utm_campaign: IMG },
    referrerUrl: `https://evil.example/?q=${encodeURIComponent(SCRIPT)}`,
  });
  expect(lead.status).toBe(201);
  leadId = lead.body.id;
  const ticket = await apiClient(server.url)("POST", "/api/support-requests", {
    email: "customer@example.com",
    name: IMG,
    subject: `Help ${SCRIPT}`,
    message: `${SCRIPT} and ${IMG}`,
  });
  expect(ticket.status).toBe(201);
  reference = ticket.body.reference;
  const inbound = await apiClient(server.url)(
    "POST",
    "/api/support-requests/inbound",
    {
      from: "customer@example.com",
      subject: `Re: [#${reference}]`,
      html: `<p>Hello <b>bold</b></p><script>alert("inbound")</script><img src=x onerror=alert(2)><a href="javascript:alert(3)">link</a>`,
    },
    { "x-inbound-secret": process.env.INBOUND_SECRET! },
  );
  expect(inbound.status).toBe(201);
});
afterAll(async () => {
  await server?.stop();
});

async function page(path: string, withCookie = true): Promise<string> {
  const res = await fetch(`${server.url}${path}`, { headers: withCookie ? { Cookie: cookie } : {} });
  expect(res.status, path).toBe(200);
  return res.text();
}

function expectOnlyEscaped(html: string, path: string) {
  expect(html, path).not.toContain(SCRIPT);
  expect(html, path).not.toContain("<script>alert");
  expect(html, path).not.toMatch(/<img[^>]*onerror/i);
  expect(html, path).not.toContain("<b>bold</b>");
  expect(html, path).not.toMatch(/href="javascript:/i);
}

describe("stored values in pages", () => {
  it("shows lead values, form labels, ticket text and inbound email as text on every page", async () => {
    const pages = [
      "/",
      "/forms",
      ...["fields", "settings", "notifications", "share", "danger"].map((section) => `/forms/${formId}/${section}`),
      "/leads",
      "/leads?spam=all",
      `/leads/${leadId}`,
      `/leads/sources?formId=${formId}`,
      "/support",
      `/support/${reference}`,
    ];
    for (const path of pages) expectOnlyEscaped(await page(path), path);
    const lead = await page(`/leads/${leadId}`);
    expect(lead).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    const thread = await page(`/support/${reference}`);
    expect(thread).toContain("bold"); // the inbound HTML arrived, as text
    expect(thread).toContain("&lt;img src=x onerror=alert(1)&gt;");
  });

  it("shows form labels and messages as text on the public hosted form and thank-you page", async () => {
    for (const path of [`/f/${formId}`, `/f/${formId}/thanks`]) {
      const html = await page(path, false);
      expectOnlyEscaped(html, path);
    }
    expect(await page(`/f/${formId}`, false)).toContain("Name &lt;img src=x onerror=alert(1)&gt;");
  });
});

describe("secrets", () => {
  it("never appear in error bodies or in the server's output, even for requests that name them wrongly", async () => {
    const secrets = [process.env.SESSION_SECRET!, process.env.SUPPORT_API_KEY!, process.env.INBOUND_SECRET!];
    const bodies: string[] = [];
    const call = apiClient(server.url);
    const attempts = [
      call(
        "POST",
        "/api/support-requests/inbound",
        { from: "a@b.c", subject: "x", text: "y" },
        { "x-inbound-secret": `${process.env.INBOUND_SECRET}x` },
      ),
      call(
        "POST",
        "/api/support-requests/inbound",
        { from: "a@b.c", subject: "x" },
        { "x-inbound-secret": process.env.INBOUND_SECRET! },
      ),
      call(
        "POST",
        `/api/support-requests/${reference}/replies`,
        { message: "hi" },
        { Authorization: `Bearer ${process.env.SUPPORT_API_KEY}-wrong` },
      ),
      call("GET", "/api/support-requests", undefined, { Authorization: `Bearer ${process.env.SESSION_SECRET}` }),
      call("POST", "/api/auth/login", { email: "a@b.c", password: process.env.SESSION_SECRET }),
      call(
        "POST",
        "/api/leads/submit",
        { formId, data: { name: process.env.SUPPORT_API_KEY } },
        { "Idempotency-Key": "k".repeat(300) },
      ),
      call("GET", "/api/leads/export?format=nope", undefined, { Cookie: cookie }),
    ];
    for (const attempt of await Promise.all(attempts)) {
      expect(attempt.status).toBeGreaterThanOrEqual(200);
      expect(attempt.status).toBeLessThan(500);
      bodies.push(attempt.text);
    }
    const output = server.output();
    for (const secret of secrets) {
      for (const body of bodies) expect(body).not.toContain(secret);
      expect(output).not.toContain(secret);
    }
  });
});
