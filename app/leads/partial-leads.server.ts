// Listing partial leads (issue 31, item 7; decision 060): the answers of visitors who left a
// form with capturePartial after a step that held their email, kept in PartialLead until
// they finish (the lead replaces them) or retention deletes them. Listed only when asked
// (`GET /api/leads?partial=true`, `/leads/partial`), newest first, keyset-paginated;
// `partial=all` lists them among the leads, in one order (listLeadsAndPartials).
import { z } from "zod";
import { db } from "~/storage/db.server";
import { decodeCursorOrFail, encodeCursor, INVALID_CURSOR, type KeysetPosition } from "~/storage/keyset.server";
import { checkInput, invalidFields, type ErrorDetail } from "~/utils/domain-error";
import { leadListQueryOrFail } from "./lead-filters.server";
import { listLeads, type LeadSummary } from "./lead.server";

const PAGE_MAX = 200;

const PartialQuerySchema = z
  .object({
    partial: z.enum(["true", "all"]),
    formId: z.string().trim().min(1).max(64).optional(),
    cursor: z.string().max(200).optional(),
    limit: z.coerce.number().int().min(1).max(PAGE_MAX).default(50),
  })
  .strict();
export type PartialQuery = z.output<typeof PartialQuerySchema>;

/** The query of a partial list, or 422 naming each bad or unknown parameter. */
export function partialQueryOrFail(params: URLSearchParams): PartialQuery {
  const parsed = checkInput(PartialQuerySchema, Object.fromEntries(params));
  if (!parsed.ok) throw invalidFields(parsed.details as ErrorDetail[], "The query has invalid parameters.");
  return parsed.value;
}

export type PartialLeadItem = {
  id: string;
  partial: true;
  formId: string;
  formName: string;
  email: string;
  data: unknown;
  utm: Record<string, string | null>;
  referrerUrl: string | null;
  landingPageUrl: string | null;
  createdAt: string;
  updatedAt: string;
};

/** One page of partial leads, newest first: `nextCursor` continues it. */
export async function listPartialLeads(
  query: Pick<PartialQuery, "formId" | "cursor" | "limit">,
): Promise<{ leads: PartialLeadItem[]; nextCursor: string | null }> {
  const after = query.cursor ? decodeCursorOrFail(query.cursor) : null;
  return partialPage(query, after ? { ...after, atToo: false } : null);
}

/**
 * A page of partials after `after` (createdAt desc, key desc): with `atToo`, every partial
 * of `after.at` too (in the joint list they come after that instant's leads).
 */
async function partialPage(
  query: Pick<PartialQuery, "formId" | "limit">,
  after: (KeysetPosition & { atToo: boolean }) | null,
): Promise<{ leads: PartialLeadItem[]; nextCursor: string | null }> {
  const rows = await db.partialLead.findMany({
    where: {
      ...(query.formId ? { formId: query.formId } : {}),
      ...(after?.atToo ? { createdAt: { lte: after.at } } : {}),
      ...(after && !after.atToo
        ? { OR: [{ createdAt: { lt: after.at } }, { createdAt: after.at, key: { lt: after.id } }] }
        : {}),
    },
    orderBy: [{ createdAt: "desc" }, { key: "desc" }],
    take: query.limit + 1,
    include: { form: { select: { name: true } } },
  });
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    leads: page.map((row) => ({
      id: row.key,
      partial: true,
      formId: row.formId,
      formName: row.form.name,
      email: row.email,
      data: row.data,
      utm: {
        utm_source: row.utmSource,
        utm_medium: row.utmMedium,
        utm_campaign: row.utmCampaign,
        utm_term: row.utmTerm,
        utm_content: row.utmContent,
      },
      referrerUrl: row.referrerUrl,
      landingPageUrl: row.landingPageUrl,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    })),
    nextCursor: rows.length > query.limit && last ? encodeCursor({ at: last.createdAt, id: last.key }) : null,
  };
}

type JointItem = (LeadSummary & { partial: false }) | PartialLeadItem;

/**
 * `partial=all`: the leads (the list's default filters, of `formId` if given) and the partials
 * in one list, newest first; at the same instant the leads come first. The cursor names the
 * kind of the last row (`L` or `P` before its id), so each table resumes at its own place.
 */
export async function listLeadsAndPartials(
  query: Pick<PartialQuery, "formId" | "cursor" | "limit">,
): Promise<{ leads: JointItem[]; nextCursor: string | null }> {
  const after = query.cursor ? jointCursorOrFail(query.cursor) : null;
  const leadQuery = leadListQueryOrFail(new URLSearchParams(query.formId ? { formId: query.formId } : {}));
  const [leads, partials] = await Promise.all([
    listLeads({
      ...leadQuery,
      limit: query.limit + 1,
      // After a partial, the leads of its instant were all listed already ("" sorts first).
      cursor: after ? { createdAt: after.at, id: after.kind === "L" ? after.id : "" } : undefined,
    }),
    partialPage({ ...query, limit: query.limit + 1 }, after ? { ...after, atToo: after.kind === "L" } : null),
  ]);
  const merged: JointItem[] = [];
  let [l, p] = [0, 0];
  while (merged.length < query.limit + 1 && (l < leads.leads.length || p < partials.leads.length)) {
    const lead = leads.leads[l];
    const partial = partials.leads[p];
    if (lead && (!partial || new Date(lead.createdAt).getTime() >= Date.parse(partial.createdAt))) {
      merged.push({ ...lead, partial: false });
      l++;
    } else {
      merged.push(partial);
      p++;
    }
  }
  const page = merged.slice(0, query.limit);
  const last = page.at(-1);
  const more = merged.length > query.limit && last;
  return {
    leads: page,
    nextCursor: more
      ? encodeCursor({ at: new Date(last.createdAt), id: `${last.partial ? "P" : "L"}${last.id}` })
      : null,
  };
}

function jointCursorOrFail(value: string): KeysetPosition & { kind: "L" | "P" } {
  const position = decodeCursorOrFail(value);
  const kind = position.id[0];
  if ((kind !== "L" && kind !== "P") || position.id.length < 2) {
    throw invalidFields([{ path: "cursor", message: INVALID_CURSOR }], "The query has invalid parameters.");
  }
  return { at: position.at, id: position.id.slice(1), kind };
}
