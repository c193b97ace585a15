// Reading stored leads: the filtered, keyset-paginated list (API and dashboard) and one lead
// labelled by the schema version it was stored under (the per-form source breakdown is in
// form-stats.server.ts). The filters are in lead-filters.server.ts; what a lead shows as is
// lead-detail.server.ts, its timeline lead-history.server.ts; pages are read through the
// LeadStore (app/storage); storing leads lives in lead-capture.server.ts, deleting them in
// lead-delete.server.ts, files in lead-export.server.ts.
import type { LeadData } from "~/forms/form-schema";
import { db, type Prisma } from "~/storage/db.server";
import { leadStore } from "~/storage/index.server";
import type { UnbuiltEvent } from "~/storage/webhook-fan-out-store.server";
import { eventBody } from "../webhooks/webhook-events.server";
import {
  leadDetailOf,
  statusOf,
  utmOf,
  leadDetailSelect,
  type LeadDetail,
  type LeadOwner,
  type LeadSummary,
} from "./lead-detail.server";
import { cursorOf, type LeadFilters, type LeadListQuery, type LeadStatusValue } from "./lead-filters.server";
import { leadTimeline, personHistory, type PersonHistory, type TimelineEntry } from "./lead-history.server";

// The read model of a lead, for the pages and the API that read it from here.
export {
  leadDetailOf,
  leadDetailSelect,
  type LabelledField,
  type LeadDetail,
  type LeadOwner,
  type LeadParts,
  type LeadSummary,
  type Utm,
} from "./lead-detail.server";

// ---------------------------------------------------------------------------
// List

/** The tags and owners of a page of leads, read in two queries. */
export async function tagsAndOwners(
  leads: ReadonlyArray<{ id: string; ownerId: string | null }>,
): Promise<{ tags: Map<string, string[]>; owners: Map<string, LeadOwner> }> {
  const ids = leads.map((lead) => lead.id);
  const ownerIds = [...new Set(leads.flatMap((lead) => (lead.ownerId ? [lead.ownerId] : [])))];
  const [tagRows, owners] = await Promise.all([
    ids.length === 0
      ? []
      : db.leadTag.findMany({
          where: { leadId: { in: ids } },
          select: { leadId: true, tag: true },
          orderBy: { tag: "asc" },
        }),
    ownerIds.length === 0
      ? []
      : db.user.findMany({ where: { id: { in: ownerIds } }, select: { id: true, name: true, email: true } }),
  ]);
  const tags = new Map<string, string[]>();
  for (const row of tagRows) tags.set(row.leadId, [...(tags.get(row.leadId) ?? []), row.tag]);
  return { tags, owners: new Map(owners.map((owner) => [owner.id, owner])) };
}

/**
 * A page of leads, newest first, and the cursor of the next page (null on the last); with
 * `count`, also how many leads match the filters (an index range count: decision 030).
 */
export async function listLeads(
  query: LeadListQuery,
  options: { count?: boolean } = {},
): Promise<{ leads: LeadSummary[]; nextCursor: string | null; total?: number }> {
  const [rows, total] = await Promise.all([
    leadStore.page(query, query.cursor, query.limit + 1),
    options.count ? leadStore.count(query) : undefined,
  ]);
  const page = rows.slice(0, query.limit);
  const [names, { tags, owners }] = await Promise.all([
    leadStore.formNames(page.map((row) => row.formId)),
    tagsAndOwners(page),
  ]);
  const last = page[page.length - 1];
  return {
    leads: page.map((row) => ({
      id: row.id,
      formId: row.formId,
      formName: names.get(row.formId) ?? "",
      createdAt: row.createdAt,
      status: statusOf(row),
      isSpam: row.isSpam,
      owner: (row.ownerId && owners.get(row.ownerId)) || null,
      tags: tags.get(row.id) ?? [],
      email: row.email,
      schemaVersion: row.schemaVersion,
      data: row.data,
      utm: utmOf(row),
      referrerHost: row.referrerHost,
    })),
    nextCursor:
      rows.length > query.limit && last ? cursorOf({ createdAt: new Date(last.createdAt), id: last.id }) : null,
    ...(total !== undefined && { total }),
  };
}

/** How many leads match the filters. */
export function countLeads(filters: LeadFilters): Promise<number> {
  return leadStore.count(filters);
}

// ---------------------------------------------------------------------------
// One lead

/** A lead as `GET /api/leads/:id` and its page show it: with its owner, tags, timeline and history. */
export type LeadRecord = LeadDetail & {
  /** Its stage, also while it is spam: where marking it not-spam returns it. */
  stage: Exclude<LeadStatusValue, "spam">;
  notes: TimelineEntry[];
  timeline: TimelineEntry[];
  history: PersonHistory;
};

