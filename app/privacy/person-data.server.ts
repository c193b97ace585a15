// A person's data (issue 32, item 4; decision 069): everything held for one email address, as
// one JSON document (the right of access), and its erasure in one transaction (the right to
// erasure). Both are owners' and admins' work, and both are audited; the erasure's entry, like
// every older entry that named the address, keeps only a keyed hash of it.
import { createHmac } from "node:crypto";
import { z } from "zod";
import { auditBy, type AuditActor } from "~/audit/audit.server";
import { EmailSchema } from "~/staff/account-schemas";
import { db } from "~/storage/db.server";
import { retryWhileBusy } from "~/storage/transactions.server";
import { parseOrThrow } from "~/utils/domain-error";
import { env } from "~/utils/env.server";
import { findPerson, PERSON_KINDS } from "./person-kinds.server";

export const PersonQuerySchema = z.object({ email: EmailSchema }).strict();

export const EraseRequestSchema = z
  .object({
    email: EmailSchema,
    confirm: z.literal(true, { error: 'Send "confirm": true: erasing cannot be undone.' }),
  })
  .strict();

/** What stands in for an erased address: an HMAC (keyed like client addresses), not reversible by a list of addresses. */
export function personHash(email: string): string {
  return `email-hmac:${createHmac("sha256", env.SESSION_SECRET).update(`person:${email}`).digest("hex")}`;
}

export type PersonExport = { email: string; exportedAt: string } & Record<string, unknown>;

/** Everything held for `input.email`, by kind; audited as people.export. */
export async function exportPerson(input: unknown, actor: AuditActor): Promise<PersonExport> {
  const { email } = parseOrThrow(PersonQuerySchema, input);
  const document: PersonExport = { email, exportedAt: new Date().toISOString() };
  const person = await findPerson(db, email, personHash(email));
  for (const kind of PERSON_KINDS) {
    if (kind.read) document[kind.name] = await kind.read(db, person);
  }
  await auditBy(actor, "people.export", `person:${email}`, { kinds: countsOf(document) });
  return document;
}

function countsOf(document: PersonExport): Record<string, number> {
  return Object.fromEntries(
    Object.entries(document).flatMap(([name, value]) => (Array.isArray(value) ? [[name, value.length]] : [])),
  );
}

export type EraseCounts = Record<string, number>;

/**
 * Deletes (audit entries: rewrites) everything held for the address, in one transaction: a
 * failure anywhere leaves it all as it was. Pending webhook deliveries of the person's leads
 * are dropped, and nothing new is announced (a lead.deleted would send the person's data out
 * once more). Audited as people.erase with the address's hash and the counts.
 */
export async function erasePerson(input: unknown, actor: AuditActor): Promise<EraseCounts> {
  const { email } = parseOrThrow(EraseRequestSchema, input);
  const hash = personHash(email);
  const counts = await retryWhileBusy(() =>
    db.$transaction(
      async (tx) => {
        const person = await findPerson(tx, email, hash);
        const done: EraseCounts = {};
        for (const kind of PERSON_KINDS) done[kind.name] = await kind.erase(tx, person);
        return done;
      },
      { timeout: 120_000, maxWait: 10_000 },
    ),
  );
  await auditBy(actor, "people.erase", `person:${hash}`, { counts });
  return counts;
}
