// Two instances of the server on one database serve as one service. Runs on both
// databases; the deployment the README describes is several instances on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { newForm } from "../support/forms";
import { STAFF, apiClient, loginAsStaff } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import { startSmtp, type TestSmtp } from "../support/smtp";

let a: TestServer;
let b: TestServer;
let smtp: TestSmtp;

beforeAll(async () => {
  smtp = await startSmtp();
  // Rate limits in the database (the PostgreSQL default), as several instances need.
  const env = {
    SMTP_URL: smtp.url,
    RATE_LIMIT_STORE: "database",
    SUBMIT_RATE_LIMIT_PER_MINUTE: "0",
    SUPPORT_RATE_LIMIT_PER_HOUR: "0",
    SUPPORT_ACKS_PER_RECIPIENT_PER_DAY: "0",
  };
  [a, b] = await Promise.all([startServer(env), startServer(env)]);
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await smtp?.close();
});

describe("two instances on one database", () => {
  it("accept a session made on the other", async () => {
    const cookie = await loginAsStaff(a.url);
    const me = await apiClient(b.url, cookie)("GET", "/api/auth/me");
    expect(me.status).toBe(200);
    expect(me.body.user.email).toBe(STAFF.email);
  });

  it("store every one of 400 submissions split across both, each exactly once", async () => {
    const formId = await newForm({ name: "Split" });
    const answers = await Promise.all(
      Array.from({ length: 400 }, (_, i) =>
        apiClient(i % 2 ? a.url : b.url)("POST", "/api/leads/submit", {
          formId,
          data: { name: `Lead ${i}`, email: `lead${i}@example.com` },
        }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(400).fill(201));
    const ids = answers.map((answer) => answer.body.id as string);
    expect(new Set(ids).size).toBe(400);
    const stored = await db.lead.findMany({ where: { formId }, select: { id: true, data: true } });
    expect(stored.map((lead) => lead.id).sort()).toEqual([...ids].sort());
    const names = stored.map((lead) => (lead.data as { name: string }).name);
    expect(new Set(names).size).toBe(400);
  });

  it("number 60 tickets created concurrently across both uniquely, and send each acknowledgement once", async () => {
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        apiClient(i % 2 ? a.url : b.url)("POST", "/api/support-requests", {
          email: `customer${i}@example.com`,
          subject: `Question ${i}`,
          message: "Hello",
        }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(60).fill(201));
    const references = answers.map((answer) => answer.body.reference as string);
    expect(new Set(references).size).toBe(60);
    const numbers = references.map((reference) => Number(reference.split("-")[1]));
    expect(Math.min(...numbers)).toBeGreaterThanOrEqual(1001);

    // Both instances run the outbox worker: each acknowledgement still leaves once.
    await expect.poll(() => smtp.received.length, { timeout: 20_000, interval: 100 }).toBeGreaterThanOrEqual(60);
    await expect.poll(() => db.outboxEmail.count({ where: { status: { not: "sent" } } })).toBe(0);
    // A double send would show up here within the worker's poll interval.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const recipients = smtp.received.map((mail) => (Array.isArray(mail.to) ? mail.to[0] : mail.to)?.text);
    expect(recipients).toHaveLength(60);
    expect(new Set(recipients).size).toBe(60);
    const messageIds = smtp.received.map((mail) => mail.messageId);
    expect(new Set(messageIds).size).toBe(60);
  });

  it("end a session on both at once when it is logged out on one", async () => {
    const cookie = await loginAsStaff(a.url);
    expect((await apiClient(b.url, cookie)("GET", "/api/auth/me")).status).toBe(200);
    expect((await apiClient(a.url, cookie)("POST", "/api/auth/logout")).status).toBe(204);
    expect((await apiClient(b.url, cookie)("GET", "/api/auth/me")).status).toBe(401);
  });

  it("count failed logins together: 6 failures split across both make the next try from that address wait on either", async () => {
    const victim = { email: "shared-limit@example.com", password: "the right password 123" };
    await loginAsStaff(a.url, victim);
    for (let i = 0; i < 6; i++) {
      const res = await apiClient(i % 2 ? a.url : b.url)("POST", "/api/auth/login", {
        email: victim.email,
        password: `wrong ${i}`,
      });
      expect(res.status).toBe(401);
    }
    for (const server of [a, b]) {
      const blocked = await apiClient(server.url)("POST", "/api/auth/login", victim);
      expect(blocked.status).toBe(429);
    }
  });
});
