import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { newForm } from "../support/forms";
import { startServer, type TestServer } from "../support/server";

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ SUBMIT_RATE_LIMIT_PER_MINUTE: "0" });
});
afterAll(async () => {
  await server?.stop();
});

describe("simultaneous submissions", () => {
  it("stores exactly 500 leads for 500 submissions sent at once, each answered with its own id", async () => {
    const formId = await newForm({
      name: "Load",
      fields: [
        { key: "email", label: "Email", type: "email", required: true },
        { key: "seq", label: "Number", type: "number", required: true },
      ],
    });

    const replies = await Promise.all(
      Array.from({ length: 500 }, async (_, seq) => {
        // Every fifth as a plain form post, the rest as JSON: both paths under load.
        const asForm = seq % 5 === 0;
        const response = await fetch(`${server.url}/api/leads/submit`, {
          method: "POST",
          headers: asForm
            ? { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" }
            : { "Content-Type": "application/json" },
          body: asForm
            ? new URLSearchParams({
                formId,
                email: `lead${seq}@example.com`,
                seq: String(seq),
                utm_source: "load",
              })
            : JSON.stringify({
                formId,
                data: { email: `lead${seq}@example.com`, seq },
                utm: { utm_source: "load" },
              }),
        });
        return { status: response.status, body: (await response.json()) as { id: string } };
      }),
    );

    expect(replies.filter((reply) => reply.status === 201)).toHaveLength(500);
    const ids = new Set(replies.map((reply) => reply.body.id));
    expect(ids.size).toBe(500);
    expect(await db.lead.count({ where: { formId } })).toBe(500);
    expect(await db.lead.count({ where: { formId, id: { in: [...ids] }, utmSource: "load" } })).toBe(500);
    const stored = await db.lead.findMany({ where: { formId }, select: { data: true } });
    const seqs = new Set(stored.map((lead) => (lead.data as { seq: number }).seq));
    expect(seqs.size).toBe(500);
  });
});
