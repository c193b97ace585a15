// Deleting leads, one or a bulk action's batch: each deletion announced to the endpoints
// subscribed to `lead.deleted`, with the lead as it was, in the transaction of the delete.
import { auditBy, type AuditActor } from "~/audit/audit.server";
import { db, IN_LIST_SLICE, slices } from "~/storage/db.server";
import { deleteLeadsReturning } from "~/storage/transactions.server";
import { leadCreatedBodies } from "../webhooks/event-bodies.server";
import { nudgeWebhooks } from "../webhooks/webhook-delivery.server";
import {
  newWebhookEvent,
  subscribersOf,
  unbuiltLeadEvents,
  writeBuiltBodies,
  writeWebhookEvents,
  type NewWebhookEvent,
} from "../webhooks/webhook-events.server";
import { leadDetails } from "./lead.server";

/** Deletes a lead and records lead.delete for the actor; false when there was none with this id. */
export async function deleteLead(id: string, actor: AuditActor): Promise<boolean> {
  if ((await deleteLeads([id])) === 0) return false;
  await auditBy(actor, "lead.delete", `lead:${id}`);
  return true;
}

/** Deletes leads by id (a bulk action's batch), with their `lead.deleted` events; answers how many. */
export async function deleteLeads(ids: readonly string[]): Promise<number> {
  const leads = await db.lead.findMany({
    where: { id: { in: [...ids] } },
    select: { id: true, formId: true, isSpam: true, awaitingConfirmation: true },
  });
  if (leads.length === 0) return 0;
  // A lead.created not fanned out yet is built now, while its lead is there to build it
  // from, and written with the delete: it still goes out, due before the lead.deleted.
  const created = await leadCreatedBodies(await unbuiltLeadEvents(leads.map((lead) => lead.id)));
  const events = await deletedEvents(leads);
  const deleted = await db.$transaction(async (tx) => {
    await writeBuiltBodies(created, tx);
    // RETURNING: a lead another delete took first (two bulk deletes overlapping) is not
    // announced twice.
    const gone = await deleteLeadsReturning(
      tx,
      leads.map((lead) => lead.id),
    );
    const announced = await writeWebhookEvents(
      gone.flatMap((id) => events.get(id) ?? []),
      tx,
    );
    return { count: gone.length, announced };
  });
  if (deleted.announced > 0) nudgeWebhooks();
  return deleted.count;
}

/**
 * The lead.deleted event of each lead an endpoint is subscribed to, by lead id. Spam was
 * never announced, so its deletion is not either. The leads are read whole only when an
 * endpoint is subscribed, a slice at a time (a bulk batch read one by one took 14 ms a lead).
 */
async function deletedEvents(
  leads: ReadonlyArray<{ id: string; formId: string; isSpam: boolean; awaitingConfirmation: boolean }>,
): Promise<Map<string, NewWebhookEvent>> {
  const subscribers = new Map<string, string[]>();
  for (const lead of leads) {
    // Nor is a double opt-in lead's never confirmed (decision 067).
    if (lead.isSpam || lead.awaitingConfirmation) continue;
    const endpointIds = await subscribersOf("lead.deleted", lead.formId);
    if (endpointIds.length > 0) subscribers.set(lead.id, endpointIds);
  }
  const events = new Map<string, NewWebhookEvent>();
  for (const ids of slices([...subscribers.keys()], IN_LIST_SLICE)) {
    for (const [id, { stage: _, ...detail }] of await leadDetails(ids)) {
      events.set(id, newWebhookEvent("lead.deleted", detail, subscribers.get(id)!));
    }
  }
  return events;
}
