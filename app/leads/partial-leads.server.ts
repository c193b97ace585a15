// Listing partial leads (issue 31, item 7; decision 060): the answers of visitors who left a
// form with capturePartial after a step that held their email, kept in PartialLead until
// they finish (the lead replaces them) or retention deletes them. Listed only when asked
// (`GET /api/leads?partial=true`, `/leads/partial`), newest first, keyset-paginated.
import { z } from "zod";
import { db } from "~/storage/db.server";
import { decodeCursorOrFail, encodeCursor } from "~/storage/keyset.server";
import { checkInput, invalidFields, type ErrorDetail } from "~/utils/domain-error";

const PAGE_MAX = 200;

const PartialQuerySchema = z
  .object({
    partial: z.literal("true"),
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
  const rows = await db.partialLead.findMany({
    where: {
      ...(query.formId ? { formId: query.formId } : {}),
      ...(after ? { OR: [{ createdAt: { lt: after.at } }, { createdAt: after.at, key: { lt: after.id } }] } : {}),
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
