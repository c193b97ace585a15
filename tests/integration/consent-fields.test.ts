// Consent fields (issue 32, item 3; decision 065) and a form's privacy notice (item 6), through
// the production server on a real database, with a real webhook receiver: a required consent
// is refused unticked, naming the field; a ticked one is kept as a record with the exact text,
// its version, the time and the client address's HMAC, written with the lead; a changed text
// is a new version while earlier leads keep theirs; exports get a version-and-time column; the
// lead.created body equals the API's lead; an unsafe link or privacy address is refused at save.
import ExcelJS from "exceljs";
import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { createFormThroughApi } from "../support/forms";
import { apiClient, loginAsStaff, postForm, type ApiClient } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import { startReceiver, type Receiver } from "../support/webhook-receiver";

const TERMS_V1 = "I agree to the [terms](https://example.com/terms) and to being contacted.";
const TERMS_V2 = "I agree to the [terms](https://example.com/terms-2027) and to being contacted by email.";

let server: TestServer;
let receiver: Receiver;
let call: ApiClient;
let cookie: string;

beforeAll(async () => {
  [server, receiver] = await Promise.all([
    startServer({
      SUBMIT_RATE_LIMIT_PER_MINUTE: "0",
      WEBHOOK_ALLOW_HTTP: "true",
      WEBHOOK_ALLOW_PRIVATE: "true",
      WEBHOOK_POLL_MS: "100",
    }),
    startReceiver(),
  ]);
  cookie = await loginAsStaff(server.url);
  call = apiClient(server.url, cookie);
});
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

const fieldsWith = (text: string) => [
  { key: "email", label: "Email", type: "email", required: true },
  { key: "terms", label: "Terms", type: "consent", required: true, text },
  { key: "news", label: "Newsletter", type: "consent", text: "Send me the monthly newsletter." },
];

let forms = 0;
async function consentForm(text = TERMS_V1, settings: Record<string, unknown> = {}) {
  forms++;
  const form = await createFormThroughApi(call, { name: `Consent ${forms}`, fields: fieldsWith(text), settings });
  return form.id as string;
}

async function submit(formId: string, data: Record<string, unknown>) {
  return call("POST", "/api/leads/submit", { formId, data }, { "User-Agent": "Mozilla/5.0 (consent test)" });
}

