// The direct-dispatch fast path (server/direct-dispatch.ts) must answer exactly as Remix
// does for the same requests: two servers in this process on the same build and database,
// one with the fast path and one routing everything through Remix, get the same requests
// and must give the same status, headers and body.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { createAppServer, type AppServer } from "../../server/app-server";
import { newForm } from "../support/forms";
import { loginAsStaff } from "../support/http";
import type { AddressInfo } from "node:net";

// Per-address limits would count both servers' requests against one budget.
process.env.SUBMIT_RATE_LIMIT_PER_MINUTE = "0";

const servers: Array<AppServer & { url: string }> = [];
let formId = "";
let cookie = "";

async function start(directDispatch: boolean) {
  const buildDir = path.resolve(import.meta.dirname, "..", "..", process.env.BUILD_DIR ?? "build");
  const app = await createAppServer({ buildDir, directDispatch });
  await new Promise<void>((resolve) => app.server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  servers.push({ ...app, url });
  return url;
}

let direct = "";
let viaRemix = "";

beforeAll(async () => {
  direct = await start(true);
  viaRemix = await start(false);
  formId = await newForm({
    name: "Compared",
    fields: [
      { key: "email", label: "Email", type: "email", required: true },
      { key: "size", label: "Size", type: "number", min: 1 },
    ],
  });
  cookie = await loginAsStaff(direct);
});

afterAll(async () => {
  for (const server of servers) await new Promise<void>((resolve) => server.server.close(() => resolve()));
  await db.$disconnect();
});

type Case = { name: string; method: string; path: string; headers?: Record<string, string>; body?: () => string };

// Headers that differ between two answers for reasons of transport or time, and the request
// id, new for each answer (checked to be there below).
const TRANSPORT = new Set(["date", "connection", "keep-alive", "transfer-encoding", "content-length", "x-request-id"]);

async function answerOf(base: string, c: Case) {
  const response = await fetch(`${base}${c.path}`, {
    method: c.method,
    headers: c.headers?.cookie === "staff" ? { ...c.headers, cookie } : c.headers,
    body: c.body?.(),
    redirect: "manual",
  });
  expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  const headers = [...response.headers].filter(([name]) => !TRANSPORT.has(name));
  // Leads made by the two calls differ only in their ids and times.
  const body = (await response.text())
    .replace(/"(id|leadId)":"[^"]+"/g, '"$1":"…"')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z/g, "…");
  return { status: response.status, headers, body };
}

const json = { "content-type": "application/json" };
const cases: Case[] = [
  {
    name: "a valid JSON submission",
    method: "POST",
    path: "/api/leads/submit",
    headers: json,
    body: () => JSON.stringify({ formId, data: { email: "a@example.com", size: 3 } }),
  },
  {
    name: "an invalid submission",
    method: "POST",
    path: "/api/leads/submit",
    headers: json,
    body: () => JSON.stringify({ formId, data: { email: "no", size: 0 } }),
  },
  {
    name: "an unknown form",
    method: "POST",
    path: "/api/leads/submit",
    headers: json,
    body: () => JSON.stringify({ formId: "nope" }),
  },
  { name: "malformed JSON", method: "POST", path: "/api/leads/submit", headers: json, body: () => "{" },
  {
    name: "an unsupported type",
    method: "POST",
    path: "/api/leads/submit",
    headers: { "content-type": "text/plain" },
    body: () => "x",
  },
  {
    name: "a body over the limit",
    method: "POST",
    path: "/api/leads/submit",
    headers: json,
    body: () => JSON.stringify({ formId, email: "x".repeat(300_000) }),
  },
  {
    name: "a plain HTML form post",
    method: "POST",
    path: "/api/leads/submit",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: () => `formId=${formId}&email=b%40example.com`,
  },
  {
    name: "a CORS preflight",
    method: "OPTIONS",
    path: "/api/leads/submit",
    headers: { origin: "https://site.example" },
  },
  { name: "GET on the submit endpoint", method: "GET", path: "/api/leads/submit" },
  { name: "HEAD on the submit endpoint", method: "HEAD", path: "/api/leads/submit" },
  { name: "PUT on the submit endpoint", method: "PUT", path: "/api/leads/submit", headers: json, body: () => "{}" },
  { name: "DELETE on the submit endpoint", method: "DELETE", path: "/api/leads/submit" },
  {
    name: "the index parameter Remix strips",
    method: "POST",
    path: "/api/leads/submit?index",
    headers: json,
    body: () => JSON.stringify({ formId: "nope" }),
  },
  { name: "the lead list without a session", method: "GET", path: "/api/leads" },
  { name: "the lead list", method: "GET", path: "/api/leads?limit=5", headers: { cookie: "staff" } },
  { name: "the lead list, HEAD", method: "HEAD", path: "/api/leads?limit=5", headers: { cookie: "staff" } },
  {
    name: "the lead list with a bad filter",
    method: "GET",
    path: "/api/leads?from=yesterday",
    headers: { cookie: "staff" },
  },
  {
    name: "POST on the lead list",
    method: "POST",
    path: "/api/leads",
    headers: { ...json, cookie: "staff" },
    body: () => "{}",
  },
];

describe("the direct-dispatch fast path", () => {
  it.each(cases)("answers $name exactly as Remix does", async (c) => {
    const fast = await answerOf(direct, c);
    const remix = await answerOf(viaRemix, c);
    expect(fast).toEqual(remix);
    // The comparison means something only if the request reached the route.
    expect(fast.status).not.toBe(500);
  });

  it("is really two paths: the fast one answers in one write, Remix's streams", async () => {
    const send = (base: string) =>
      fetch(`${base}/api/leads/submit`, { method: "POST", headers: json, body: JSON.stringify({ formId: "nope" }) });
    const [fast, remix] = await Promise.all([send(direct), send(viaRemix)]);
    expect(fast.headers.get("content-length")).toMatch(/^\d+$/);
    expect(remix.headers.get("transfer-encoding")).toBe("chunked");
  });

  it("stored one lead per accepted submission on each path", async () => {
    // The valid JSON submission and the plain form post, each on both paths.
    expect(await db.lead.count({ where: { formId } })).toBe(4);
  });
});
