import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FieldsSchema, FormSettingsSchema } from "~/forms/form-schema";
import { db } from "~/storage/db.server";
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
    const fields = FieldsSchema.parse([
      { key: "email", label: "Email", type: "email", required: true },
      { key: "seq", label: "Number", type: "number", required: true },
    ]);
    const form = await db.form.create({
      data: {
        name: "Load",
        fields,
        settings: FormSettingsSchema.parse({}),
        schemaVersion: 1,
        versions: { create: { version: 1, fields } },
      },
      select: { id: true },
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
                formId: form.id,
                email: `lead${seq}@example.com`,
                seq: String(seq),
                utm_source: "load",
              })
            : JSON.stringify({
                formId: form.id,
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
    expect(await db.lead.count({ where: { formId: form.id } })).toBe(500);
    expect(await db.lead.count({ where: { formId: form.id, id: { in: [...ids] }, utmSource: "load" } })).toBe(500);
    const stored = await db.lead.findMany({ where: { formId: form.id }, select: { data: true } });
    const seqs = new Set(stored.map((lead) => (lead.data as { seq: number }).seq));
    expect(seqs.size).toBe(500);
  });
});
