// Joining two people into one (issue 33, item 5; decision 071): the person merged away gives
// the other every address it holds, kept as aliases, and with them its leads and tickets
// (which are found through their addresses, so no lead or ticket row is rewritten and none
// can be lost); counts, last seen and first touch are read afresh from the joined addresses.
// One transaction, merges taken one at a time; audited as people.merge.
import { z } from "zod";
import { auditBy, type AuditActor } from "~/audit/audit.server";
import { db } from "~/storage/db.server";
import { mergePeople, personIdOf, personRow } from "~/storage/people/people-store.server";
import { normalAddress } from "~/storage/people/person-arrival.server";
import { retryWhileBusy, takeLock } from "~/storage/transactions.server";
import { DomainError, invalidFields, parseOrThrow } from "~/utils/domain-error";
import { getPerson, personNotFound, type PersonDetail } from "./people.server";

export const MergeSchema = z
  .object({
    into: z
      .string({ error: "Name the id of the person to merge into." })
      .trim()
      .min(1, "Name the id of the person to merge into.")
      .max(100, "Use at most 100 characters."),
  })
  .strict();

/**
 * Merges person `id` into `input.into`; answers the joined person. 404 when `id` is unknown;
 * 422 naming `into` when it is `id` itself or no person.
 */
export async function mergePerson(id: string, input: unknown, actor: AuditActor): Promise<PersonDetail> {
  const { into } = parseOrThrow(MergeSchema, input);
  if (into === id) {
    throw invalidFields([{ path: "into", message: "A person cannot be merged into themselves: name another person." }]);
  }
  const moved = await retryWhileBusy(() =>
    db.$transaction(async (tx) => {
      await takeLock(tx, "people.merge");
      if (!(await personRow(tx, id))) throw personNotFound();
      if (!(await personRow(tx, into))) {
        throw invalidFields([{ path: "into", message: "There is no person with this id." }]);
      }
      return mergePeople(tx, id, into);
    }),
  );
  await auditBy(actor, "people.merge", `person:${into}`, { merged: id, addresses: moved });
  return getPerson(into, {});
}

export type MergeRefusal = { status: 404 | 422; message: string };

/**
 * The page's merge (/people/:id): `into` may be the other person's id or one of their
 * addresses. Answers the person merged into, or why not.
 */
export async function mergeFromPage(
  id: string,
  form: FormData,
  actor: AuditActor,
): Promise<{ into: string } | MergeRefusal> {
  const given = String(form.get("into") ?? "").trim();
  const into = given.includes("@") ? await personIdOf(db, normalAddress(given)) : given;
  if (into === null) return { status: 422, message: "No person holds this address." };
  try {
    await mergePerson(id, { into }, actor);
    return { into };
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { status: error.code === "not_found" ? 404 : 422, message: error.details[0]?.message ?? error.message };
  }
}
