// Thousands of generated bodies, content types and headers at every public endpoint:
// none may answer 500, every refusal uses the one error shape, and nothing is stored
// from a refused request (counted per endpoint against the rows in the database).
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrResetUser } from "~/staff/user.server";
import { db } from "~/storage/db.server";
import { newForm } from "../support/forms";
import { startServer, type TestServer } from "../support/server";

let server: TestServer;
let formId: string;
let reference: string;
const RUNS = Number(process.env.FUZZ_RUNS ?? 400);

beforeAll(async () => {
  server = await startServer({ SUBMIT_RATE_LIMIT_PER_MINUTE: "0", SUPPORT_RATE_LIMIT_PER_HOUR: "0" });
  formId = await newForm({
    name: "Fuzz",
    fields: [
      { key: "name", label: "Name", type: "text", required: true, maxLength: 80 },
      { key: "email", label: "Email", type: "email", required: true },
      { key: "size", label: "Size", type: "number", min: 1, max: 1000 },
      { key: "topic", label: "Topic", type: "select", options: ["a", "b"] },
      { key: "tags", label: "Tags", type: "multiselect", options: ["x", "y"] },
      { key: "ok", label: "OK", type: "checkbox" },
    ],
  });
  await createOrResetUser({ email: "staff@example.com", password: "correct horse battery staple" });
  const ticket = await fetch(`${server.url}/api/support-requests`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email: "customer@example.com", subject: "Help", message: "Hello" }),
  });
  reference = ((await ticket.json()) as { reference: string }).reference;
});
afterAll(async () => {
  await server?.stop();
});

// ------------------------------------------------------------------ generators

const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "application/json; charset=latin1",
  "application/x-www-form-urlencoded",
  "multipart/form-data",
  "multipart/form-data; boundary=xyz",
  "text/plain",
  "text/html",
  "application/xml",
  "application/vnd.api+json",
  "",
  ";;;",
  "application/json; boundary",
];

const anyValue = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 4 }),
  fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
  fc.string({ unit: "grapheme", maxLength: 50 }),
  fc.constantFrom("<script>alert(1)</script>", "=cmd|' /C calc'!A0", "\u0000", "ada@example.com", "1e309", "__proto__"),
);

/** Bodies that look like a submission, with every part liable to be wrong. */
const submission = fc.record(
  {
    formId: fc.oneof(fc.constant("FORM"), fc.string(), anyValue),
    data: fc.oneof(
      fc.record(
        { name: anyValue, email: anyValue, size: anyValue, topic: anyValue, tags: anyValue, ok: anyValue },
        { requiredKeys: [] },
      ),
      anyValue,
      fc.dictionary(fc.string(), anyValue, { maxKeys: 5 }),
    ),
    utm: fc.oneof(fc.dictionary(fc.constantFrom("utm_source", "utm_medium", "utm_campaign", "x"), anyValue), anyValue),
    referrerUrl: anyValue,
    landingPageUrl: fc.oneof(fc.webUrl(), anyValue),
    _hp: fc.oneof(fc.constant(""), anyValue),
    __proto__: anyValue,
  },
  { requiredKeys: [] },
);

const ticketBody = fc.record(
  {
    email: fc.oneof(fc.emailAddress(), anyValue),
    name: anyValue,
    subject: anyValue,
    message: anyValue,
    website: anyValue,
  },
  { requiredKeys: [] },
);

const inboundBody = fc.oneof(
  fc.record(
    {
      from: fc.oneof(fc.emailAddress(), fc.constant("customer@example.com"), anyValue),
      subject: fc.oneof(
        fc.constant("Re: Help [#REF]"),
        fc.string().map((s) => `${s} #REF ${s}`),
        anyValue,
      ),
      text: anyValue,
      html: fc.oneof(fc.constant("<p>Hi <script>x()</script></p>"), anyValue),
      headers: anyValue,
    },
    { requiredKeys: [] },
  ),
  fc.record(
    {
      From: anyValue,
      Subject: fc.oneof(fc.constant("RE: [#REF]"), anyValue),
      TextBody: anyValue,
      HtmlBody: anyValue,
      MessageID: anyValue,
      Headers: anyValue,
    },
    { requiredKeys: [] },
  ),
);

