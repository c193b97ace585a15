// Working leads through the API: status (spam included), owner, tags, notes and the
// timeline, one person's history, the new list filters and the total, and bulk actions
// over ids or a filter.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrResetUser } from "~/staff/user.server";
import { db } from "~/storage/db.server";
import { apiClient, loginAsStaff, type ApiClient } from "../support/http";
import { createForm, createLeads, field } from "../support/leads";
import { startServer, type TestServer } from "../support/server";

let server: TestServer;
let api: ApiClient;
let me: { id: string };
let colleague: { id: string };
let formId: string;

beforeAll(async () => {
  server = await startServer({ SUPPORT_RATE_LIMIT_PER_HOUR: "0", SUPPORT_ACKS_PER_RECIPIENT_PER_DAY: "0" });
  api = apiClient(server.url, await loginAsStaff(server.url));
  me = await db.user.findUniqueOrThrow({ where: { email: "staff@example.com" }, select: { id: true } });
  colleague = (await createOrResetUser({ email: "colleague@example.com", password: "a colleague's password" })).user;
  formId = (
    await createForm("Work form", [[field("name", "Name"), field("email", "Email", "email"), field("note", "Note")]])
  ).id;
});
afterAll(async () => {
  await server?.stop();
});

async function submit(name: string, email = `${name.toLowerCase()}@example.com`): Promise<string> {
  const res = await apiClient(server.url)("POST", "/api/leads/submit", { formId, data: { name, email } });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

const lead = async (id: string) => {
  const res = await api("GET", `/api/leads/${id}`);
  expect(res.status, res.text).toBe(200);
  return res.body.lead;
};

describe("PATCH /api/leads/:id", () => {
  it("moves a new lead through its stages, gives it an owner and tags, and records each change with who", async () => {
    const id = await submit("Walter");
    expect(await lead(id)).toMatchObject({ status: "new", owner: null, tags: [], notes: [], timeline: [] });

    const res = await api("PATCH", `/api/leads/${id}`, {
      status: "contacted",
      ownerId: me.id,
      tags: ["VIP", " big  deal "],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.lead).toMatchObject({
      status: "contacted",
      owner: { id: me.id, email: "staff@example.com" },
      tags: ["big deal", "vip"],
    });
    await api("PATCH", `/api/leads/${id}`, { status: "won", tags: ["vip"] });

    const { timeline } = await lead(id);
    expect(
      timeline.map((entry: { kind: string; from: string | null; to: string | null }) => [
        entry.kind,
        entry.from,
        entry.to,
      ]),
    ).toEqual([
      ["status", "new", "contacted"],
      ["owner", null, me.id],
      ["tags", null, "vip, big deal"],
      ["status", "contacted", "won"],
      ["tags", "big deal", null],
    ]);
    for (const entry of timeline) expect(entry.actor).toMatchObject({ id: me.id, email: "staff@example.com" });
  });

  it("keeps a lead whose owner was disabled since, when the owner is sent again unchanged", async () => {
    const id = await submit("Kept");
    const leaver = (await createOrResetUser({ email: "leaver@example.com", password: "a leaver's password" })).user;
    await api("PATCH", `/api/leads/${id}`, { ownerId: leaver.id });
    await db.user.update({ where: { id: leaver.id }, data: { disabledAt: new Date() } });
    const res = await api("PATCH", `/api/leads/${id}`, { ownerId: leaver.id, status: "won" });
    expect(res.status, res.text).toBe(200);
    expect(res.body.lead).toMatchObject({ status: "won", owner: { id: leaver.id } });
  });

  it("changes nothing, and records nothing, when the values are the ones the lead has", async () => {
    const id = await submit("Same");
    await api("PATCH", `/api/leads/${id}`, { status: "new", ownerId: null, tags: [] });
    expect((await lead(id)).timeline).toEqual([]);
  });

  it("marks spam with the flag the spam filter reads, and not-spam returns the lead to its stage", async () => {
    const id = await submit("Spammed");
    await api("PATCH", `/api/leads/${id}`, { status: "qualified" });
    await api("PATCH", `/api/leads/${id}`, { status: "spam" });
    expect(await lead(id)).toMatchObject({ status: "spam", isSpam: true, stage: "qualified" });
    const spamIds = (await api("GET", `/api/leads?formId=${formId}&spam=true`)).body.leads.map(
      (l: { id: string }) => l.id,
    );
    expect(spamIds).toContain(id);
    const byStatus = (await api("GET", `/api/leads?formId=${formId}&status=spam`)).body.leads.map(
      (l: { id: string }) => l.id,
    );
    expect(byStatus).toEqual([id]);
    await api("PATCH", `/api/leads/${id}`, { status: "qualified" });
    expect(await lead(id)).toMatchObject({ status: "qualified", isSpam: false });
  });

  it("refuses an unknown status, an unknown or disabled owner, too many or too long tags (422, field named)", async () => {
    const id = await submit("Refused");
    const disabled = (await createOrResetUser({ email: "gone@example.com", password: "a disabled password" })).user;
    await db.user.update({ where: { id: disabled.id }, data: { disabledAt: new Date() } });
    for (const [body, path] of [
      [{ status: "closed" }, "status"],
      [{ ownerId: "nobody" }, "ownerId"],
      [{ ownerId: disabled.id }, "ownerId"],
      [{ tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, "tags"],
      [{ tags: ["x".repeat(41)] }, "tags.0"],
      [{ tags: [""] }, "tags.0"],
      [{ colour: "red" }, "colour"],
    ] as const) {
      const res = await api("PATCH", `/api/leads/${id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.code).toBe("validation_failed");
      expect(
        res.body.error.details.map((d: { path: string }) => d.path),
        JSON.stringify(body),
      ).toContain(path);
    }
    expect((await lead(id)).timeline).toEqual([]);
  });

  it("answers 404 for an unknown lead, 400 for a body that is not JSON, and 403 to a read-only token", async () => {
    expect((await api("PATCH", "/api/leads/nope", { status: "won" })).status).toBe(404);
    const id = await submit("Guarded");
    const bad = await api("PATCH", `/api/leads/${id}`, "{not json", { "Content-Type": "application/json" });
    expect(bad.status).toBe(400);
    const token = await api("POST", "/api/tokens", { name: "read only", scopes: ["leads:read"] });
    expect(token.status, token.text).toBe(201);
    const reader = apiClient(server.url, undefined, { Authorization: `Bearer ${token.body.token}` });
    expect((await reader("GET", `/api/leads/${id}`)).status).toBe(200);
    expect((await reader("PATCH", `/api/leads/${id}`, { status: "won" })).status).toBe(403);
    expect((await reader("POST", `/api/leads/${id}/notes`, { body: "no" })).status).toBe(403);
    expect((await reader("POST", "/api/leads/bulk", { ids: [id], action: "delete" })).status).toBe(403);
  });
});

describe("POST /api/leads/:id/notes", () => {
  it("adds a note to the lead's notes and timeline, with who wrote it", async () => {
    const id = await submit("Noted");
    const res = await api("POST", `/api/leads/${id}/notes`, { body: "  Called, wants a quote.  " });
    expect(res.status, res.text).toBe(201);
    expect(res.body.note).toMatchObject({ kind: "note", body: "Called, wants a quote.", actor: { id: me.id } });
    const shown = await lead(id);
    expect(shown.notes.map((note: { body: string }) => note.body)).toEqual(["Called, wants a quote."]);
    expect(shown.timeline.map((entry: { kind: string }) => entry.kind)).toEqual(["note"]);
  });

  it("refuses an empty or missing note (422) and an unknown lead (404)", async () => {
    const id = await submit("Empty");
    for (const body of [{ body: "   " }, {}, { body: "x".repeat(5001) }]) {
      const res = await api("POST", `/api/leads/${id}/notes`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.details[0].path).toBe("body");
    }
    expect((await api("POST", "/api/leads/missing/notes", { body: "hi" })).status).toBe(404);
  });
});

describe("one person's history", () => {
  it("lists the other leads and the support requests of the same address, whatever its case", async () => {
    const first = await submit("Hannah", "hannah@example.com");
    const second = await submit("Hannah", "Hannah@Example.com");
    await submit("Other", "other@example.com");
    const ticket = await apiClient(server.url)("POST", "/api/support-requests", {
      email: "hannah@example.com",
      subject: "Where is my quote?",
      message: "Hello, I filled in your form.",
    });
    expect(ticket.status, ticket.text).toBe(201);
    const { history, email } = await lead(second);
    expect(email).toBe("hannah@example.com");
    expect(history.leads.map((l: { id: string }) => l.id)).toEqual([first]);
    expect(history.leads[0]).toMatchObject({ formName: "Work form", status: "new" });
    expect(history.supportRequests).toEqual([
      expect.objectContaining({ reference: ticket.body.reference, subject: "Where is my quote?" }),
    ]);
  });
});

describe("GET /api/leads: status, owner and tag filters, and the total", () => {
  let form: string;
  let ids: string[];
  beforeAll(async () => {
    form = (await createForm("Filter form", [[field("email", "Email", "email")]])).id;
    await createLeads(
      form,
      Array.from({ length: 6 }, (_, i) => ({
        data: { email: `f${i}@example.com` },
        createdAt: new Date(Date.UTC(2026, 0, 1 + i)),
      })),
    );
    ids = (
      await db.lead.findMany({ where: { formId: form }, orderBy: { createdAt: "asc" }, select: { id: true } })
    ).map((row) => row.id);
    await api("PATCH", `/api/leads/${ids[0]}`, { status: "won", ownerId: me.id, tags: ["hot"] });
    await api("PATCH", `/api/leads/${ids[1]}`, { status: "won", ownerId: colleague.id });
    await api("PATCH", `/api/leads/${ids[2]}`, { tags: ["hot", "cold"] });
  });
  const listed = async (query: string) => {
    const res = await api("GET", `/api/leads?formId=${form}&${query}`);
    expect(res.status, res.text).toBe(200);
    return res.body.leads.map((l: { id: string }) => ids.indexOf(l.id)).sort();
  };

  it("filters by status, owner (an id, mine or none) and tag", async () => {
    expect(await listed("status=won")).toEqual([0, 1]);
    expect(await listed("status=new")).toEqual([2, 3, 4, 5]);
    expect(await listed("ownerId=mine")).toEqual([0]);
    expect(await listed(`ownerId=${colleague.id}`)).toEqual([1]);
    expect(await listed("ownerId=none")).toEqual([2, 3, 4, 5]);
    expect(await listed("tag=hot")).toEqual([0, 2]);
    expect(await listed("tag=HOT&status=won")).toEqual([0]);
  });

  it("adds the total matching the filter with count=true, not the page's size", async () => {
    const res = await api("GET", `/api/leads?formId=${form}&limit=2&count=true`);
    expect(res.body.leads).toHaveLength(2);
    expect(res.body.total).toBe(6);
    expect((await api("GET", `/api/leads?formId=${form}&tag=hot&count=true`)).body.total).toBe(2);
    expect((await api("GET", `/api/leads?formId=${form}`)).body.total).toBeUndefined();
  });

  it("refuses an unknown status and a bad count with 422 naming the parameter", async () => {
    for (const [query, path] of [
      ["status=closed", "status"],
      ["count=yes", "count"],
      [`tag=${"x".repeat(41)}`, "tag"],
    ]) {
      const res = await api("GET", `/api/leads?${query}`);
      expect(res.status, query).toBe(422);
      expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    }
  });
});

describe("POST /api/leads/bulk", () => {
  let form: string;
  const seed = async (count: number, campaign: string) => {
    await createLeads(
      form,
      Array.from({ length: count }, (_, i) => ({
        data: { email: `${campaign}${i}@example.com` },
        utmCampaign: campaign,
      })),
    );
    return (await db.lead.findMany({ where: { formId: form, utmCampaign: campaign }, select: { id: true } })).map(
      (row) => row.id,
    );
  };
  beforeAll(async () => {
    form = (await createForm("Bulk form", [[field("email", "Email", "email")]])).id;
  });

  it("sets a status on chosen ids, counting only the leads it changed, and records each on its timeline", async () => {
    const ids = await seed(3, "chosen");
    await api("PATCH", `/api/leads/${ids[0]}`, { status: "lost" });
    const res = await api("POST", "/api/leads/bulk", {
      ids: [...ids, "no-such-lead"],
      action: "set_status",
      value: "lost",
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ affected: 2 });
    for (const id of ids) expect((await lead(id)).status).toBe("lost");
    expect((await lead(ids[1])).timeline).toEqual([
      expect.objectContaining({
        kind: "status",
        from: "new",
        to: "lost",
        actor: expect.objectContaining({ id: me.id }),
      }),
    ]);
    const audit = await db.auditEntry.findFirst({ where: { action: "lead.bulk" }, orderBy: { createdAt: "desc" } });
    expect(JSON.parse(audit!.details)).toMatchObject({ action: "set_status", value: "lost", ids: 4, affected: 2 });
  });

  it("assigns, tags and untags every lead matching a filter, across several batches", async () => {
    const ids = await seed(2300, "batched");
    const filter = { formId: form, utm_campaign: "batched" };
    const assigned = await api("POST", "/api/leads/bulk", { filter, action: "assign", value: colleague.id });
    expect(assigned.body, assigned.text).toEqual({
      affected: 2300,
    });
    expect(await db.lead.count({ where: { formId: form, ownerId: colleague.id } })).toBe(2300);
    expect((await api("POST", "/api/leads/bulk", { filter, action: "tag", value: "Webinar" })).body.affected).toBe(
      2300,
    );
    expect((await api("POST", "/api/leads/bulk", { filter, action: "tag", value: "webinar" })).body.affected).toBe(0);
    expect(await db.leadTag.count({ where: { tag: "webinar" } })).toBe(2300);
    // A filter the action itself changes: the keyset walk still reaches every lead once.
    const untag = await api("POST", "/api/leads/bulk", {
      filter: { ...filter, tag: "webinar" },
      action: "untag",
      value: "webinar",
    });
    expect(untag.body.affected).toBe(2300);
    expect(await db.leadTag.count({ where: { tag: "webinar" } })).toBe(0);
    const unassign = await api("POST", "/api/leads/bulk", {
      filter: { ...filter, ownerId: colleague.id },
      action: "assign",
      value: null,
    });
    expect(unassign.body.affected).toBe(2300);
    expect((await lead(ids[0])).timeline.map((e: { kind: string }) => e.kind)).toEqual([
      "owner",
      "tags",
      "tags",
      "owner",
    ]);
  });

  it("deletes the leads of a filter, and answers 0 for an empty selection", async () => {
    await seed(5, "doomed");
    const res = await api("POST", "/api/leads/bulk", {
      filter: { formId: form, utm_campaign: "doomed" },
      action: "delete",
    });
    expect(res.body).toEqual({ affected: 5 });
    expect(await db.lead.count({ where: { formId: form, utmCampaign: "doomed" } })).toBe(0);
    expect((await api("POST", "/api/leads/bulk", { ids: [], action: "delete" })).body).toEqual({ affected: 0 });
    const none = await api("POST", "/api/leads/bulk", {
      filter: { formId: "no-such-form" },
      action: "set_status",
      value: "won",
    });
    expect(none.body).toEqual({ affected: 0 });
  });

  it("refuses a bad action or value with 422, a malformed filter with 400, naming the field", async () => {
    for (const [body, status, path] of [
      [{ ids: [], action: "archive" }, 422, "action"],
      [{ ids: [], action: "set_status", value: "closed" }, 422, "value"],
      [{ ids: [], action: "assign", value: "nobody" }, 422, "value"],
      [{ ids: [], action: "tag", value: "" }, 422, "value"],
      [{ action: "delete" }, 422, "(body)"],
      [{ ids: "all", action: "delete" }, 422, "ids"],
      [{ filter: { status: "closed" }, action: "delete" }, 400, "filter.status"],
      [{ filter: { from: "yesterday" }, action: "delete" }, 400, "filter.from"],
      [{ filter: "everything", action: "delete" }, 422, "filter"],
    ] as const) {
      const res = await api("POST", "/api/leads/bulk", body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(
        res.body.error.details.map((d: { path: string }) => d.path),
        JSON.stringify(body),
      ).toContain(path);
    }
  });
});

describe("leads stored before the email column", () => {
  it("get the value of their form's first email field that has one, lower-cased, from the migration", async () => {
    const fs = await import("node:fs");
    const { isPostgres } = await import("~/storage/db.server");
    const form = await createForm("Old form", [
      [field("name", "Name"), field("work", "Work email", "email"), field("home", "Home email", "email")],
    ]);
    const plain = await createForm("No email", [[field("name", "Name")]]);
    const old = async (formId: string, data: Record<string, string>) =>
      (await db.lead.create({ data: { formId, schemaVersion: 1, data, email: null }, select: { id: true } })).id;
    const both = await old(form.id, { name: "A", work: "Ann@Work.example", home: "ann@home.example" });
    const homeOnly = await old(form.id, { name: "B", work: "", home: "Bob@Home.example" });
    const none = await old(plain.id, { name: "C" });
    const migration = `prisma/${isPostgres ? "postgres/" : ""}migrations/20261123213000_lead_email_backfill/migration.sql`;
    await db.$executeRawUnsafe(fs.readFileSync(migration, "utf8"));
    const emails = await db.lead.findMany({
      where: { id: { in: [both, homeOnly, none] } },
      select: { id: true, email: true },
    });
    expect(Object.fromEntries(emails.map((row) => [row.id, row.email]))).toEqual({
      [both]: "ann@work.example",
      [homeOnly]: "bob@home.example",
      [none]: null,
    });
  });
});