describe("a consent field", () => {
  it("refuses a required consent left unticked with 422 naming the field, and stores nothing", async () => {
    const formId = await consentForm();
    const refused = await submit(formId, { email: "no@example.com", terms: false });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.error.details).toEqual([expect.objectContaining({ path: "data.terms" })]);
    // A plain HTML post without the box: sent back to the form with the field named.
    const plain = await postForm(`${server.url}/api/leads/submit`, { formId, email: "no@example.com" });
    expect(plain.status).toBe(303);
    expect(plain.location).toContain(`/f/${formId}?`);
    expect(await db.lead.count({ where: { formId } })).toBe(0);
    expect(await db.consentRecord.count({ where: { lead: { formId } } })).toBe(0);
  });

  it("keeps each ticked consent with its text, version, time, form version and hashed address, written with the lead", async () => {
    const formId = await consentForm();
    const before = Date.now();
    const sent = await submit(formId, { email: "ada@example.com", terms: true, news: false });
    expect(sent.status, sent.text).toBe(201);
    const lead = await db.lead.findUniqueOrThrow({ where: { id: sent.body.id } });
    const records = await db.consentRecord.findMany({ where: { leadId: lead.id } });
    // Only the ticked one: the newsletter was left unticked.
    expect(records).toHaveLength(1);
    const [record] = records;
    expect(record).toMatchObject({ fieldKey: "terms", text: TERMS_V1, formVersion: 1, ipHash: lead.ipHash });
    expect(record.version).toMatch(/^[0-9a-f]{16}$/);
    expect(record.ipHash).toMatch(/^[0-9a-f]{64}$/);
    expect(record.acceptedAt.getTime()).toBe(lead.createdAt.getTime());
    expect(record.acceptedAt.getTime()).toBeGreaterThanOrEqual(before - 1000);

    const shown = (await call("GET", `/api/leads/${lead.id}`)).body.lead;
    expect(shown.consents).toEqual([
      { field: "terms", text: TERMS_V1, version: record.version, acceptedAt: record.acceptedAt.toISOString() },
    ]);
    // A plain post ticks with "on"; both consents are kept, in the fields' order.
    const plain = await postForm(`${server.url}/api/leads/submit`, {
      formId,
      email: "bob@example.com",
      terms: "on",
      news: "on",
    });
    expect(plain.status).toBe(303);
    const bob = await db.lead.findFirstOrThrow({ where: { formId, email: "bob@example.com" } });
    const bobs = (await call("GET", `/api/leads/${bob.id}`)).body.lead.consents;
    expect(bobs.map((consent: { field: string }) => consent.field)).toEqual(["terms", "news"]);
  });

  it("writes leads with and without consents side by side in one group commit, each with exactly its own records", async () => {
    const withConsent = await consentForm();
    const plain = await createFormThroughApi(call, {
      name: "No consent",
      fields: [{ key: "email", label: "Email", type: "email", required: true }],
    });
    const sent = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        i % 2 === 0
          ? submit(withConsent, { email: `c${i}@example.com`, terms: true, news: i % 4 === 0 })
          : submit(plain.id, { email: `p${i}@example.com` }),
      ),
    );
    expect(sent.map((res) => res.status)).toEqual(sent.map(() => 201));
    const records = await db.consentRecord.findMany({ where: { leadId: { in: sent.map((res) => res.body.id) } } });
    const byLead = new Map<string, typeof records>();
    for (const record of records) byLead.set(record.leadId, [...(byLead.get(record.leadId) ?? []), record]);
    sent.forEach((res, i) => {
      const expected = i % 2 === 1 ? [] : i % 4 === 0 ? ["news", "terms"] : ["terms"];
      expect((byLead.get(res.body.id) ?? []).map((record) => record.fieldKey).sort()).toEqual(expected);
    });
  });

  it("makes a new version when the text changes, and earlier leads keep the text they agreed to", async () => {
    const formId = await consentForm();
    const first = await submit(formId, { email: "early@example.com", terms: true });
    const changed = await call("PUT", `/api/forms/${formId}/schema`, { fields: fieldsWith(TERMS_V2) });
    expect(changed.status, changed.text).toBe(200);
    const second = await submit(formId, { email: "late@example.com", terms: true });
    expect(second.status, second.text).toBe(201);
    const early = (await call("GET", `/api/leads/${first.body.id}`)).body.lead.consents[0];
    const late = (await call("GET", `/api/leads/${second.body.id}`)).body.lead.consents[0];
    expect(early.text).toBe(TERMS_V1);
    expect(late.text).toBe(TERMS_V2);
    expect(late.version).not.toBe(early.version);
    const stored = await db.consentRecord.findMany({ where: { lead: { formId } }, orderBy: { formVersion: "asc" } });
    expect(stored.map((record) => record.formVersion)).toEqual([1, 2]);
  });

  it("gives the exports a column per consent field with the version and time", async () => {
    const formId = await consentForm();
    const ticked = await submit(formId, { email: "csv@example.com", terms: true, news: true });
    const record = await db.consentRecord.findFirstOrThrow({ where: { leadId: ticked.body.id, fieldKey: "terms" } });
    const expected = `${record.version} ${record.acceptedAt.toISOString()}`;

    const csv = await fetch(`${server.url}/api/leads/export?format=csv&formId=${formId}`, {
      headers: { Cookie: cookie },
    });
    expect(csv.status).toBe(200);
    const rows = Papa.parse<string[]>((await csv.text()).replace(/^\uFEFF/, ""), { skipEmptyLines: true }).data;
    const [headers, row] = rows;
    const at = headers.indexOf("Terms (consent version and time, UTC)");
    expect(at).toBeGreaterThan(headers.indexOf("Terms"));
    expect(row[at]).toBe(expected);
    expect(headers).toContain("Newsletter (consent version and time, UTC)");

    const xlsx = await fetch(`${server.url}/api/leads/export?format=xlsx&formId=${formId}`, {
      headers: { Cookie: cookie },
    });
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(Buffer.from(await xlsx.arrayBuffer()) as never);
    const sheet = book.worksheets[0];
    const header = (sheet.getRow(1).values as unknown[]).indexOf("Terms (consent version and time, UTC)");
    expect(header).toBeGreaterThan(0);
    expect(sheet.getRow(2).getCell(header).value).toBe(expected);
  });

  it("carries the consents in lead.created exactly as GET /api/leads/:id shows the lead", async () => {
    const formId = await consentForm();
    const hook = await call("POST", "/api/webhooks", {
      url: `${receiver.url}/consent`,
      events: ["lead.created"],
      formId,
    });
    expect(hook.status, hook.text).toBe(201);
    const sent = await submit(formId, { email: "hook@example.com", terms: true });
    await expect.poll(() => receiver.received.filter((r) => r.path === "/consent").length, { timeout: 15_000 }).toBe(1);
    const body = JSON.parse(receiver.received.find((r) => r.path === "/consent")!.body);
    const {
      notes: _n,
      timeline: _t,
      history: _h,
      stage: _s,
      ...lead
    } = (await call("GET", `/api/leads/${sent.body.id}`)).body.lead;
    expect(lead.consents).toHaveLength(1);
    expect(body.data).toEqual(lead);
  });

  it("refuses at save a link that is not http(s), a consent without text, and a pre-ticked box", async () => {
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ text: "I agree to the [terms](javascript:alert(1))." }, "fields.0.text", /http/],
      [{ text: "Read [this](data:text/html,hi)" }, "fields.0.text", /http/],
      [{}, "fields.0.text", /text/],
      [{ text: "I agree.", defaultValue: true }, "fields.0.defaultValue", /unticked/],
    ];
    for (const [extra, path, message] of cases) {
      const res = await call("POST", "/api/forms", {
        name: "Unsafe consent",
        fields: [{ key: "terms", label: "Terms", type: "consent", ...extra }],
      });
      expect(res.status, res.text).toBe(422);
      expect(res.body.error.details).toEqual(
        expect.arrayContaining([expect.objectContaining({ path, message: expect.stringMatching(message) })]),
      );
    }
    // Text on another type is refused too.
    const other = await call("POST", "/api/forms", {
      name: "Text on a checkbox",
      fields: [{ key: "box", label: "Box", type: "checkbox", text: "I agree." }],
    });
    expect(other.status).toBe(422);
  });
});

