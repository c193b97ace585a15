// Fanning lead events out to deliveries (app/storage/webhooks/webhook-fan-out-store.server.ts): each
// event once, even with several workers at it at once, only to endpoints that still exist,
// due as of the event's time; and the body of a lead.created, written without one, built
// then from the lead as it was created (decision 028).
import { describe, expect, it } from "vitest";
import { storeLead } from "~/capture/lead-capture.server";
import { getPublicForm } from "~/capture/public-form.server";
import { replaceFormSchema } from "~/forms/form-schema-changes.server";
import { deleteForm } from "~/forms/form.server";
import { deleteLeads } from "~/leads/lead-delete.server";
import { updateLead } from "~/leads/lead-work.server";
import { getLead } from "~/leads/lead.server";
import { db } from "~/storage/db.server";
import { webhookFanOutStore } from "~/storage/index.server";
import { leadCreatedBodies } from "~/webhooks/event-bodies.server";
import { fanOutLeadEvents, processWebhooks } from "~/webhooks/webhook-delivery.server";
import { invalidateSubscriptions } from "~/webhooks/webhook-events.server";
import { createForm, field } from "../support/leads";

async function endpoint(url: string, events = ["lead.created"], formId: string | null = null) {
  const row = await db.webhookEndpoint.create({
    data: { url, events, formId, secret: `whsec_${"A".repeat(32)}` },
    select: { id: true },
  });
  invalidateSubscriptions();
  return row.id;
}

/** A lead stored as the submit endpoint stores it, with its lead.created if an endpoint is subscribed. */
async function submit(formId: string, name: string) {
  const form = (await getPublicForm(formId))!;
  const source = {
    utmSource: "newsletter",
    utmMedium: "email",
    utmCampaign: "spring",
    utmTerm: null,
    utmContent: null,
    referrerUrl: "https://news.example.com/a",
    referrerHost: "news.example.com",
    landingPageUrl: "https://www.example.com/",
  };
  const lead = { formId, schemaVersion: form.schemaVersion, data: { name }, source, isSpam: false };
  const { lead: stored } = await storeLead(lead, form, { ip: "203.0.113.9", userAgent: "Test", idempotencyKey: null });
  return stored.id;
}

const eventOf = (leadId: string) =>
  db.webhookEvent.findFirstOrThrow({
    where: { leadId, type: "lead.created" },
    select: {
      id: true,
      payload: true,
      fanOutAt: true,
      deliveries: { select: { endpointId: true, nextAttemptAt: true } },
    },
  });

