// Consent records (decision 065): written with their lead in the lead store's group commit
// (decisions 026 and 027), so a lead and what its visitor agreed to commit together or not at
// all, and read back for a lead's detail and the exports. Only a lead of a form with a consent
// field has any: the statements below run only for those (the common batch is unchanged).
import { db, prepared, sqliteTime, type Prisma, type SqliteConnection } from "~/storage/db.server";

/** One consent a visitor gave, as the lead's batch writes it. */
export type NewConsent = {
  fieldKey: string;
  text: string;
  version: string;
  acceptedAt: Date;
  formVersion: number;
  ipHash: string | null;
};

const SQLITE_INSERT = `INSERT INTO "ConsentRecord" ("leadId", "fieldKey", "text", "version", "acceptedAt", "formVersion", "ipHash") VALUES (?, ?, ?, ?, ?, ?, ?)`;

/** Writes a lead's consents on a SQLite connection, inside the transaction the caller holds. */
export function writeConsentsSqlite(connection: SqliteConnection, leadId: string, consents: readonly NewConsent[]) {
  for (const consent of consents) {
    prepared(connection, SQLITE_INSERT).run(
      leadId,
      consent.fieldKey,
      consent.text,
      consent.version,
      sqliteTime(consent.acceptedAt),
      consent.formVersion,
      consent.ipHash,
    );
  }
}

/** How many parameters (arrays) the PostgreSQL part below takes. */
export const CONSENT_PARAMS = 7;

/**
 * The part of a PostgreSQL statement that writes the consents of the rows of `parent` (a CTE
 * returning "id"): CONSENT_PARAMS arrays from parameter `from` on, filled by
 * `addConsentParams`. A consent whose lead was not written is not either.
 */
export function consentInsertPostgres(from: number, parent: string): string {
  const types = ["text", "text", "text", "text", "text", "int", "text"];
  const arrays = types.map((type, i) => `$${from + i}::${type}[]`).join(", ");
  return `INSERT INTO "ConsentRecord" ("leadId", "fieldKey", "text", "version", "acceptedAt", "formVersion", "ipHash")
  SELECT c.lead_id, c.field_key, c.text, c.version, c.accepted::timestamp, c.form_version, c.ip_hash
  FROM unnest(${arrays}) AS c(lead_id, field_key, text, version, accepted, form_version, ip_hash)
  JOIN ${parent} ON ${parent}."id" = c.lead_id`;
}

/** Empty parameter arrays for consentInsertPostgres. */
export const consentParams = (): unknown[][] => Array.from({ length: CONSENT_PARAMS }, () => []);

/** Adds a lead's consents to the parameter arrays. */
export function addConsentParams(params: unknown[][], leadId: string, consents: readonly NewConsent[]): void {
  for (const consent of consents) {
    [
      leadId,
      consent.fieldKey,
      consent.text,
      consent.version,
      consent.acceptedAt.toISOString(),
      consent.formVersion,
      consent.ipHash,
    ].forEach((value, i) => params[i].push(value));
  }
}

/** A consent as a lead's detail shows it. */
export type StoredConsent = { leadId: string; fieldKey: string; text: string; version: string; acceptedAt: Date };

/** The consents of these leads, in the order of their fields' keys as stored (by key). */
export function consentsOf(
  leadIds: readonly string[],
  client: Prisma.TransactionClient = db,
): Promise<StoredConsent[]> {
  if (leadIds.length === 0) return Promise.resolve([]);
  return client.consentRecord.findMany({
    where: { leadId: { in: [...leadIds] } },
    select: { leadId: true, fieldKey: true, text: true, version: true, acceptedAt: true },
  });
}