const loginBody = fc.record({ email: fc.oneof(fc.emailAddress(), anyValue), password: anyValue }, { requiredKeys: [] });

type Encoded = { body: BodyInit | undefined; contentType: string };

/** Encodes an object the many ways a client may, right or wrong. */
function encodings(value: unknown) {
  const replace = (text: string) => text.replaceAll("FORM", formId).replaceAll("REF", reference);
  return fc.oneof(
    fc.constant<Encoded>({ body: replace(JSON.stringify(value) ?? "null"), contentType: "application/json" }),
    fc
      .constantFrom(...CONTENT_TYPES)
      .map<Encoded>((contentType) => ({ body: replace(JSON.stringify(value) ?? ""), contentType })),
    fc.constantFrom(...CONTENT_TYPES).map<Encoded>((contentType) => {
      const params = new URLSearchParams();
      if (value && typeof value === "object") {
        for (const [key, item] of Object.entries(value))
          params.append(key, replace(typeof item === "string" ? item : (JSON.stringify(item) ?? "")));
      }
      return { body: params.toString(), contentType };
    }),
    fc
      .uint8Array({ maxLength: 300 })
      .map<Encoded>((bytes) => ({ body: Buffer.from(bytes), contentType: "application/json" })),
    fc
      .string({ maxLength: 300 })
      .chain((text) => fc.constantFrom(...CONTENT_TYPES).map<Encoded>((contentType) => ({ body: text, contentType }))),
    fc.constant<Encoded>({
      body: `--xyz\r\nContent-Disposition: form-data; name="formId"\r\n\r\n${formId}\r\n--xyz\r\nContent-Disposition: form-data; name="name"\r\n\r\nAda`,
      contentType: "multipart/form-data; boundary=xyz",
    }),
    fc.constant<Encoded>({ body: undefined, contentType: "application/json" }),
  );
}

const extraHeaders = fc.record(
  {
    Origin: fc.oneof(
      fc.constant("https://evil.example"),
      fc.constant("null"),
      fc.webUrl(),
      fc.string({ maxLength: 30 }),
    ),
    Accept: fc.constantFrom("application/json", "text/html", "*/*", "", "image/png"),
    "Idempotency-Key": fc.string({ maxLength: 250 }),
    "Accept-Language": fc.string({ maxLength: 20 }),
    "X-Forwarded-For": fc.string({ maxLength: 40 }),
    "Content-Encoding": fc.constantFrom("gzip", "identity", "br"),
  },
  { requiredKeys: [] },
);

function safeHeaders(headers: Record<string, string>): Record<string, string> {
  // fetch refuses header values with control characters or non-Latin-1 text: those never leave a client.
  return Object.fromEntries(Object.entries(headers).filter(([, value]) => /^[\x20-\x7e]*$/.test(value)));
}

// ------------------------------------------------------------------ the run

type Outcome = { status: number; body: string; contentType: string; location: string | null };

async function send(path: string, encoded: Encoded, headers: Record<string, string>): Promise<Outcome> {
  const response = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: safeHeaders({ ...headers, ...(encoded.contentType ? { "Content-Type": encoded.contentType } : {}) }),
    body: encoded.body,
    redirect: "manual",
  });
  return {
    status: response.status,
    body: await response.text(),
    contentType: response.headers.get("content-type") ?? "",
    location: response.headers.get("location"),
  };
}

