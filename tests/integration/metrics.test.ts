// GET /metrics on the real server (decision 052): Prometheus text that a strict reader
// parses, behind METRICS_TOKEN (404 while unset, 401 without it, in the API's error shape),
// and metrics that move with what the server does: leads accepted and refused by reason,
// group commits, request durations by route pattern (never a raw path), the queues'
// backlogs read at scrape time, the inbound workers' time-outs.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HONEYPOT_FIELD } from "~/leads/lead-fields";
import { db } from "~/storage/db.server";
import { newForm } from "../support/forms";
import { ownClientAddress } from "../support/http";
import { labelValues, parsePrometheusText, sumOf, type Family } from "../support/prometheus";
import { SECRET_PREFIXES } from "../support/secrets";
import { preloadInto, startServer, type TestServer } from "../support/server";
import { inboundSecret } from "../support/support-desk";

const TOKEN = `${SECRET_PREFIXES[3]}${randomBytes(16).toString("hex")}`;
const RATE_LIMIT = 2;

let server: TestServer;

beforeAll(async () => {
  server = await startServer({
    METRICS_TOKEN: TOKEN,
    SUBMIT_RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
    // The test of wrong tokens per address sends its own (X-Forwarded-For).
    TRUST_PROXY: "true",
    // The queues' workers stay idle: the backlog test's rows wait where it put them.
    OUTBOX_POLL_MS: "600000",
    WEBHOOK_POLL_MS: "600000",
    // Inbound JSON that names the stall marker takes 3 s to parse in a worker.
    NODE_OPTIONS: preloadInto("tests/fixtures/stall-in-worker.ts"),
  });
});
afterAll(async () => {
  await server?.stop();
});

