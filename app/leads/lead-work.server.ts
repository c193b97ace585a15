// Working leads: a lead's status, owner and tags, staff notes, the timeline of who changed
// what (its reads, and one person's history, are lead-history.server.ts). Bulk actions
// over a selection or a whole filter are lead-bulk.server.ts. Reading leads is
// lead.server.ts; storing them is lead-capture.server.ts.
//
// Status: the stage is the `status` column; spam is the `isSpam` flag every list index
// leads with. A spam lead shows as `spam`; marking it anything else clears the flag.
import { z } from "zod";
import { db, type Prisma } from "~/storage/db.server";
import { lockLeadRow, setSpamInLeadDaily } from "~/storage/leads/lead-daily-store.server";
import { DomainError, parseOrThrow } from "~/utils/domain-error";
import { workingStaffOrFail } from "../staff/staff.server";
import { statusOf } from "./lead-detail.server";
import { LEAD_STATUSES, TagSchema, type LeadStatusValue } from "./lead-filters.server";
import { activityJson, activitySelect } from "./lead-history.server";
import { MAX_NOTE_LENGTH, MAX_TAGS } from "./lead-schemas";
import {
  announceLeadUpdate,
  leadUpdateAnnouncer,
  sendLeadUpdatesNow,
  type OneLeadChanges,
  type Person,
} from "./lead-updates.server";

export { MAX_NOTE_LENGTH, MAX_TAGS } from "./lead-schemas";
/** Who changes a lead (for an API token, its owner): the timeline and lead.updated name them. */
export type Actor = Person;
type Stage = Exclude<LeadStatusValue, "spam">;

/** The columns a status becomes: `spam` sets the flag and keeps the stage. */
function statusColumns(status: LeadStatusValue): { isSpam: boolean; status?: Stage } {
  return status === "spam" ? { isSpam: true } : { isSpam: false, status };
}

export const StatusSchema = z.enum(LEAD_STATUSES, { error: `Use one of ${LEAD_STATUSES.join(", ")}.` });
const TagsSchema = z
  .array(TagSchema, { error: "Use a list of tags." })
  .max(MAX_TAGS, `Use at most ${MAX_TAGS} tags.`)
  .transform((tags) => [...new Set(tags)]);

export const LeadPatchSchema = z
  .object({
    status: StatusSchema.optional(),
    ownerId: z.string({ error: "Use a staff user's id, or null." }).max(64).nullable().optional(),
    tags: TagsSchema.optional(),
  })
  .strict();

export const NoteSchema = z
  .object({
    body: z
      .string({ error: "Write the note." })
      .trim()
      .min(1, "Write the note.")
      .max(MAX_NOTE_LENGTH, `Use at most ${MAX_NOTE_LENGTH} characters.`),
  })
  .strict();

function notFound(id: string): never {
  throw new DomainError("not_found", `No lead with id ${JSON.stringify(id)}.`);
}

const joinTags = (tags: readonly string[]) => (tags.length > 0 ? tags.join(", ") : null);

/**
 * Changes a lead's status, owner and tags; each change goes on the lead's timeline with
 * who made it, and the lead.updated event says what changed. Changing nothing writes nothing.
 */
export async function updateLead(id: string, input: unknown, actor: Actor | null): Promise<void> {
  const patch = parseOrThrow(LeadPatchSchema, input);
  // Only a new owner must be one who can own leads: resending a disabled owner changes nothing.
  const current = await db.lead.findUnique({ where: { id }, select: { ownerId: true } });
  if (!current) notFound(id);
  if (patch.ownerId && patch.ownerId !== current.ownerId) await workingStaffOrFail(patch.ownerId, "ownerId");
  const announce = await leadUpdateAnnouncer(actor);
  const announced = await db.$transaction(async (tx) => {
    // Held to the commit: the spam flag read here is the one the daily rollup moves from.
    await lockLeadRow(tx, id);
    const lead = await tx.lead.findUnique({
      where: { id },
      select: { formId: true, status: true, isSpam: true, ownerId: true, tags: { select: { tag: true } } },
    });
    if (!lead) notFound(id);
    const changes: OneLeadChanges = {};
    const activity: Prisma.LeadActivityCreateManyInput[] = [];
    const entry = (kind: "status" | "owner" | "tags", fromValue: string | null, toValue: string | null) =>
      activity.push({ leadId: id, kind, fromValue, toValue, actorId: actor?.id ?? null });
    const data: Prisma.LeadUpdateInput = {};
    const before = statusOf(lead);
    if (patch.status !== undefined && patch.status !== before) {
      Object.assign(data, statusColumns(patch.status));
      // Marked spam, or no longer: the sources page's daily counts follow (decision 055).
      if ((before === "spam") !== (patch.status === "spam")) await setSpamInLeadDaily(tx, id, patch.status === "spam");
      entry("status", before, patch.status);
      changes.status = { from: before, to: patch.status };
    }
    if (patch.ownerId !== undefined && patch.ownerId !== lead.ownerId) {
      data.owner = patch.ownerId ? { connect: { id: patch.ownerId } } : { disconnect: true };
      entry("owner", lead.ownerId, patch.ownerId);
      changes.owner = { from: lead.ownerId, to: patch.ownerId };
    }
    if (patch.tags !== undefined) {
      const had = lead.tags.map((row) => row.tag);
      const added = patch.tags.filter((tag) => !had.includes(tag));
      const removed = had.filter((tag) => !patch.tags!.includes(tag));
      if (removed.length > 0) await tx.leadTag.deleteMany({ where: { leadId: id, tag: { in: removed } } });
      if (added.length > 0) await tx.leadTag.createMany({ data: added.map((tag) => ({ leadId: id, tag })) });
      // A tags entry keeps what was taken off (from) and what was put on (to).
      if (added.length + removed.length > 0) {
        entry("tags", joinTags(removed), joinTags(added));
        changes.tags = { added, removed };
      }
    }
    if (Object.keys(data).length > 0) await tx.lead.update({ where: { id }, data, select: { id: true } });
    if (activity.length > 0) await tx.leadActivity.createMany({ data: activity });
    return announceLeadUpdate(tx, announce, { id, formId: lead.formId }, changes);
  });
  if (announced) sendLeadUpdatesNow();
}

/** A staff note on a lead's timeline. */
export async function addLeadNote(id: string, input: unknown, actor: Actor | null) {
  const { body } = parseOrThrow(NoteSchema, input);
  const lead = await db.lead.findUnique({ where: { id }, select: { id: true } });
  if (!lead) notFound(id);
  const note = await db.leadActivity.create({
    data: { leadId: id, kind: "note", body, actorId: actor?.id ?? null },
    select: activitySelect,
  });
  return activityJson(note);
}

/** Tags in use, most used first: what the tag inputs suggest. */
export async function tagSuggestions(limit = 50): Promise<string[]> {
  const rows = await db.leadTag.groupBy({
    by: ["tag"],
    _count: { tag: true },
    orderBy: [{ _count: { tag: "desc" } }, { tag: "asc" }],
    take: limit,
  });
  return rows.map((row) => row.tag);
}
