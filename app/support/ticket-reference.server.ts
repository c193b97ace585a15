// Ticket references (SR-1042): the prefix is configurable, the number comes from one
// atomic counter per prefix, and a reference is found in any letter case, with or
// without its `#`, in a subject line too.
import { db, isUniqueViolation, type Prisma } from "~/storage/db.server";
import { env } from "~/utils/env.server";

const REFERENCE = /^([A-Za-z]{1,10})-(\d{1,9})$/;

/** The id of a ticket or its reference in any letter case (`sr-1042`). */
export function ticketWhere(idOrReference: string): Prisma.TicketWhereUniqueInput {
  const trimmed = idOrReference.trim().replace(/^#/, "");
  return REFERENCE.test(trimmed) ? { reference: trimmed.toUpperCase() } : { id: trimmed };
}

/**
 * The reference a subject names: `#SR-1042` anywhere, any case, after Re:/Fwd: too.
 * The configured prefix wins; another prefix is still tried (tickets made before a
 * prefix change keep theirs).
 */
export function referenceInSubject(subject: string): string | null {
  const found = [...subject.matchAll(/#([A-Za-z]{1,10})-(\d{1,9})\b/g)].map((m) => ({
    prefix: m[1].toUpperCase(),
    reference: `${m[1]}-${m[2]}`.toUpperCase(),
  }));
  return (found.find((f) => f.prefix === env.SUPPORT_TICKET_PREFIX) ?? found[0])?.reference ?? null;
}

const FIRST_NUMBER = 1001;

/**
 * The next ticket number: one atomic upsert-increment, so concurrent callers (other
 * instances too) never get the same number. A failed create leaves a gap, never a repeat.
 */
export async function nextTicketNumber(prefix = env.SUPPORT_TICKET_PREFIX): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    try {
      const counter = await db.ticketCounter.upsert({
        where: { prefix },
        create: { prefix, value: FIRST_NUMBER },
        update: { value: { increment: 1 } },
        select: { value: true },
      });
      return counter.value;
    } catch (error) {
      // Two first-ever creates can race on the insert; the loser increments instead.
      if (isUniqueViolation(error) && attempt < 3) continue;
      throw error;
    }
  }
}