function expectNoServerErrorAndOneShape(outcome: Outcome, what: string) {
  expect(outcome.status, `${what}: ${outcome.body.slice(0, 300)}`).toBeLessThan(500);
  if (outcome.status >= 400 && outcome.contentType.includes("application/json")) {
    const parsed = JSON.parse(outcome.body);
    expect(Object.keys(parsed)).toEqual(["error"]);
    expect(typeof parsed.error.code).toBe("string");
    expect(typeof parsed.error.message).toBe("string");
    if (parsed.error.details !== undefined) {
      for (const detail of parsed.error.details) {
        expect(typeof detail.path).toBe("string");
        expect(typeof detail.message).toBe("string");
      }
    }
    expect(outcome.body).not.toMatch(/at \S+ \(|node_modules|prisma|SQLITE|stack/i);
  }
}

describe("hostile input at the public endpoints", () => {
  it(`submit: ${RUNS} generated requests, no 500, refusals in the error shape, a lead only per success`, async () => {
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(submission.chain(encodings), extraHeaders, async (encoded, headers) => {
        const outcome = await send("/api/leads/submit", encoded, headers);
        expectNoServerErrorAndOneShape(outcome, "submit");
        const newLead =
          outcome.status === 201 ||
          (outcome.status === 303 &&
            !/[?&]errors=/.test(outcome.location ?? "") &&
            !/\/f\/[^/]+\?/.test(outcome.location ?? ""));
        if (newLead) accepted++;
      }),
      { numRuns: RUNS },
    );
    expect(await db.lead.count()).toBe(accepted);
  });

  it(`support request creation: ${RUNS} generated requests, a ticket only per success`, async () => {
    const before = await db.ticket.count();
    let created = 0;
    let decoys = 0;
    await fc.assert(
      fc.asyncProperty(ticketBody.chain(encodings), extraHeaders, async (encoded, headers) => {
        const outcome = await send("/api/support-requests", encoded, headers);
        expectNoServerErrorAndOneShape(outcome, "support create");
        if (outcome.status === 201) {
          const { id } = JSON.parse(outcome.body);
          if (await db.ticket.findUnique({ where: { id }, select: { id: true } })) created++;
          else decoys++; // honeypot: answered like a success, stored nothing
        } else if (outcome.status === 303 && outcome.location) {
          // A browser's post: our support page shows the reference (or the form again).
          const page = await (await fetch(new URL(outcome.location, server.url))).text();
          const reference = /<strong>([A-Z]+-\d+)<\/strong>/.exec(page)?.[1];
          if (!reference) return;
          if (await db.ticket.findUnique({ where: { reference }, select: { id: true } })) created++;
          else decoys++;
        }
      }),
      { numRuns: RUNS },
    );
    expect(await db.ticket.count()).toBe(before + created);
    expect(created + decoys).toBeGreaterThanOrEqual(0);
  });

  it(`inbound webhook: ${RUNS} generated requests with and without the secret, a message only per 201`, async () => {
    const before = await db.ticketMessage.count();
    let recorded = 0;
    const secret = fc.oneof(
      fc.constant({ "x-inbound-secret": process.env.INBOUND_SECRET! }),
      fc.constant({ Authorization: `Bearer ${process.env.INBOUND_SECRET}` }),
      fc.record({ "x-inbound-secret": fc.string({ maxLength: 40 }) }),
      fc.constant({}),
    );
    await fc.assert(
      fc.asyncProperty(inboundBody.chain(encodings), extraHeaders, secret, async (encoded, headers, auth) => {
        const outcome = await send("/api/support-requests/inbound", encoded, { ...headers, ...auth });
        expectNoServerErrorAndOneShape(outcome, "inbound");
        if (outcome.status === 201) recorded++;
      }),
      { numRuns: RUNS },
    );
    expect(await db.ticketMessage.count()).toBe(before + recorded);
  });

  it(`login: ${RUNS} generated requests, JSON API and HTML form, never a 500 and never a session without the password`, async () => {
    await fc.assert(
      fc.asyncProperty(
        loginBody.chain(encodings),
        extraHeaders,
        fc.constantFrom("/api/auth/login", "/login"),
        async (encoded, headers, path) => {
          const response = await fetch(`${server.url}${path}`, {
            method: "POST",
            headers: safeHeaders({
              ...headers,
              ...(encoded.contentType ? { "Content-Type": encoded.contentType } : {}),
            }),
            body: encoded.body,
            redirect: "manual",
          });
          const outcome = {
            status: response.status,
            body: await response.text(),
            contentType: response.headers.get("content-type") ?? "",
            location: null,
          };
          expectNoServerErrorAndOneShape(outcome, `login ${path}`);
          expect(response.headers.get("set-cookie") ?? "").not.toMatch(/__session=[^;]+\./);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("leaves the server's log free of stack traces of unexpected errors", () => {
    expect(server.output()).not.toMatch(/failed:|Unexpected Server Error|TypeError|ReferenceError/);
  });
});
