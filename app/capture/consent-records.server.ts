// The consents a submission gives (issue 32, item 3; decision 065): one record per consent
// field the visitor ticked, with the exact text shown, its version (the first 16 hex digits
// of the text's SHA-256: a changed text is a new version), the time, the form's schema
// version and the client address's HMAC. Written with the lead (app/storage/consent-store).
// A form without consent fields pays one WeakMap lookup per lead.
import { createHash } from "node:crypto";
import type { FormField, LeadData } from "~/forms/schema/form-schema";
import type { NewConsent } from "~/storage/consent-store.server";

type ConsentField = { key: string; text: string; version: string };

const NONE: readonly NewConsent[] = [];
// By field list: a PublicForm's list is one array per schema version read (public-form.server.ts).
const consentFieldsByList = new WeakMap<readonly FormField[], readonly ConsentField[]>();

/** A consent text's version: the first 16 hex digits of its SHA-256 (64 bits: no collision by chance). */
export function consentVersion(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex").slice(0, 16);
}

function consentFieldsOf(fields: readonly FormField[]): readonly ConsentField[] {
  let found = consentFieldsByList.get(fields);
  if (!found) {
    found = fields
      .filter((field) => field.type === "consent" && field.text)
      .map((field) => ({ key: field.key, text: field.text!, version: consentVersion(field.text!) }));
    consentFieldsByList.set(fields, found);
  }
  return found;
}

/** The consents the lead's answers give: each consent field ticked (a hidden one is not in `data`). */
export function acceptedConsents(
  form: { fields: readonly FormField[]; schemaVersion: number },
  data: LeadData,
  at: Date,
  ipHash: string | null,
): readonly NewConsent[] {
  const fields = consentFieldsOf(form.fields);
  if (fields.length === 0) return NONE;
  return fields
    .filter((field) => data[field.key] === true)
    .map((field) => ({
      fieldKey: field.key,
      text: field.text,
      version: field.version,
      acceptedAt: at,
      formVersion: form.schemaVersion,
      ipHash,
    }));
}
