// Reading stored leads: the filtered, keyset-paginated list (API and dashboard) and one lead
// labelled by the schema version it was stored under (the per-form source breakdown is in
// form-stats.server.ts). The filters are in lead-filters.server.ts; pages are read through
// the LeadStore (app/storage); storing leads lives in lead-capture.server.ts, deleting them
// in lead-delete.server.ts, files in lead-export.server.ts.
import type { LeadData } from "~/forms/schema/form-schema";
import { db } from "~/storage/db.server";
import { leadLabelStore, leadStore } from "~/storage/index.server";
import { leadsWithFields } from "~/storage/leads/lead-detail-store.server";
import { leadDetailOf, statusOf, utmOf, type LeadDetail, type LeadOwner, type LeadSummary } from "./lead-detail.server";
import { cursorOf, type LeadFilters, type LeadListQuery, type LeadStatusValue } from "./lead-filters.server";
import { leadTimeline, personHistory, type PersonHistory, type TimelineEntry } from "./lead-history.server";

// The read model of a lead, for the pages and the API that read it from here.
export type { LeadDetail, LeadOwner, LeadSummary } from "./lead-detail.server";

// ---------------------------------------------------------------------------
// List

/**
 * The tags and owners of a page of leads, read in two queries through the driver: the export
 * asks with every page and the list with every request (decision 030).
 */
export async function tagsAndOwners(
  leads: ReadonlyArray<{ id: string; ownerId: string | null }>,
): Promise<{ tags: Map<string, string[]>; owners: Map<string, LeadOwner> }> {
  const ownerIds = [...new Set(leads.flatMap((lead) => (lead.ownerId ? [lead.ownerId] : [])))];
  const [tagRows, owners] = await Promise.all([
    leadLabelStore.tags(leads.map((lead) => lead.id)),
    leadLabelStore.users(ownerIds),
  ]);
  const tags = new Map<string, string[]>();
  for (const row of tagRows) {
    const list = tags.get(row.leadId);
    if (list) list.push(row.tag);
    else tags.set(row.leadId, [row.tag]);
  }
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
      awaitingConfirmation: row.awaitingConfirmation,
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
      data: lead.data as LeadData,
      owner: (lead.ownerId && owners.get(lead.ownerId)) || null,
      tags: tags.get(lead.id) ?? [],
    }),
    stage: lead.status,
  }));
  return new Map(details.map((detail) => [detail.id, detail]));
}

/** Forms to pick from in filters: id and name, newest first (bounded). */
export async function listFormChoices(): Promise<Array<{ id: string; name: string; status: string }>> {
  return db.form.findMany({
    select: { id: true, name: true, status: true },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: 500,
  });
}