async function scrape(): Promise<Map<string, Family>> {
  const response = await fetch(`${server.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  const text = await response.text();
  expect(response.status, text.slice(0, 300)).toBe(200);
  return parsePrometheusText(text);
}

async function submit(payload: unknown, headers: Record<string, string> = {}): Promise<number> {
  const response = await fetch(`${server.url}/api/leads/submit`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: typeof payload === "string" ? payload : JSON.stringify(payload),
  });
  await response.arrayBuffer();
  return response.status;
}

const GOOD = { name: "Ada Lovelace", email: "ada@example.com" };

async function expectJsonError(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  expect(await response.json()).toEqual({ error: { code, message: expect.any(String) } });
}

describe("access to /metrics", () => {
  it("is off while METRICS_TOKEN is unset: 404 in the JSON error shape, token or not", async () => {
    const off = await startServer({});
    try {
      await expectJsonError(await fetch(`${off.url}/metrics`), 404, "not_found");
      const withToken = await fetch(`${off.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
      await expectJsonError(withToken, 404, "not_found");
    } finally {
      await off.stop();
    }
  });

  it("refuses a missing, wrong or mis-sent token with 401 in the JSON error shape", async () => {
    for (const authorization of [
      undefined,
      "Bearer wrong-token",
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(0, -1)}`,
      `Basic ${Buffer.from(`metrics:${TOKEN}`).toString("base64")}`,
      TOKEN,
      "Bearer",
    ]) {
      const response = await fetch(`${server.url}/metrics`, {
        headers: authorization === undefined ? {} : { Authorization: authorization },
      });
      expect(response.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
      await expectJsonError(response, 401, "unauthorized");
    }
  });

  it("counts wrong tokens per address: past 10 in 15 minutes, 429; the right token still passes", async () => {
    const address = ownClientAddress();
    const send = (token: string) =>
      fetch(`${server.url}/metrics`, { headers: { ...address, Authorization: `Bearer ${token}` } });
    for (let i = 0; i < 10; i++) await expectJsonError(await send(`wrong-${i}`), 401, "unauthorized");
    const limited = await send("wrong-again");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    await expectJsonError(limited, 429, "rate_limited");
    const right = await send(TOKEN);
    expect(right.status).toBe(200);
    await right.arrayBuffer();
    expect(server.output()).toMatch(/wrong metrics token from address [0-9a-f]{12} \(10 of 10 in 15 minutes\)/);
    expect(server.output()).not.toContain(TOKEN);
  });

  it("answers the token with Prometheus text: the process's metrics, the requests', the app's", async () => {
    const response = await fetch(`${server.url}/metrics`, { headers: { authorization: `bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const families = parsePrometheusText(await response.text());
    const types = Object.fromEntries([...families.values()].map((family) => [family.name, family.type]));
    expect(types).toMatchObject({
      process_cpu_seconds_total: "counter",
      process_resident_memory_bytes: "gauge",
      nodejs_eventloop_lag_seconds: "gauge",
      nodejs_heap_size_used_bytes: "gauge",
      http_request_duration_seconds: "histogram",
      http_requests_in_flight: "gauge",
      leadcapture_leads_accepted_total: "counter",
      leadcapture_leads_refused_total: "counter",
      leadcapture_lead_commit_batch_size: "histogram",
      leadcapture_outbox_pending: "gauge",
      leadcapture_outbox_oldest_pending_age_seconds: "gauge",
      leadcapture_webhook_fan_out_pending: "gauge",
      leadcapture_webhook_fan_out_oldest_pending_age_seconds: "gauge",
      leadcapture_webhook_deliveries_pending: "gauge",
      leadcapture_webhook_deliveries_oldest_pending_age_seconds: "gauge",
      leadcapture_inbound_worker_queue_length: "gauge",
      leadcapture_inbound_worker_timeouts_total: "counter",
    });
    for (const family of families.values()) expect(family.help, family.name).not.toBe("");
    // This scrape itself is in flight while it is read.
    expect(sumOf(families, "http_requests_in_flight")).toBeGreaterThanOrEqual(1);
    expect(sumOf(families, "process_cpu_seconds_total")).toBeGreaterThan(0);
  });

  it("answers HEAD without a body and refuses OPTIONS with 405", async () => {
    const head = await fetch(`${server.url}/metrics`, {
      method: "HEAD",
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    const options = await fetch(`${server.url}/metrics`, { method: "OPTIONS" });
    expect(options.status).toBe(405);
  });
});

describe("what the metrics count", () => {
  it("counts accepted leads (spam apart) and refused ones by reason, and each group commit", async () => {
    // Each form its own rate-limit count (per form and address): two leads pass, the third not.
    const limited = await newForm({ name: "Metrics", settings: { allowedOrigins: ["https://shop.example"] } });
    const invalid = await newForm({ name: "Metrics" });
    const spam = await newForm({ name: "Metrics" });
    const before = await scrape();

    expect(await submit({ formId: limited, data: GOOD })).toBe(201);
    expect(await submit({ formId: spam, data: GOOD, [HONEYPOT_FIELD]: "I am a bot" })).toBe(201);
    expect(await submit({ formId: invalid, data: { name: "No email" } })).toBe(422);
    expect(await submit({ formId: "no-such-form", data: GOOD })).toBe(404);
    expect(await submit("{not json")).toBe(400);
    expect(await submit({ formId: limited, data: GOOD }, { Origin: "https://elsewhere.example" })).toBe(403);
    expect(await submit({ formId: limited, data: GOOD })).toBe(201);
    expect(await submit({ formId: limited, data: GOOD })).toBe(429);

    const after = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) =>
      sumOf(after, name, labels) - sumOf(before, name, labels);
    expect(delta("leadcapture_leads_accepted_total", { spam: "false" })).toBe(2);
    expect(delta("leadcapture_leads_accepted_total", { spam: "true" })).toBe(1);
    const refused = (reason: string) => delta("leadcapture_leads_refused_total", { reason });
    expect(refused("validation_failed")).toBe(1);
    expect(refused("form_not_found")).toBe(1);
    expect(refused("malformed_json")).toBe(1);
    expect(refused("origin_not_allowed")).toBe(1);
    expect(refused("rate_limited")).toBe(1);
    expect(delta("leadcapture_leads_refused_total")).toBe(5);
    // One at a time, each of the three leads was a commit of its own.
    expect(delta("leadcapture_lead_commit_batch_size_count")).toBe(3);
    expect(delta("leadcapture_lead_commit_batch_size_sum")).toBe(3);
    expect(delta("leadcapture_lead_commit_batch_size_bucket", { le: "1" })).toBe(3);
    // The submit endpoint's durations, under its pattern.
    const submits = { route: "/api/leads/submit", method: "POST" };
    expect(delta("http_request_duration_seconds_count", { ...submits, status_class: "2xx" })).toBe(3);
    expect(delta("http_request_duration_seconds_count", { ...submits, status_class: "4xx" })).toBe(5);
  });

  it("labels request durations by route pattern and status class, never by a raw path or id", async () => {
    const formId = await newForm({ name: "Metrics" });
    const marker = `nosuchpage${randomBytes(6).toString("hex")}`;
    const before = await scrape();
    const get = async (path: string, init: RequestInit = {}) => {
      const response = await fetch(`${server.url}${path}`, { redirect: "manual", ...init });
      await response.arrayBuffer();
      return response.status;
    };
    expect(await get(`/api/forms/${formId}`)).toBe(401);
    expect(await get(`/api/forms/${formId}?x=${marker}`)).toBe(401);
    expect(await get(`/f/${formId}`)).toBe(200);
    expect(await get(`/api/forms/${formId}/views`, { method: "POST", body: "" })).toBeLessThan(500);
    expect(await get(`/${marker}/${formId}`)).toBe(404);
    expect(await get(`/api/${marker}`)).toBe(404);
    expect(await get("/favicon.svg")).toBe(200);
    expect(await get(`/${marker}`, { method: "PROPFIND" })).toBe(501);

    // A request is counted when the server closes its answer, which can come a moment after the
    // client has read the last byte: scrape until every request above is in.
    const expected = [
      [{ route: "/api/forms/:id", method: "GET", status_class: "4xx" }, 2],
      [{ route: "/f/:formId", method: "GET", status_class: "2xx" }, 1],
      [{ route: "/api/forms/:id/views", method: "POST" }, 1],
      [{ route: "/api/*", status_class: "4xx" }, 1],
      [{ route: "static", status_class: "2xx" }, 1],
      [{ route: "unmatched", method: "GET", status_class: "4xx" }, 1],
      [{ route: "unmatched", method: "other", status_class: "5xx" }, 1],
    ] as const;
    let after = await scrape();
    const delta = (labels: Record<string, string>) =>
      sumOf(after, "http_request_duration_seconds_count", labels) -
      sumOf(before, "http_request_duration_seconds_count", labels);
    await expect
      .poll(async () => {
        after = await scrape();
        return expected.map(([labels]) => delta(labels));
      })
      .toEqual(expected.map(([, count]) => count));
    for (const value of labelValues(after)) {
      expect(value).not.toContain(formId);
      expect(value).not.toContain(marker);
    }
    const routes = new Set(after.get("http_request_duration_seconds")!.samples.map((sample) => sample.labels.route));
    for (const route of routes) expect(route).toMatch(/^(\/[^/]*)+$|^static$|^unmatched$/);
  });

  it("reads the outbox's and the webhooks' backlogs at scrape time, with how long the oldest has been due", async () => {
    const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3600_000);
    const endpoint = await db.webhookEndpoint.create({
      data: { url: "https://hooks.example/metrics", events: ["lead.created"], secret: "whsec_metrics" },
    });
    const before = await scrape();
    await db.outboxEmail.create({
      data: {
        toEmail: "staff@example.com",
        subject: "Waiting",
        text: "Waiting",
        messageId: `<metrics-${randomBytes(4).toString("hex")}@example.com>`,
        nextAttemptAt: hoursAgo(1),
      },
    });
    // Retrying later: waiting, but not late.
    await db.outboxEmail.create({
      data: {
        toEmail: "staff@example.com",
        subject: "Later",
        text: "Later",
        messageId: `<metrics-${randomBytes(4).toString("hex")}@example.com>`,
        nextAttemptAt: new Date(Date.now() + 3600_000),
      },
    });
    await db.webhookEvent.create({
      data: {
        id: `evt_metrics_${randomBytes(4).toString("hex")}`,
        type: "test",
        payload: "{}",
        deliveries: { create: { endpointId: endpoint.id, nextAttemptAt: hoursAgo(2) } },
      },
    });
    await db.webhookEvent.create({
      data: {
        id: `evt_metrics_${randomBytes(4).toString("hex")}`,
        type: "lead.created",
        fanOutTo: endpoint.id,
        fanOutAt: hoursAgo(0.5),
      },
    });

    const after = await scrape();
    const delta = (name: string) => sumOf(after, name) - sumOf(before, name);
    expect(delta("leadcapture_outbox_pending")).toBe(2);
    expect(delta("leadcapture_webhook_deliveries_pending")).toBe(1);
    expect(delta("leadcapture_webhook_fan_out_pending")).toBe(1);
    const age = (name: string) => sumOf(after, `${name}_oldest_pending_age_seconds`);
    expect(age("leadcapture_outbox")).toBeGreaterThanOrEqual(3600);
    expect(age("leadcapture_outbox")).toBeLessThan(3700);
    expect(age("leadcapture_webhook_deliveries")).toBeGreaterThanOrEqual(7200);
    expect(age("leadcapture_webhook_deliveries")).toBeLessThan(7300);
    expect(age("leadcapture_webhook_fan_out")).toBeGreaterThanOrEqual(1800);
    expect(age("leadcapture_webhook_fan_out")).toBeLessThan(1900);

    // A disabled endpoint's deliveries wait for it: no work of the worker's.
    await db.webhookEndpoint.update({ where: { id: endpoint.id }, data: { disabledAt: new Date() } });
    const disabled = await scrape();
    expect(sumOf(disabled, "leadcapture_webhook_deliveries_pending")).toBe(
      sumOf(before, "leadcapture_webhook_deliveries_pending"),
    );
  });

  it("counts an inbound email that a worker could not read within its budget, and shows the workers' queue", async () => {
    const before = await scrape();
    expect(sumOf(before, "leadcapture_inbound_worker_queue_length")).toBe(0);
    const response = await fetch(`${server.url}/api/support-requests/inbound`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...inboundSecret() },
      body: JSON.stringify({ from: "slow@example.com", subject: "stall-the-inbound-worker", text: "Hello" }),
    });
    expect(response.status, await response.text()).toBeLessThan(500);
    const after = await scrape();
    const timeouts = (stage: string) =>
      sumOf(after, "leadcapture_inbound_worker_timeouts_total", { stage }) -
      sumOf(before, "leadcapture_inbound_worker_timeouts_total", { stage });
    expect(timeouts("parse")).toBe(1);
    expect(timeouts("decode")).toBe(0);
  });
});
