import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TIMESTAMP_FIELD, hashIp, signTimestamp } from "~/capture/lead-signatures.server";
import { FieldsSchema } from "~/forms/schema/form-schema";
import { HONEYPOT_FIELD } from "~/leads/lead-fields";
import { db } from "~/storage/db.server";
import { newForm, type NewForm } from "../support/forms";
import { apiClient } from "../support/http";
import { startServer, type TestServer } from "../support/server";

let server: TestServer;

beforeAll(async () => {
  // The rate limit has a server of its own below; here it would get in the way.
  server = await startServer({ SUBMIT_RATE_LIMIT_PER_MINUTE: "0" });
});
afterAll(async () => {
  await server?.stop();
});

const FIELDS = [
  { key: "name", label: "Name", type: "text", required: true },
  { key: "email", label: "Email", type: "email", required: true },
  { key: "employees", label: "Employees", type: "number", min: 1 },
  { key: "newsletter", label: "Newsletter", type: "checkbox" },
  { key: "interests", label: "Interests", type: "multiselect", options: ["crm", "email", "ads"] },
  { key: "plan", label: "Plan", type: "select", options: ["free", "pro"] },
];

const createForm = (options: Omit<NewForm, "name"> = {}) => newForm({ name: "Contact us", fields: FIELDS, ...options });

const leadCount = (formId?: string) => db.lead.count({ where: formId ? { formId } : {} });

type Reply = { status: number; headers: Headers; body: any; text: string };

const post = (body: string | URLSearchParams | FormData, headers: Record<string, string> = {}, base = server.url) =>
  apiClient(base)("POST", "/api/leads/submit", body, headers);

const postJson = (payload: unknown, headers: Record<string, string> = {}, base?: string) =>
  post(JSON.stringify(payload), { "Content-Type": "application/json", ...headers }, base);

const GOOD_DATA = { name: "Ada Lovelace", email: "ada@example.com" };
const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
const BROWSER_AGENT =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36";

function expectError(reply: Reply, status: number, code: string) {
  expect(reply.status).toBe(status);
  expect(reply.headers.get("content-type")).toMatch(/application\/json/);
  expect(reply.body).toEqual({ error: expect.objectContaining({ code, message: expect.any(String) }) });
}

describe("JSON submissions", () => {
  it("stores a lead with its source in its own columns and answers 201 with id, formId and createdAt", async () => {
    const formId = await createForm();
    const reply = await postJson(
      {
        formId,
        data: { ...GOOD_DATA, employees: 12, newsletter: true, interests: ["crm", "ads"], plan: "pro" },
        utm: {
          utm_source: "newsletter",
          utm_medium: "email",
          utm_campaign: "spring",
          utm_term: "crm tool",
          utm_content: "hero",
        },
        referrerUrl: "https://News.Example.com/issue/42?x=1",
        landingPageUrl: "https://www.example.com/pricing?utm_source=newsletter",
      },
      { "User-Agent": `test-agent ${"x".repeat(1000)}` },
    );
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({ id: expect.any(String), formId, createdAt: expect.any(String) });
    expect(new Date(reply.body.createdAt).toISOString()).toBe(reply.body.createdAt);

    const lead = await db.lead.findUniqueOrThrow({ where: { id: reply.body.id } });
    expect(lead).toMatchObject({
      formId,
      schemaVersion: 1,
      data: { ...GOOD_DATA, employees: 12, newsletter: true, interests: ["crm", "ads"], plan: "pro" },
      utmSource: "newsletter",
      utmMedium: "email",
      utmCampaign: "spring",
      utmTerm: "crm tool",
      utmContent: "hero",
      referrerUrl: "https://News.Example.com/issue/42?x=1",
      referrerHost: "news.example.com",
      landingPageUrl: "https://www.example.com/pricing?utm_source=newsletter",
      isSpam: false,
      idempotencyKey: null,
    });
    expect(lead.searchText).toContain("ada@example.com");
    expect(lead.userAgent!.startsWith("test-agent x")).toBe(true);
    expect(lead.userAgent!.length).toBe(512);
    expect(lead.ipHash).toBe(hashIp("127.0.0.1"));
    expect(lead.ipHash).not.toContain("127.0.0.1");
    expect(lead.createdAt.toISOString()).toBe(reply.body.createdAt);
  });

  it("accepts numbers sent as numeric strings and leaves optional tracking empty", async () => {
    const formId = await createForm();
    const reply = await postJson({ formId, data: { ...GOOD_DATA, employees: "40" } });
    expect(reply.status).toBe(201);
    const lead = await db.lead.findUniqueOrThrow({ where: { id: reply.body.id } });
    expect(lead.data).toEqual({ ...GOOD_DATA, employees: 40 });
    expect(lead).toMatchObject({ utmSource: null, referrerUrl: null, referrerHost: null, landingPageUrl: null });
  });
});

