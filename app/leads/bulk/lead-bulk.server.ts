// Bulk actions: one action (set a status, assign, tag, untag, delete) over chosen leads or
// over every lead of a filter, in keyset batches. POST /api/leads/bulk and the lead list's
// bulk form (lead-bulk-form.server.ts) both read their request with parseBulkRequest and
// apply it with bulkUpdate. A request says which leads it means: an unknown key, or a filter
// that narrows nothing, is refused rather than read as "every lead" (decision 036).
import { z } from "zod";
import { auditBy, type AuditActor } from "~/audit/audit.server";
import { db } from "~/storage/db.server";
import { leadStore } from "~/storage/index.server";
import type { LeadChange } from "~/storage/leads/lead-store";
import { addTagReturning, removeTagReturning } from "~/storage/transactions.server";
import { DomainError, invalidFields, parseOrThrow, UNKNOWN_FIELD } from "~/utils/domain-error";
import { workingStaffOrFail } from "../../staff/staff.server";
import { deleteLeads } from "../lead-delete.server";
import {
  LEAD_FILTER_KEYS,
  TagSchema,
  forViewer,
  narrowsSelection,
  parseLeadFilters,
  type Cursor,
  type LeadFilters,
} from "../lead-filters.server";
import { announceTagging, bulkChangeAnnouncer, leadUpdateAnnouncer, sendLeadUpdatesNow } from "../lead-updates.server";
import { MAX_TAGS, StatusSchema, type Actor } from "../lead-work.server";

/**
 * Ids one bulk request may name: more than SQLite binds in one statement (32,766), which
 * no statement meets, as each batch binds its own. A larger selection is a filter.
 */
export const MAX_BULK_IDS = 50_000;
/** A body naming MAX_BULK_IDS ids of the longest kind (64 characters) fits. */
export const BULK_BODY_LIMIT = 4 * 1024 * 1024;
/** Leads changed per transaction by a bulk action (keyset batches). */
export const BULK_BATCH = 1000;

export const BULK_ACTIONS = ["set_status", "assign", "tag", "untag", "delete"] as const;

const BulkActionSchema = z.discriminatedUnion(
  "action",
  [
    z.object({ action: z.literal("set_status"), value: StatusSchema }),
    z.object({
      action: z.literal("assign"),
      value: z.string({ error: "Use a staff user's id, or null." }).max(64).nullable(),
    }),
    z.object({ action: z.literal("tag"), value: TagSchema }),
    z.object({ action: z.literal("untag"), value: TagSchema }),
    z.object({ action: z.literal("delete"), value: z.unknown().optional() }),
  ],
  { error: `Use one of ${BULK_ACTIONS.join(", ")}.` },
);

/** The keys a bulk request may have; the action and its value are read by BulkActionSchema. */
const BulkBodySchema = z
  .object({
    action: z.unknown().optional(),
    value: z.unknown().optional(),
    ids: z
      .array(z.string().max(64), { error: "Use a list of lead ids." })
      .max(MAX_BULK_IDS, `Name at most ${MAX_BULK_IDS} leads; use a filter for more.`)
      .optional(),
    filter: z.record(z.string(), z.string(), { error: "Use an object of filter parameters (strings)." }).optional(),
    all: z.boolean({ error: "Use true, or leave it out." }).optional(),
  })
  .strict();

export type BulkRequest = z.output<typeof BulkActionSchema> &
  ({ ids: string[]; filter?: undefined } | { filter: LeadFilters; ids?: undefined });

const NAME_THE_LEADS = 'Name the leads: {"ids": [...]}, {"filter": {...}}, or {"all": true} for every lead.';
const EVERY_LEAD =
  'This filter narrows nothing, so it would act on every lead: add a filter parameter, or send "all": true to mean every lead.';

/**
 * Reads a bulk request: 422 for an unknown key (named, in the body or its filter), a bad
 * action or value, or no leads named; 400 for a filter parameter with a bad value. A filter
 * that narrows nothing (none, or `spam` alone) needs `"all": true`.
 */
