// Reading leads whole, each with its form's name and the fields of the schema version it
// was stored under: what a lead's page and API answer show (app/leads/lead.server.ts) and
// what its lead.created and lead.deleted bodies carry (app/webhooks/event-bodies.server.ts).
// Here, below both, so the webhooks area builds a lead's body without importing the leads
// area, which announces its changes through it (decision 045).
import { db, type Prisma } from "~/storage/db.server";
import { consentsOf, type StoredConsent } from "../consent-store.server";

/** The columns of a lead that a lead's detail shows. */
export const leadDetailSelect = {
  id: true,
  formId: true,
  createdAt: true,
  isSpam: true,
  schemaVersion: true,
  data: true,
  utmSource: true,
  utmMedium: true,
  utmCampaign: true,
  utmTerm: true,
  utmContent: true,
  referrerHost: true,
  status: true,
  ownerId: true,
  email: true,
  referrerUrl: true,
  landingPageUrl: true,
  userAgent: true,
  awaitingConfirmation: true,
  confirmedAt: true,
} satisfies Prisma.LeadSelect;

/** A lead's uploaded files as its detail lists them (decision 064), in the order they came. */
export const leadFilesSelect = {
  where: { leadId: { not: null } },
  select: { id: true, field: true, filename: true, contentType: true, size: true },
  orderBy: [{ position: "asc" }, { id: "asc" }],
} satisfies Prisma.Lead$filesArgs;

/** Leads by id, each with its form's name and the fields of the schema version it was stored under. */
export async function leadsWithFields(ids: readonly string[], client: Prisma.TransactionClient = db) {
  const leads = await client.lead.findMany({
    where: { id: { in: [...ids] } },
    select: {
      ...leadDetailSelect,
      form: { select: { name: true, fields: true, schemaVersion: true } },
      files: leadFilesSelect,
    },
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
  const withFields = leads.map(({ form, ...lead }) => ({
    ...lead,
    formName: form.name,
    fields:
      form.schemaVersion === lead.schemaVersion
        ? form.fields
        : (fieldsOf.get(`${lead.formId}:${lead.schemaVersion}`) ?? form.fields),
  }));
  // Consent records (decision 065): read only for leads stored under fields with a consent.
  const consenting = withFields.filter((lead) => hasConsentField(lead.fields)).map((lead) => lead.id);
  const consents = new Map<string, StoredConsent[]>();
  for (const consent of await consentsOf(consenting, client)) {
    consents.set(consent.leadId, [...(consents.get(consent.leadId) ?? []), consent]);
  }
  return withFields.map((lead) => ({ ...lead, consents: consents.get(lead.id) ?? [] }));
}

/** Whether a stored field list (JSON) has a consent field. */
export function hasConsentField(fields: unknown): boolean {
  return Array.isArray(fields) && fields.some((field) => (field as { type?: unknown } | null)?.type === "consent");
}
