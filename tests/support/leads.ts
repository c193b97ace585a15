// Seeding for the leads tests: forms with their version history and leads written
// straight to the database, as the submit endpoint stores them.
import type { FormField, LeadData } from "~/forms/schema/form-schema";
import { leadSearchText } from "~/forms/schema/lead-values";
import { db } from "~/storage/db.server";
import { addLeadDaily, dailyCounts, dayOf } from "~/storage/leads/lead-daily-store.server";

export async function createForm(name: string, versions: FormField[][]) {
  const current = versions[versions.length - 1];
  const form = await db.form.create({
    data: { name, fields: current, schemaVersion: versions.length, settings: { allowedOrigins: [] } },
  });
  for (const [i, fields] of versions.entries()) {
    await db.formVersion.create({ data: { formId: form.id, version: i + 1, fields } });
  }
  return form;
}

export type SeedLead = {
  data: LeadData;
  schemaVersion?: number;
  createdAt?: Date;
  isSpam?: boolean;
  utmSource?: string | null;
  utmMedium?: string | null;
  utmCampaign?: string | null;
  utmTerm?: string | null;
  utmContent?: string | null;
  referrerUrl?: string | null;
  landingPageUrl?: string | null;
};

/**
 * Writes leads straight to the table and counts those that are not spam into the daily rollup
 * (LeadDaily, decision 055), as the app's lead store does, so the sources page sees them.
 */
export async function createLeads(formId: string, leads: SeedLead[], defaultVersion = 1) {
  for (let i = 0; i < leads.length; i += 5000) {
    const now = new Date();
    const rows = leads.slice(i, i + 5000).map((lead) => ({
      formId,
      schemaVersion: lead.schemaVersion ?? defaultVersion,
      data: lead.data,
      searchText: leadSearchText(lead.data),
      isSpam: lead.isSpam ?? false,
      createdAt: lead.createdAt ?? now,
      utmSource: lead.utmSource ?? null,
      utmMedium: lead.utmMedium ?? null,
      utmCampaign: lead.utmCampaign ?? null,
      utmTerm: lead.utmTerm ?? null,
      utmContent: lead.utmContent ?? null,
      referrerUrl: lead.referrerUrl ?? null,
      referrerHost: lead.referrerUrl ? new URL(lead.referrerUrl).host : null,
      landingPageUrl: lead.landingPageUrl ?? null,
      email: typeof lead.data.email === "string" ? lead.data.email.toLowerCase() : null,
    }));
    await db.$transaction(async (tx) => {
      await tx.lead.createMany({ data: rows });
      const counted = rows.filter((row) => !row.isSpam).map((row) => ({ ...row, day: dayOf(row.createdAt) }));
      await addLeadDaily(tx, dailyCounts(counted, 1));
    });
  }
}

export const field = (key: string, label: string, type: FormField["type"] = "text", extra: Partial<FormField> = {}) =>
  ({ key, label, type, required: false, ...extra }) as FormField;

export const day = (iso: string) => new Date(`${iso}Z`);