export function parseBulkRequest(input: unknown, viewerId: string): BulkRequest {
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    throw invalidFields([{ path: "(body)", message: "Send a JSON object." }]);
  }
  const body = parseOrThrow(BulkBodySchema, input);
  const action = parseOrThrow(BulkActionSchema, { action: body.action, value: body.value });
  if (body.ids !== undefined) {
    if (body.filter !== undefined || body.all) {
      throw invalidFields([{ path: "ids", message: 'Send ids, or a filter (or "all"), not both.' }]);
    }
    return { ...action, ids: [...new Set(body.ids)] };
  }
  if (body.filter === undefined && body.all !== true)
    throw invalidFields([{ path: "(body)", message: NAME_THE_LEADS }]);
  const filter = body.filter ?? {};
  const unknown = Object.keys(filter).filter((key) => !LEAD_FILTER_KEYS.includes(key));
  if (unknown.length > 0)
    throw invalidFields(unknown.map((key) => ({ path: `filter.${key}`, message: UNKNOWN_FIELD })));
  const filters = parseLeadFilters(filter);
  if (!filters.ok) {
    throw new DomainError(
      "malformed_body",
      "The filter has invalid parameters.",
      filters.details.map((detail) => ({ ...detail, path: `filter.${detail.path}` })),
    );
  }
  if (body.all !== true && !narrowsSelection(filters.value)) {
    throw invalidFields([{ path: "filter", message: EVERY_LEAD }]);
  }
  return { ...action, filter: forViewer(filters.value, viewerId) };
}

/**
 * Applies one action to the named leads or to every lead matching a filter, in keyset
 * batches of BULK_BATCH leads, each in its own transaction: a large filter never holds
 * the database for long, and submissions go on between batches. Every check that can
 * refuse the request is made before the first batch. Answers how many leads it changed
 * (a lead already in that state is not counted), and records lead.bulk for the actor.
 */
export async function bulkUpdate(request: BulkRequest, actor: Actor & AuditActor): Promise<number> {
  if (request.action === "assign" && request.value) await workingStaffOrFail(request.value, "value");
  let affected = 0;
  for await (const ids of selectionBatches(request)) affected += await applyToBatch(request, ids, actor);
  if (affected > 0 && request.action !== "delete") sendLeadUpdatesNow();
  await auditBy(actor, "lead.bulk", null, {
    action: request.action,
    value: request.value ?? null,
    ...(request.ids ? { ids: request.ids.length } : { filter: request.filter }),
    affected,
  });
  return affected;
}

async function* selectionBatches(request: BulkRequest): AsyncGenerator<string[]> {
  if (request.ids) {
    for (let i = 0; i < request.ids.length; i += BULK_BATCH) yield request.ids.slice(i, i + BULK_BATCH);
    return;
  }
  // Keyset over (createdAt, id): a lead the action moves out of the filter does not shift
  // the next batch, since the cursor is a position, not an offset.
  let cursor: Cursor | undefined;
  for (;;) {
    const rows = await leadStore.positions(request.filter, cursor, BULK_BATCH);
    if (rows.length === 0) return;
    yield rows.map((row) => row.id);
    const last = rows[rows.length - 1];
    cursor = { createdAt: new Date(last.createdAt), id: last.id };
    if (rows.length < BULK_BATCH) return;
  }
}

async function applyToBatch(request: BulkRequest, ids: string[], actor: Actor | null): Promise<number> {
  const actorId = actor?.id ?? null;
  switch (request.action) {
    case "delete":
      return deleteLeads(ids);
    // The store writes these in one statement per database: a bulk action over 100,000
    // leads through Prisma's client took a minute (decision 030).
    case "set_status":
    case "assign": {
      const change: LeadChange =
        request.action === "set_status" ? { kind: "status", to: request.value } : { kind: "owner", to: request.value };
      // Each batch's lead.updated events are written in its transaction (decision 041).
      return leadStore.changeLeads(ids, change, actorId, await bulkChangeAnnouncer(change, actor));
    }
    case "tag":
    case "untag": {
      const tag = request.value;
      const announce = await leadUpdateAnnouncer(actor);
      return db.$transaction(async (tx) => {
        // RETURNING names the leads that changed: those that lacked (or had) the tag.
        const changed =
          request.action === "tag"
            ? await addTagReturning(tx, ids, tag, MAX_TAGS)
            : await removeTagReturning(tx, ids, tag);
        const rows = changed.map((leadId) => ({ leadId }));
        if (rows.length === 0) return 0;
        const [fromValue, toValue] = request.action === "tag" ? [null, tag] : [tag, null];
        await tx.leadActivity.createMany({
          data: rows.map((row) => ({ leadId: row.leadId, kind: "tags" as const, fromValue, toValue, actorId })),
        });
        const tags = { added: toValue ? [toValue] : [], removed: fromValue ? [fromValue] : [] };
        await announceTagging(
          tx,
          announce,
          rows.map((row) => row.leadId),
          tags,
        );
        return rows.length;
      });
    }
  }
}
