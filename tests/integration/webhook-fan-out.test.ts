// Fanning lead events out to deliveries (app/storage/webhook-fan-out-store.server.ts): each
// event once, even with several workers at it at once, only to endpoints that still exist,
// due as of the event's time.
import { describe, expect, it } from "vitest";
import { webhookFanOutStore } from "~/storage/index.server";
import { db } from "~/utils/db.server";

async function endpoint(url: string) {
  const row = await db.webhookEndpoint.create({
    data: { url, events: ["lead.created"], secret: `whsec_${"A".repeat(32)}` },
    select: { id: true },
  });
  return row.id;
}

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
});
