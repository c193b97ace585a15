// lead.updated webhook events (docs/api/webhooks.md, decision 041): a change to a lead's
// status, owner or tags, announced to the endpoints subscribed, one event per lead changed,
// whoever changed it and however (the lead page, PATCH /api/leads/:id, a bulk action). The
// body is built here, when the change is made, and written in the change's transaction as
// one row naming its endpoints; the webhook worker fans it out to their deliveries.
import { db, type Prisma } from "~/storage/db.server";
import type { AnnounceChanges, LeadChange } from "~/storage/leads/lead-store";
import { timeOrderedId } from "~/utils/random-text.server";
import { leadUpdatedBody, type LeadChanges, type Person } from "../webhooks/event-bodies.server";
import { nudgeWebhooks } from "../webhooks/webhook-delivery.server";
import {
  leadUpdatedSubscribers,
  writeLeadUpdatedEvents,
  type LeadUpdatedEventRow,
} from "../webhooks/webhook-events.server";

export type { Person };

type Lead = { id: string; formId: string };
/** The event of one lead's changes, built without waiting; null when no endpoint hears of it. */
export type Announcer = (lead: Lead, changes: LeadChanges, at: Date) => LeadUpdatedEventRow | null;

/**
 * What builds the lead.updated events of `actor`'s changes; null when no endpoint is
 * subscribed to lead.updated (then nothing is built or read). Asked before the change's
 * transaction: the subscriptions may be read from the database, which on SQLite waits for
 * the transaction's connection.
 */
export async function leadUpdateAnnouncer(actor: Person | null): Promise<Announcer | null> {
  const subscribers = await leadUpdatedSubscribers();
  if (!subscribers) return null;
  // An API token acts as its owner: the event names them (decision 041).
  const by = actor && { id: actor.id, email: actor.email, name: actor.name };
  return (lead, changes, at) => {
    const endpointIds = subscribers(lead.formId, changes.status !== undefined);
    if (endpointIds.length === 0) return null;
    return {
      id: timeOrderedId("msg_"),
      leadId: lead.id,
      createdAt: at,
      fanOutTo: endpointIds.join(","),
      payload: leadUpdatedBody(lead, changes, by, at),
    };
  };
}

const personSelect = { id: true, email: true, name: true } as const;

/** A user id as a Person; one not found (never: owners are not deleted) keeps its id. */
function personOf(people: ReadonlyMap<string, Person>, id: string | null): Person | null {
  return id === null ? null : (people.get(id) ?? { id, email: "", name: null });
}

export type OneLeadChanges = Omit<LeadChanges, "owner"> & { owner?: { from: string | null; to: string | null } };

/**
 * Writes the lead.updated of one lead's changes in the change's transaction (`tx`), owners
 * named; nothing when nothing changed or no endpoint listens. Answers whether it wrote one.
 */
export async function announceLeadUpdate(
  tx: Prisma.TransactionClient,
  announce: Announcer | null,
  lead: Lead,
  { owner, ...changes }: OneLeadChanges,
): Promise<boolean> {
  if (!announce || (!owner && Object.keys(changes).length === 0)) return false;
  let named: LeadChanges = changes;
  if (owner) {
    const ids = [owner.from, owner.to].filter((id): id is string => id !== null);
    const people = new Map(
      (await tx.user.findMany({ where: { id: { in: ids } }, select: personSelect })).map((p) => [p.id, p]),
    );
    named = { ...changes, owner: { from: personOf(people, owner.from), to: personOf(people, owner.to) } };
  }
  const event = announce(lead, named, new Date());
  if (event) await writeLeadUpdatedEvents([event], tx);
  return event !== null;
}

/**
 * The events of a bulk status or owner change, for the lead store to write in each batch's
 * transaction; undefined when no endpoint listens. For an owner change the staff are read
 * once (the whole staff list, as the staff page reads it), so each batch builds its events
 * without a query inside its transaction.
 */
export async function bulkChangeAnnouncer(
  change: LeadChange,
  actor: Person | null,
): Promise<AnnounceChanges | undefined> {
  const announce = await leadUpdateAnnouncer(actor);
  if (!announce) return undefined;
  const people: ReadonlyMap<string, Person> =
    change.kind === "owner"
      ? new Map((await db.user.findMany({ select: personSelect })).map((person) => [person.id, person]))
      : new Map();
  return (changed, at) =>
    changed.flatMap((lead) => {
      const changes: LeadChanges =
        change.kind === "status"
          ? { status: { from: lead.before ?? "new", to: change.to } }
          : { owner: { from: personOf(people, lead.before), to: personOf(people, change.to) } };
      return announce(lead, changes, at) ?? [];
    });
}

/** Writes the lead.updated events of a bulk tag or untag over `leadIds` (the leads it changed), in its transaction. */
export async function announceTagging(
  tx: Prisma.TransactionClient,
  announce: Announcer | null,
  leadIds: readonly string[],
  tags: { added: string[]; removed: string[] },
): Promise<boolean> {
  if (!announce || leadIds.length === 0) return false;
  const leads = await tx.lead.findMany({ where: { id: { in: [...leadIds] } }, select: { id: true, formId: true } });
  const at = new Date();
  const events = leads.flatMap((lead) => announce(lead, { tags }, at) ?? []);
  await writeLeadUpdatedEvents(events, tx);
  return events.length > 0;
}

/** After the transaction that wrote lead.updated events committed: the worker fans them out within 50 ms. */
export const sendLeadUpdatesNow = nudgeWebhooks;