describe("fanning out lead events", () => {
  it("writes one delivery per event and live endpoint, once, however many workers run at once", async () => {
    const kept = await endpoint("https://kept.example.com/hook");
    const gone = await endpoint("https://gone.example.com/hook");
    const times = Array.from({ length: 7 }, (_, i) => new Date(Date.UTC(2026, 10, 25, 9, 0, i)));
    for (const [i, createdAt] of times.entries()) {
      await db.webhookEvent.create({
        data: {
          id: `msg_fan${i}`,
          type: "lead.created",
          payload: "{}",
          createdAt,
          fanOutTo: `${kept},${gone}`,
          fanOutAt: createdAt,
        },
      });
    }
    // Deleted after its events were written, as another instance would.
    await db.webhookEndpoint.delete({ where: { id: gone } });

    const counts = await Promise.all([1, 2, 3].map(() => webhookFanOutStore.fanOut(3)));
    const more = await webhookFanOutStore.fanOut(10);
    expect(counts.reduce((sum, count) => sum + count, 0) + more).toBe(times.length);
    expect(await webhookFanOutStore.fanOut(10)).toBe(0);

    const deliveries = await db.webhookDelivery.findMany({
      where: { eventId: { startsWith: "msg_fan" } },
      select: { eventId: true, endpointId: true, status: true, nextAttemptAt: true },
      orderBy: { eventId: "asc" },
    });
    expect(deliveries.map((delivery) => delivery.eventId)).toEqual(times.map((_, i) => `msg_fan${i}`));
    for (const [i, delivery] of deliveries.entries()) {
      expect(delivery).toEqual({
        eventId: `msg_fan${i}`,
        endpointId: kept,
        status: "pending",
        nextAttemptAt: times[i],
      });
    }
    expect(
      await db.webhookEvent.count({
        where: { id: { startsWith: "msg_fan" }, OR: [{ fanOutTo: { not: null } }, { fanOutAt: { not: null } }] },
      }),
    ).toBe(0);
  });

  it("takes the oldest events first, whichever endpoints they are for", async () => {
    const a = await endpoint("https://a.example.com/hook");
    const b = await endpoint("https://b.example.com/hook");
    // Written out of time order, for endpoint lists that sort the other way round.
    const events = [
      { id: "msg_order_late", fanOutTo: a, at: new Date(Date.UTC(2026, 10, 25, 10, 0, 3)) },
      { id: "msg_order_first", fanOutTo: b, at: new Date(Date.UTC(2026, 10, 25, 10, 0, 1)) },
      { id: "msg_order_second", fanOutTo: `${b},${a}`, at: new Date(Date.UTC(2026, 10, 25, 10, 0, 2)) },
    ];
    for (const event of events) {
      await db.webhookEvent.create({
        data: {
          id: event.id,
          type: "lead.created",
          payload: "{}",
          createdAt: event.at,
          fanOutTo: event.fanOutTo,
          fanOutAt: event.at,
        },
      });
    }
    const order: string[] = [];
    for (let pass = 0; pass < events.length; pass++) {
      expect(await webhookFanOutStore.fanOut(1)).toBe(1);
      const done = await db.webhookEvent.findMany({
        where: { id: { startsWith: "msg_order" }, fanOutAt: null, NOT: { id: { in: order } } },
        select: { id: true },
      });
      order.push(...done.map((event) => event.id));
    }
    expect(order).toEqual(["msg_order_first", "msg_order_second", "msg_order_late"]);
  });

  it("leaves the events written with their deliveries alone", async () => {
    const id = await endpoint("https://other.example.com/hook");
    await db.webhookEvent.create({
      data: {
        id: "msg_direct",
        type: "ping",
        payload: "{}",
        deliveries: { create: [{ id: "dlv_direct", endpointId: id }] },
      },
    });
    await webhookFanOutStore.fanOut(10);
    expect(await db.webhookDelivery.count({ where: { eventId: "msg_direct" } })).toBe(1);
  });

  it("builds a lead.created's body from the lead as it was created, whatever staff changed before", async () => {
    const form = await createForm("Fan-out body", [[field("name", "Name")]]);
    const hook = await endpoint("https://body.example.com/hook", ["lead.created"], form.id);
    const leadId = await submit(form.id, "Bo Body");
    const written = await eventOf(leadId);
    expect(written).toMatchObject({ payload: null, deliveries: [] });
    expect(written.fanOutAt).not.toBeNull();
    // The lead as GET /api/leads/:id shows it now, before anyone worked it.
    const { stage: _, notes: __, timeline: ___, history: ____, ...asCreated } = (await getLead(leadId))!;

    // Before the worker's pass: staff work the lead and change the form's fields.
    const owner = await db.user.create({
      data: { email: "fan-out.owner@example.com", passwordHash: "not-a-hash" },
      select: { id: true, email: true, name: true },
    });
    await updateLead(leadId, { status: "contacted", ownerId: owner.id, tags: ["hot"] }, owner);
    await replaceFormSchema(form.id, [field("name", "Full name"), field("city", "City")]);

    while ((await fanOutLeadEvents()) > 0);
    const event = await eventOf(leadId);
    expect(event.deliveries.filter((delivery) => delivery.endpointId === hook)).toEqual([
      { endpointId: hook, nextAttemptAt: written.fanOutAt },
    ]);
    const body = JSON.parse(event.payload!);
    expect(body).toEqual({ type: "lead.created", timestamp: written.fanOutAt!.toISOString(), data: asCreated });
    expect(body.data).toMatchObject({
      status: "new",
      owner: null,
      tags: [],
      data: { name: "Bo Body" },
      fields: [{ key: "name", label: "Name", type: "text" }],
      utm: { utm_source: "newsletter", utm_medium: "email", utm_campaign: "spring" },
    });
  });

  it("a lead deleted before the fan-out: its lead.created is built with the delete and goes before the lead.deleted", async () => {
    const form = await createForm("Fan-out delete", [[field("name", "Name")]]);
    const hook = await endpoint("https://deleted.example.com/hook", ["lead.created", "lead.deleted"], form.id);
    const leadId = await submit(form.id, "Del Early");
    expect(await deleteLeads([leadId])).toBe(1);
    const created = await eventOf(leadId);
    expect(JSON.parse(created.payload!).data).toMatchObject({ id: leadId, status: "new", data: { name: "Del Early" } });

    while ((await fanOutLeadEvents()) > 0);
    const deliveries = await db.webhookDelivery.findMany({
      where: { endpointId: hook },
      select: { event: { select: { type: true, payload: true } } },
      orderBy: { nextAttemptAt: "asc" },
    });
    expect(deliveries.map((delivery) => delivery.event.type)).toEqual(["lead.created", "lead.deleted"]);
    for (const delivery of deliveries) expect(JSON.parse(delivery.event.payload!).data.id).toBe(leadId);
  });

  it("a lead deleted with its form before the fan-out: nothing is sent, and nothing is left waiting", async () => {
    const form = await createForm("Fan-out form gone", [[field("name", "Name")]]);
    // For every form: an endpoint of the form's own would go with it.
    const hook = await endpoint("https://form-gone.example.com/hook");
    const leadId = await submit(form.id, "Gone Gail");
    const { id } = await eventOf(leadId);
    await deleteForm(form.id, { deleteLeads: true });

    while ((await fanOutLeadEvents()) > 0);
    expect(await db.webhookEvent.findUnique({ where: { id } })).toBeNull();
    expect(await db.webhookDelivery.count({ where: { endpointId: hook } })).toBe(0);
  });

  it("leaves an event whose body was not built for the next pass", async () => {
    const form = await createForm("Fan-out later", [[field("name", "Name")]]);
    const hook = await endpoint("https://later.example.com/hook", ["lead.created"], form.id);
    const leadId = await submit(form.id, "Lee Later");
    const { id } = await eventOf(leadId);
    // The bodies were built before this event was written: it is not fanned out, nor dropped.
    await webhookFanOutStore.fanOut(500, new Map());
    expect(await eventOf(leadId)).toMatchObject({ id, payload: null, deliveries: [] });
    while ((await fanOutLeadEvents()) > 0);
    expect((await eventOf(leadId)).deliveries.filter((delivery) => delivery.endpointId === hook)).toHaveLength(1);
  });

  it("fans out unbuilt events once, with their bodies, however many workers run at once", async () => {
    const form = await createForm("Fan-out together", [[field("name", "Name")]]);
    const hook = await endpoint("https://together.example.com/hook", ["lead.created"], form.id);
    const leadIds: string[] = [];
    for (let i = 0; i < 9; i++) leadIds.push(await submit(form.id, `Tog ${i}`));
    // Three workers' passes of three events at once, each building the bodies of the events
    // it read and handing them to the fan-out (decision 045): an event another pass took is
    // skipped (PostgreSQL) or found done (SQLite), one whose body this pass did not build waits.
    const pass = async () => {
      const unbuilt = await webhookFanOutStore.unbuilt(3);
      return webhookFanOutStore.fanOut(3, await leadCreatedBodies(unbuilt ?? []));
    };
    const counts = await Promise.all([1, 2, 3].map(pass));
    expect(counts.reduce((sum, count) => sum + count, 0)).toBeLessThanOrEqual(9);
    while ((await fanOutLeadEvents()) > 0);
    const deliveries = await db.webhookDelivery.findMany({
      where: { endpointId: hook },
      select: { event: { select: { leadId: true, payload: true } } },
    });
    expect(deliveries.map((delivery) => delivery.event.leadId).sort()).toEqual([...leadIds].sort());
    for (const { event } of deliveries) expect(JSON.parse(event.payload!).data.id).toBe(event.leadId);
  });

  // The bodies are built before the fan-out's transaction (decision 045), so a delete can
  // build one in between.
  it("keeps a body a delete built while the fan-out's were being built", async () => {
    const form = await createForm("Fan-out race", [[field("name", "Name")]]);
    const hook = await endpoint("https://race.example.com/hook", ["lead.created"], form.id);
    const leadId = await submit(form.id, "Ray Race");
    const { id } = await eventOf(leadId);
    // What the worker built while the delete ran: nothing, the lead being gone by then.
    expect((await webhookFanOutStore.unbuilt(500))?.map((event) => event.id)).toContain(id);
    await deleteLeads([leadId]);
    await webhookFanOutStore.fanOut(500, new Map([[id, null]]));
    const event = await db.webhookEvent.findUniqueOrThrow({
      where: { id },
      select: { payload: true, fanOutAt: true, deliveries: { select: { endpointId: true } } },
    });
    expect(event.fanOutAt).toBeNull();
    expect(event.deliveries.filter((delivery) => delivery.endpointId === hook)).toHaveLength(1);
    expect(JSON.parse(event.payload!).data).toMatchObject({ id: leadId, data: { name: "Ray Race" } });
  });
});