describe("settings.privacyUrl", () => {
  it("takes an https address, shows it on the hosted page, and refuses anything else with 422", async () => {
    const formId = await consentForm(TERMS_V1, { privacyUrl: "https://example.com/privacy" });
    const page = await fetch(`${server.url}/f/${formId}`, { headers: { "User-Agent": "Mozilla/5.0 (test)" } });
    const html = await page.text();
    expect(html).toMatch(
      /<a href="https:\/\/example.com\/privacy"[^>]*rel="noopener noreferrer"[^>]*>Privacy notice<\/a>/,
    );
    // The consent's link is drawn as a link, safely.
    expect(html).toMatch(
      /<a href="https:\/\/example.com\/terms"[^>]*target="_blank" rel="noopener noreferrer">terms<\/a>/,
    );

    for (const privacyUrl of ["http://example.com/privacy", "javascript:alert(1)", "privacy"]) {
      const res = await call("PATCH", `/api/forms/${formId}`, { settings: { privacyUrl } });
      expect(res.status, res.text).toBe(422);
      expect(res.body.error.details[0].path).toBe("settings.privacyUrl");
    }
    const removed = await call("PATCH", `/api/forms/${formId}`, { settings: { privacyUrl: null } });
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body.settings.privacyUrl).toBeUndefined();
  });
});