describe("plain HTML form posts", () => {
  it("takes a URL-encoded post: coerces numbers, checkboxes and repeated multiselect keys, drops unknown fields, answers 303 to the thank-you page", async () => {
    const formId = await createForm();
    const body = new URLSearchParams([
      ["formId", formId],
      ["name", "Grace Hopper"],
      ["email", "grace@example.com"],
      ["employees", "250"],
      ["newsletter", "on"],
      ["interests", "crm"],
      ["interests", "email"],
      ["plan", "free"],
      ["utm_source", "google"],
      ["utm_campaign", "spring"],
      ["referrerUrl", "https://www.google.com/"],
      ["landingPageUrl", "https://shop.example/landing?utm_source=google"],
      ["submit", "Send"],
    ]);
    const reply = await post(body, { Accept: "text/html" });
    expect(reply.status).toBe(303);
    expect(reply.headers.get("location")).toBe(`/f/${formId}/thanks`);
    const [lead] = await db.lead.findMany({ where: { formId } });
    expect(lead.data).toEqual({
      name: "Grace Hopper",
      email: "grace@example.com",
      employees: 250,
      newsletter: true,
      interests: ["crm", "email"],
      plan: "free",
    });
    expect(lead).toMatchObject({
      utmSource: "google",
      utmCampaign: "spring",
      utmMedium: null,
      referrerUrl: "https://www.google.com/",
      referrerHost: "www.google.com",
      landingPageUrl: "https://shop.example/landing?utm_source=google",
    });

    const thanks = await fetch(`${server.url}/f/${formId}/thanks`);
    expect(thanks.status).toBe(200);
    expect(await thanks.text()).toContain("Thank you! We will be in touch soon.");
  });

  it("takes a multipart post the same way, storing an unchecked checkbox as false and one multiselect value as a list", async () => {
    const formId = await createForm();
    const body = new FormData();
    body.set("formId", formId);
    body.set("name", "Katherine Johnson");
    body.set("email", "katherine@example.com");
    body.set("employees", "3");
    body.set("interests", "ads");
    body.set("attachment", new Blob(["ignored"]), "notes.txt");
    const reply = await post(body, { Accept: "application/json" });
    expect(reply.status).toBe(201);
    expect(reply.body.formId).toBe(formId);
    const lead = await db.lead.findUniqueOrThrow({ where: { id: reply.body.id } });
    expect(lead.data).toEqual({
      name: "Katherine Johnson",
      email: "katherine@example.com",
      employees: 3,
      newsletter: false,
      interests: ["ads"],
    });
  });

  it("redirects to the form's own redirectUrl after success", async () => {
    const formId = await createForm({ settings: { redirectUrl: "https://shop.example/thanks" } });
    const reply = await post(new URLSearchParams({ formId, ...GOOD_DATA }));
    expect(reply.status).toBe(303);
    expect(reply.headers.get("location")).toBe("https://shop.example/thanks");
    expect(await leadCount(formId)).toBe(1);
  });

  it("uses the posting page (Referer) as the landing page when a plain form sends none", async () => {
    const formId = await createForm();
    await post(new URLSearchParams({ formId, ...GOOD_DATA }), { Referer: "https://shop.example/contact" });
    const [lead] = await db.lead.findMany({ where: { formId } });
    expect(lead.landingPageUrl).toBe("https://shop.example/contact");
  });

  it("sends a refused post back to the hosted form, which names each problem, keeping the tracking values", async () => {
    const formId = await createForm();
    const reply = await post(
      new URLSearchParams({
        formId,
        name: "",
        email: "not-an-email",
        employees: "many",
        utm_source: "news",
        referrerUrl: "https://news.example/",
      }),
    );
    expect(reply.status).toBe(303);
    const location = new URL(reply.headers.get("location")!, server.url);
    expect(location.pathname).toBe(`/f/${formId}`);
    expect(location.searchParams.get("utm_source")).toBe("news");
    expect(location.searchParams.get("ref")).toBe("https://news.example/");
    expect(await leadCount(formId)).toBe(0);

    const page = await (await fetch(location)).text();
    expect(page).toContain("Enter a valid email address.");
    expect(page).toContain("Enter a number.");
    expect(page).toMatch(/id="lead-name-error"/);
    expect(page).toMatch(/name="utm_source" value="news"/);
    expect(page).toMatch(/name="referrerUrl" value="https:\/\/news.example\/"/);
  });

  it("brings the hosted form back filled in after a refused post, the values kept on the server once and out of the URL", async () => {
    const formId = await createForm();
    const reply = await post(
      new URLSearchParams([
        ["formId", formId],
        ["name", "Grace Hopper"],
        ["email", "grace-at-example"],
        ["employees", "many"],
        ["newsletter", "on"],
        ["interests", "crm"],
        ["interests", "ads"],
        ["plan", "pro"],
      ]),
      { Accept: BROWSER_ACCEPT },
    );
    expect(reply.status).toBe(303);
    const location = reply.headers.get("location")!;
    expect(location).toMatch(/[?&]draft=[A-Za-z0-9_-]{32}(&|$)/);
    // Searched for without the random tokens (draft, attempt, sig), which may hold "pro" by chance.
    const readable = new URL(location, server.url);
    for (const token of ["draft", "attempt", "sig"]) readable.searchParams.delete(token);
    for (const typed of ["Grace", "grace-at-example", "many", "crm", "pro"]) {
      expect(decodeURIComponent(readable.href)).not.toContain(typed);
    }

    const page = await (await fetch(new URL(location, server.url))).text();
    expect(page).toContain("Enter a valid email address.");
    expect(page).toMatch(/name="name"[^>]*value="Grace Hopper"|value="Grace Hopper"[^>]*name="name"/);
    expect(page).toContain('value="grace-at-example"');
    expect(page).toContain('value="many"');
    expect(page).toMatch(/<input[^>]*name="newsletter"[^>]*checked/);
    expect(page).toMatch(/<input[^>]*value="crm"[^>]*checked|<input[^>]*checked[^>]*value="crm"/);
    expect(page).not.toMatch(/<input[^>]*value="email"[^>]*checked/);
    // The landing page carried on does not keep the token.
    expect(page).not.toMatch(/name="landingPageUrl" value="[^"]*draft=/);

    // Read once: the same address again (a reload, someone else's later visit) shows an empty form.
    const again = await (await fetch(new URL(location, server.url))).text();
    expect(again).toContain("Enter a valid email address.");
    expect(again).not.toContain("Grace Hopper");
    // Another form's page does not take the token.
    const draft = new URL(location, server.url).searchParams.get("draft");
    const other = await createForm();
    const reply2 = await post(new URLSearchParams({ formId, name: "Linus", email: "nope" }), {
      Accept: BROWSER_ACCEPT,
    });
    const token = new URL(reply2.headers.get("location")!, server.url).searchParams.get("draft");
    expect(token).not.toBe(draft);
    expect(await (await fetch(`${server.url}/f/${other}?draft=${token}`)).text()).not.toContain("Linus");
    expect(await (await fetch(new URL(reply2.headers.get("location")!, server.url))).text()).toContain("Linus");
  });

  it("says the answers were sent, not the old errors, when the visitor comes back to a refused post's page after sending", async () => {
    const formId = await createForm();
    const refused = await post(new URLSearchParams({ formId, name: "Grace Hopper", email: "grace-at-example" }), {
      Accept: BROWSER_ACCEPT,
    });
    const errorsPage = new URL(refused.headers.get("location")!, server.url);
    const page = await (await fetch(errorsPage)).text();
    const retry = /name="_retry" value="([^"]+)"/.exec(page)?.[1];
    expect(retry).toBe(errorsPage.searchParams.get("attempt"));

    const sent = await post(
      new URLSearchParams({ formId, name: "Grace Hopper", email: "grace@example.com", _retry: retry! }),
      { Accept: BROWSER_ACCEPT },
    );
    expect(sent.status).toBe(303);
    expect(sent.headers.get("location")).toBe(`/f/${formId}/thanks`);
    const leads = await db.lead.findMany({ where: { formId } });
    expect(leads).toHaveLength(1);
    expect(leads[0].data).toMatchObject({ name: "Grace Hopper", email: "grace@example.com" });
    expect(leads[0].data).not.toHaveProperty("_retry");

    // Back to the errors page: no refusal, no field marked wrong, and a word that it was sent.
    const back = await (await fetch(errorsPage)).text();
    expect(back).toContain("Your answers were sent");
    expect(back).not.toContain("Enter a valid email address.");
    expect(back).not.toContain('aria-invalid="true"');
    expect(back).not.toContain('name="_retry"');
    // Another visitor's refusal with the same errors is not settled by this one.
    const other = await post(new URLSearchParams({ formId, name: "Linus", email: "nope" }), {
      Accept: BROWSER_ACCEPT,
    });
    const otherPage = await (await fetch(new URL(other.headers.get("location")!, server.url))).text();
    expect(otherPage).toContain("Enter a valid email address.");
  });

  it("ignores a forged error message in the hosted form's URL", async () => {
    const formId = await createForm();
    const errors = encodeURIComponent(JSON.stringify({ email: "Call 555-0100 to claim your prize" }));
    const page = await (await fetch(`${server.url}/f/${formId}?errors=${errors}&sig=${"A".repeat(32)}`)).text();
    expect(page).not.toContain("claim your prize");
  });

  it("answers a browser's refused post for a closed form with an HTML page in the same status, linking back", async () => {
    const formId = await createForm({ status: "archived" });
    const reply = await post(new URLSearchParams({ formId, ...GOOD_DATA }), {
      Accept: "text/html,*/*",
      Referer: "https://shop.example/contact",
    });
    expect(reply.status).toBe(410);
    expect(reply.headers.get("content-type")).toMatch(/text\/html/);
    expect(reply.text).toContain("This form no longer accepts submissions.");
    expect(reply.text).toContain('<a href="https://shop.example/contact">');
    // A script asking for JSON gets the error shape, as before.
    expectError(
      await post(new URLSearchParams({ formId, ...GOOD_DATA }), { Accept: "application/json" }),
      410,
      "form_archived",
    );
  });

  it("answers a browser's post from a site the form does not allow with a page and a way back, not JSON", async () => {
    const formId = await createForm({ settings: { allowedOrigins: ["https://shop.example"] } });
    const reply = await post(new URLSearchParams({ formId, ...GOOD_DATA }), {
      Accept: BROWSER_ACCEPT,
      Origin: "https://other.example",
      Referer: "https://other.example/landing?x=1",
    });
    expect(reply.status).toBe(403);
    expect(reply.headers.get("content-type")).toMatch(/text\/html/);
    expect(reply.headers.get("access-control-allow-origin")).toBeNull();
    expect(reply.text).toMatch(/^<!doctype html>/i);
    expect(reply.text).toContain("does not accept submissions from this website");
    expect(reply.text).toContain('<a href="https://other.example/landing?x=1">');
    // An unsafe Referer gets no link.
    const navigating = await post(new URLSearchParams({ formId, ...GOOD_DATA }), {
      Accept: BROWSER_ACCEPT,
      Origin: "null",
      Referer: "javascript:alert(1)",
    });
    expect(navigating.status).toBe(403);
    expect(navigating.text).not.toContain("javascript:");
    expect(navigating.text).toContain("Back button");
    // A script's multipart post asking for JSON gets the error shape.
    const multipart = new FormData();
    multipart.set("formId", formId);
    expectError(
      await post(multipart, { Accept: "application/json", Origin: "https://other.example" }),
      403,
      "origin_not_allowed",
    );
    expect(await leadCount(formId)).toBe(0);
  });
});