describe("deleting leads", () => {
  it("announces each lead's deletion once, when two bulk deletes overlap", async () => {
    const form = await createForm("Overlapping deletes", [[field("name", "Name")]]);
    const hook = await endpoint("https://overlap.example.com/hook", ["lead.deleted"], form.id);
    const [x, y, z] = [await submit(form.id, "X"), await submit(form.id, "Y"), await submit(form.id, "Z")];
    // Both read their leads before either deletes: y is in both batches.
    const counts = await Promise.all([deleteLeads([x, y]), deleteLeads([y, z])]);
    expect(counts[0] + counts[1]).toBe(3);
    const announced = await db.webhookDelivery.findMany({
      where: { endpointId: hook },
      select: { event: { select: { type: true, payload: true } } },
    });
    const ids = announced.map(({ event }) => JSON.parse(event.payload!).data.id as string);
    expect(announced.every(({ event }) => event.type === "lead.deleted")).toBe(true);
    expect(ids.sort()).toEqual([x, y, z].sort());
  });
});

describe("an event fanned out without its body (by the version before, running beside this one)", () => {
  it("gets its body built when its delivery is attempted, or a clear failure when its lead is gone", async () => {
    // Only this test's deliveries are due: the others' endpoints are not reachable here.
    await db.webhookDelivery.deleteMany({});
    const form = await createForm("Fan-out late", [[field("name", "Name")]]);
    // Refused (http is not allowed here): the attempt fails at once, after the body is built.
    const hook = await endpoint("http://127.0.0.1:9/hook", ["lead.created"], form.id);
    const kept = await submit(form.id, "Kay Kept");
    const gone = await submit(form.id, "Guy Gone");
    // As the version before fanned out: deliveries written, the body never built.
    for (const leadId of [kept, gone]) {
      const { id } = await eventOf(leadId);
      await db.webhookEvent.update({ where: { id }, data: { fanOutTo: null, fanOutAt: null } });
      await db.webhookDelivery.create({ data: { id: `dlv_late_${leadId}`, eventId: id, endpointId: hook } });
    }
    await db.lead.delete({ where: { id: gone } });

    await processWebhooks();
    const attempts = await db.webhookAttempt.findMany({
      where: { deliveryId: { in: [`dlv_late_${kept}`, `dlv_late_${gone}`] } },
      select: { deliveryId: true, error: true },
    });
    const errorOf = (leadId: string) => attempts.find((attempt) => attempt.deliveryId === `dlv_late_${leadId}`)?.error;
    expect(errorOf(kept)).toBeTruthy();
    expect(errorOf(kept)).not.toMatch(/lead is gone/);
    expect(errorOf(gone)).toMatch(/lead is gone/);
    expect(JSON.parse((await eventOf(kept)).payload!).data).toMatchObject({ id: kept, data: { name: "Kay Kept" } });
  });
});