/** One lead with everything staff see of it, or null. */
export async function getLead(id: string): Promise<LeadRecord | null> {
  const lead = await getLeadDetail(id);
  if (!lead) return null;
  const [timeline, history] = await Promise.all([leadTimeline(id), personHistory(id, lead.email)]);
  const { stage, ...detail } = lead;
  return { ...detail, stage, notes: timeline.filter((entry) => entry.kind === "note"), timeline, history };
}

/** A lead with its owner and tags (what its webhook events carry) and its stage, or null. */
async function getLeadDetail(id: string): Promise<(LeadDetail & { stage: LeadRecord["stage"] }) | null> {
  return (await leadDetails([id])).get(id) ?? null;
}

/** Leads by id with their owners and tags, in three queries (the ids: at most IN_LIST_SLICE). */
export async function leadDetails(
  ids: readonly string[],
): Promise<Map<string, LeadDetail & { stage: LeadRecord["stage"] }>> {
  const leads = await leadsWithFields(ids);
  const { tags, owners } = await tagsAndOwners(leads);
  const details = leads.map((lead) => ({
    ...leadDetailOf({
      ...lead,
      owner: (lead.ownerId && owners.get(lead.ownerId)) || null,
      tags: tags.get(lead.id) ?? [],
    }),
    stage: lead.status,
  }));
  return new Map(details.map((detail) => [detail.id, detail]));
}

/** Leads by id, each with its form's name and the fields of the schema version it was stored under. */
async function leadsWithFields(ids: readonly string[], client: Prisma.TransactionClient = db) {
  const leads = await client.lead.findMany({
    where: { id: { in: [...ids] } },
    select: { ...leadDetailSelect, form: { select: { name: true, fields: true, schemaVersion: true } } },
  });
  const older = new Map<string, { formId: string; version: number }>();
  for (const lead of leads) {
    if (lead.form.schemaVersion !== lead.schemaVersion) {
      older.set(`${lead.formId}:${lead.schemaVersion}`, { formId: lead.formId, version: lead.schemaVersion });
    }
  }
  const versions =
    older.size === 0
      ? []
      : await client.formVersion.findMany({
          where: { OR: [...older.values()] },
          select: { formId: true, version: true, fields: true },
        });
  const fieldsOf = new Map(versions.map((version) => [`${version.formId}:${version.version}`, version.fields]));
  return leads.map(({ form, ...lead }) => ({
    ...lead,
    data: lead.data as LeadData,
    formName: form.name,
    fields:
      form.schemaVersion === lead.schemaVersion
        ? form.fields
        : (fieldsOf.get(`${lead.formId}:${lead.schemaVersion}`) ?? form.fields),
  }));
}

/**
 * The bodies of lead.created events written without one, by event id (the webhook worker
 * builds them when it fans the events out, and a delete for the leads it is about to
 * delete: decision 028). Each is the lead as it was created: its submission and source as
 * stored, with the stage, owner and tags every new lead has (not those staff may have set
 * since), its form's name as it is now. Null for an event whose lead is gone.
 */
export async function leadCreatedBodies(
  events: readonly UnbuiltEvent[],
  client: Prisma.TransactionClient = db,
): Promise<Map<string, string | null>> {
  if (events.length === 0) return new Map();
  const leads = await leadsWithFields(
    events.flatMap((event) => (event.leadId ? [event.leadId] : [])),
    client,
  );
  const byId = new Map(leads.map((lead) => [lead.id, lead]));
  return new Map(
    events.map((event) => {
      const lead = event.leadId ? byId.get(event.leadId) : undefined;
      if (!lead) return [event.id, null];
      try {
        const created = leadDetailOf({ ...lead, status: undefined, isSpam: false, owner: null, tags: [] });
        return [event.id, eventBody("lead.created", event.createdAt, created)];
      } catch (error) {
        // A lead whose stored row cannot be read as a lead (written by hand, say) would
        // otherwise hold back every event after it: this one is dropped, and said so.
        console.error(`lead.created ${event.id}: no body could be built from lead ${lead.id}:`, error);
        return [event.id, null];
      }
    }),
  );
}

/** Forms to pick from in filters: id and name, newest first (bounded). */
export async function listFormChoices(): Promise<Array<{ id: string; name: string; status: string }>> {
  return db.form.findMany({
    select: { id: true, name: true, status: true },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: 500,
  });
}