describe("refusals", () => {
  it("refuses malformed JSON with 400", async () => {
    const formId = await createForm();
    const reply = await post(`{"formId": "${formId}", "data": {`, { "Content-Type": "application/json" });
    expectError(reply, 400, "malformed_json");
    expect(await leadCount(formId)).toBe(0);
  });

  it("refuses another content type with 415", async () => {
    const formId = await createForm();
    const reply = await post(JSON.stringify({ formId, data: GOOD_DATA }), { "Content-Type": "text/plain" });
    expectError(reply, 415, "unsupported_media_type");
    expect(await leadCount(formId)).toBe(0);
  });

  it("refuses a body over 64 KiB with 413", async () => {
    const formId = await createForm();
    const reply = await postJson({ formId, data: { ...GOOD_DATA, name: "x".repeat(65 * 1024) } });
    expectError(reply, 413, "payload_too_large");
    const chunked = await fetch(`${server.url}/api/leads/submit`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      // A stream has no Content-Length: the limit must hold while reading.
      body: new Blob([`formId=${formId}&name=${"y".repeat(70 * 1024)}`]).stream(),
      duplex: "half",
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(await leadCount(formId)).toBe(0);
  });

  it("refuses a submission without formId with 422 naming formId, as JSON and as a form post", async () => {
    const json = await postJson({ data: GOOD_DATA });
    expectError(json, 422, "validation_failed");
    expect(json.body.error.details).toEqual([{ path: "formId", message: expect.any(String) }]);
    const form = await post(new URLSearchParams(GOOD_DATA), { Accept: "application/json" });
    expectError(form, 422, "validation_failed");
    expect(form.body.error.details[0].path).toBe("formId");
    const notAnObject = await postJson(["formId"]);
    expectError(notAnObject, 422, "validation_failed");
  });

  it("refuses an unknown formId with 404 form_not_found", async () => {
    const before = await leadCount();
    expectError(await postJson({ formId: "no-such-form", data: GOOD_DATA }), 404, "form_not_found");
    expectError(await postJson({ formId: "x".repeat(500), data: GOOD_DATA }), 404, "form_not_found");
    expect(await leadCount()).toBe(before);
  });

  it("refuses an archived form with 410 form_archived", async () => {
    const formId = await createForm({ status: "archived" });
    expectError(await postJson({ formId, data: GOOD_DATA }), 410, "form_archived");
    expect(await leadCount(formId)).toBe(0);
  });

  it("refuses invalid data with 422 and one detail per bad field, unknown keys included", async () => {
    const formId = await createForm();
    const reply = await postJson({
      formId,
      data: {
        email: "not-an-email",
        employees: 0,
        plan: "enterprise",
        favouriteColour: "blue",
        interests: ["crm", "tv"],
      },
    });
    expectError(reply, 422, "validation_failed");
    const paths = reply.body.error.details.map((detail: { path: string }) => detail.path).sort();
    expect(paths).toEqual(
      ["data.email", "data.employees", "data.favouriteColour", "data.interests.1", "data.name", "data.plan"].sort(),
    );
    expect(new Set(paths).size).toBe(paths.length);
    expect(await leadCount(formId)).toBe(0);
  });

  it("refuses a missing data object, bad tracking values and unknown payload keys with 422 naming each", async () => {
    const formId = await createForm();
    const noData = await postJson({ formId });
    expectError(noData, 422, "validation_failed");
    expect(noData.body.error.details.map((detail: { path: string }) => detail.path)).toEqual(["data"]);

    const reply = await postJson({
      formId,
      data: GOOD_DATA,
      utm: { utm_source: "x".repeat(201), utm_medium: 5, utm_foo: "bar" },
      referrerUrl: "javascript:alert(1)",
      landingPageUrl: `https://example.com/${"p".repeat(2100)}`,
      extra: true,
    });
    expectError(reply, 422, "validation_failed");
    const paths = reply.body.error.details.map((detail: { path: string }) => detail.path).sort();
    expect(paths).toEqual(
      ["extra", "landingPageUrl", "referrerUrl", "utm.utm_foo", "utm.utm_medium", "utm.utm_source"].sort(),
    );
    expect(await leadCount(formId)).toBe(0);
  });

  it("refuses GET with 405 and an unusable Idempotency-Key with 422", async () => {
    const formId = await createForm();
    const get = await fetch(`${server.url}/api/leads/submit`);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toContain("POST");
    const reply = await postJson({ formId, data: GOOD_DATA }, { "Idempotency-Key": "k".repeat(201) });
    expectError(reply, 422, "validation_failed");
    expect(reply.body.error.details[0].path).toBe("Idempotency-Key");
    expect(await leadCount(formId)).toBe(0);
  });
});

describe("CORS", () => {
  it("answers a preflight for any origin with the methods and headers a browser may use", async () => {
    const response = await fetch(`${server.url}/api/leads/submit`, {
      method: "OPTIONS",
      headers: {
        Origin: "https://shop.example",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type, idempotency-key",
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("https://shop.example");
    expect(response.headers.get("access-control-allow-methods")).toContain("POST");
    expect(response.headers.get("access-control-allow-headers")!.toLowerCase()).toContain("idempotency-key");
    expect(response.headers.get("access-control-allow-headers")!.toLowerCase()).toContain("content-type");
    expect(response.headers.get("vary")).toContain("Origin");
  });

  it("lets any origin post to a form that lists none", async () => {
    const formId = await createForm();
    const reply = await postJson({ formId, data: GOOD_DATA }, { Origin: "https://anywhere.example" });
    expect(reply.status).toBe(201);
    expect(reply.headers.get("access-control-allow-origin")).toBe("https://anywhere.example");
    expect(reply.headers.get("vary")).toContain("Origin");
  });

  it("lets a listed origin post, and refuses another with 403 origin_not_allowed, storing nothing", async () => {
    const formId = await createForm({ settings: { allowedOrigins: ["https://shop.example"] } });
    const allowed = await postJson({ formId, data: GOOD_DATA }, { Origin: "https://shop.example" });
    expect(allowed.status).toBe(201);
    expect(allowed.headers.get("access-control-allow-origin")).toBe("https://shop.example");

    const refused = await postJson({ formId, data: GOOD_DATA }, { Origin: "https://evil.example" });
    expectError(refused, 403, "origin_not_allowed");
    expect(refused.headers.get("access-control-allow-origin")).toBeNull();
    const refusedForm = await post(new URLSearchParams({ formId, ...GOOD_DATA }), { Origin: "null" });
    expect(refusedForm.status).toBe(403);
    expect(await leadCount(formId)).toBe(1);

    // The app's own hosted page always may.
    const own = await postJson({ formId, data: GOOD_DATA }, { Origin: server.url });
    expect(own.status).toBe(201);
  });
});

describe("idempotency", () => {
  it("returns the first lead with 200 for a retry with the same key and stores nothing new", async () => {
    const formId = await createForm();
    const first = await postJson({ formId, data: GOOD_DATA }, { "Idempotency-Key": "order-123" });
    expect(first.status).toBe(201);
    const retry = await postJson(
      { formId, data: { ...GOOD_DATA, name: "Changed" } },
      { "Idempotency-Key": "order-123" },
    );
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect(await leadCount(formId)).toBe(1);

    const otherForm = await createForm();
    const elsewhere = await postJson({ formId: otherForm, data: GOOD_DATA }, { "Idempotency-Key": "order-123" });
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.body.id).not.toBe(first.body.id);
  });

  it("stores exactly one lead for concurrent retries with the same key", async () => {
    const formId = await createForm();
    const replies = await Promise.all(
      Array.from({ length: 20 }, () => postJson({ formId, data: GOOD_DATA }, { "Idempotency-Key": "same-key" })),
    );
    const statuses = replies.map((reply) => reply.status).sort((a, b) => a - b);
    expect(statuses).toEqual([...Array(19).fill(200), 201]);
    expect(new Set(replies.map((reply) => reply.body.id)).size).toBe(1);
    expect(await leadCount(formId)).toBe(1);
  });

  it("redirects a form post retry like the first one", async () => {
    const formId = await createForm();
    const body = () => new URLSearchParams({ formId, ...GOOD_DATA });
    const first = await post(body(), { "Idempotency-Key": "form-1" });
    const retry = await post(body(), { "Idempotency-Key": "form-1" });
    expect([first.status, retry.status]).toEqual([303, 303]);
    expect(await leadCount(formId)).toBe(1);
  });
});

describe("spam defence", () => {
  it("answers a filled honeypot like any lead and stores the lead flagged as spam", async () => {
    const formId = await createForm();
    const json = await postJson({ formId, data: GOOD_DATA, [HONEYPOT_FIELD]: "http://spam.example" });
    expect(json.status).toBe(201);
    expect(json.body).toEqual({ id: expect.any(String), formId, createdAt: expect.any(String) });
    const form = await post(new URLSearchParams({ formId, ...GOOD_DATA, [HONEYPOT_FIELD]: "buy now" }));
    expect(form.status).toBe(303);
    expect(form.headers.get("location")).toBe(`/f/${formId}/thanks`);
    const leads = await db.lead.findMany({ where: { formId }, select: { isSpam: true, data: true } });
    expect(leads).toHaveLength(2);
    expect(leads.every((lead) => lead.isSpam)).toBe(true);
    expect(leads[0].data).toEqual(GOOD_DATA);
  });

  it("stores a hosted-form post sent sooner than 3 s by a script, or with a forged timestamp, as spam", async () => {
    const formId = await createForm();
    const page = await (await fetch(`${server.url}/f/${formId}`)).text();
    const rendered = page.match(new RegExp(`name="${TIMESTAMP_FIELD}" value="([^"]+)"`))![1];
    const fast = await post(new URLSearchParams({ formId, ...GOOD_DATA, [TIMESTAMP_FIELD]: rendered }));
    expect(fast.status).toBe(303);

    const forged = `${Date.now() - 60_000}.${"A".repeat(32)}`;
    await post(new URLSearchParams({ formId, ...GOOD_DATA, [TIMESTAMP_FIELD]: forged }));
    const otherForm = signTimestamp("another-form", Date.now() - 60_000);
    await post(new URLSearchParams({ formId, ...GOOD_DATA, [TIMESTAMP_FIELD]: otherForm }));

    const human = signTimestamp(formId, Date.now() - 10_000);
    await post(new URLSearchParams({ formId, ...GOOD_DATA, name: "Human", [TIMESTAMP_FIELD]: human }));

    const leads = await db.lead.findMany({ where: { formId }, select: { isSpam: true, data: true } });
    expect(leads).toHaveLength(4);
    const spam = leads.filter((lead) => lead.isSpam);
    expect(spam).toHaveLength(3);
    expect(leads.find((lead) => !lead.isSpam)!.data).toMatchObject({ name: "Human" });
  });

  it("stores a browser's post sent sooner than 3 s (autofill) and otherwise clean as a normal lead", async () => {
    const formId = await createForm();
    const page = await (await fetch(`${server.url}/f/${formId}`)).text();
    const rendered = page.match(new RegExp(`name="${TIMESTAMP_FIELD}" value="([^"]+)"`))![1];
    const fast = await post(new URLSearchParams({ formId, ...GOOD_DATA, [TIMESTAMP_FIELD]: rendered }), {
      "User-Agent": BROWSER_AGENT,
    });
    expect(fast.status).toBe(303);
    expect(fast.headers.get("location")).toBe(`/f/${formId}/thanks`);
    // Fast and another sign (the honeypot) is still spam.
    await post(new URLSearchParams({ formId, ...GOOD_DATA, [TIMESTAMP_FIELD]: rendered, [HONEYPOT_FIELD]: "x" }), {
      "User-Agent": BROWSER_AGENT,
    });
    const leads = await db.lead.findMany({ where: { formId }, select: { isSpam: true } });
    expect(leads.map((lead) => lead.isSpam).sort()).toEqual([false, true]);
  });
});

describe("rate limit", () => {
  it("refuses the 4th submission per minute from one address to one form with 429 and Retry-After, storing nothing", async () => {
    const limited = await startServer({ SUBMIT_RATE_LIMIT_PER_MINUTE: "3" });
    try {
      const formId = await createForm();
      for (let i = 0; i < 3; i++) {
        expect((await postJson({ formId, data: GOOD_DATA }, {}, limited.url)).status).toBe(201);
      }
      const blocked = await postJson({ formId, data: GOOD_DATA }, { Origin: "https://shop.example" }, limited.url);
      expectError(blocked, 429, "rate_limited");
      const retryAfter = Number(blocked.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(blocked.headers.get("access-control-expose-headers")).toContain("Retry-After");
      // A person's browser gets a page, in the same status and with Retry-After.
      const page = await post(new URLSearchParams({ formId, ...GOOD_DATA }), { Accept: BROWSER_ACCEPT }, limited.url);
      expect(page.status).toBe(429);
      expect(page.headers.get("content-type")).toMatch(/text\/html/);
      expect(Number(page.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(page.text).toContain("Too many submissions");
      expect(await leadCount(formId)).toBe(3);

      // The limit is per form: the same address may still use another one.
      const otherForm = await createForm();
      expect((await postJson({ formId: otherForm, data: GOOD_DATA }, {}, limited.url)).status).toBe(201);
    } finally {
      await limited.stop();
    }
  });
});

describe("hosted form and embed script", () => {
  it("renders the hosted form without login, with the tracking fields of its URL, and 404 / 410 for unknown and archived forms", async () => {
    const formId = await createForm();
    const response = await fetch(`${server.url}/f/${formId}?utm_source=news&utm_term=a%22b`, {
      headers: { Referer: "https://news.example/post" },
    });
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain('action="/api/leads/submit"');
    expect(page).toMatch(new RegExp(`name="formId" value="${formId}"`));
    expect(page).toContain('name="utm_term" value="a&quot;b"');
    expect(page).toContain('name="referrerUrl" value="https://news.example/post"');
    expect(page).toContain(
      `name="landingPageUrl" value="${server.url}/f/${formId}?utm_source=news&amp;utm_term=a%22b"`,
    );
    expect(page).toContain(`name="${HONEYPOT_FIELD}"`);

    expect((await fetch(`${server.url}/f/no-such-form`)).status).toBe(404);
    const archived = await createForm({ status: "archived" });
    const closed = await fetch(`${server.url}/f/${archived}`);
    expect(closed.status).toBe(410);
    expect(await closed.text()).toContain("This form is closed");
  });

  it("serves the embed script as cacheable JavaScript that posts to this server's submit endpoint", async () => {
    const response = await fetch(`${server.url}/embed.js`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/javascript/);
    expect(response.headers.get("cache-control")).toMatch(/public, max-age=\d+/);
    const script = await response.text();
    expect(script).toContain("/api/leads/submit");
    expect(script).toContain("data-lead-form");
    expect(() => new Function(script)).not.toThrow();
    // It goes on every page of a customer's site: a server-side module pulled into it by an
    // import (a schema library, say) would multiply it. About 13 kB today.
    expect(script.length).toBeLessThan(30_000);
  });
});

describe("reserved names", () => {
  it("refuses a form field named like a form post's own fields, so no lead value can be taken for tracking", () => {
    for (const key of [
      "formId",
      "utm_source",
      "UTM_Campaign",
      "referrerUrl",
      "landingPageUrl",
      HONEYPOT_FIELD,
      TIMESTAMP_FIELD,
    ]) {
      const result = FieldsSchema.safeParse([{ key, label: "X", type: "text" }]);
      expect(result.success, key).toBe(false);
    }
    expect(FieldsSchema.safeParse([{ key: "utm_sourcery", label: "X", type: "text" }]).success).toBe(true);
  });
});
