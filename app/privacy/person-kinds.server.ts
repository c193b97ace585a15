// Every kind of row the service holds about a person who submitted a form or wrote to support,
// found by their email address (decision 069): what an export shows of it and how an erasure
// removes it. One entry per table. A table of a lead's own (consent records, lead files) is one
// leadChild line in PERSON_KINDS, before "leads". Entries run in order: children before their parents, outbox rows before the tickets
// they point at (their relation would only be set to null).
import { IN_LIST_SLICE, Prisma, slices } from "~/storage/db.server";
import { eraseAddress, personIdOf } from "~/storage/people/people-store.server";
import {
  customerMessagesFrom,
  deleteWhere,
  equalsLower,
  idsWhere,
  keysNaming,
  replaceAddress,
} from "~/storage/person-store.server";
import { deleteLeadsReturning } from "~/storage/transactions.server";

type Client = Prisma.TransactionClient;

/** The person, and the rows that are theirs by their address (read once, before the kinds run). */
export type Person = {
  /** Lower-case. */
  email: string;
  /** What stands in for the address where a row is kept (audit entries). */
  hash: string;
  leadIds: string[];
  ticketIds: string[];
  /** Webhook events of their leads or whose body names the address. */
  eventIds: string[];
  /** What they wrote that sits in another's support request (a merge moved it there, decision 072). */
  messageIds: string[];
};

export type PersonKind = {
  /** The key in the export document and in an erasure's counts. */
  name: string;
  /** What the export shows; absent: shown inside another kind (a ticket's messages). */
  read?: (client: Client, person: Person) => Promise<unknown>;
  /** Deletes (or rewrites) the person's rows; how many. */
  erase: (client: Client, person: Person) => Promise<number>;
};

/** The rows of `ids`, a slice at a time (SQLite binds at most 999 values in one statement). */
async function inSlices<T>(ids: readonly string[], run: (slice: string[]) => Promise<T[]>): Promise<T[]> {
  const rows: T[] = [];
  for (const slice of slices(ids, IN_LIST_SLICE)) rows.push(...(await run(slice)));
  return rows;
}

async function countSlices(ids: readonly string[], run: (slice: string[]) => Promise<{ count: number }>) {
  let count = 0;
  for (const slice of slices(ids, IN_LIST_SLICE)) count += (await run(slice)).count;
  return count;
}

type ByLead = { where: { leadId: { in: string[] } } };
/** What leadChild needs of a Prisma model with a `leadId` column. */
type LeadChildTable = {
  findMany(args: ByLead): Promise<unknown[]>;
  deleteMany(args: ByLead): Promise<{ count: number }>;
};

/** A table of rows that belong to a lead: shown whole, deleted before the lead. */
export function leadChild(name: string, table: (client: Client) => LeadChildTable): PersonKind {
  return {
    name,
    read: (client, person) =>
      inSlices(person.leadIds, (ids) => table(client).findMany({ where: { leadId: { in: ids } } })),
    erase: (client, person) =>
      countSlices(person.leadIds, (ids) => table(client).deleteMany({ where: { leadId: { in: ids } } })),
  };
}

const leads: PersonKind = {
  name: "leads",
  read: (client, person) =>
    inSlices(person.leadIds, (ids) =>
      client.lead.findMany({
        where: { id: { in: ids } },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        omit: { searchText: true, idempotencyKey: true },
        include: { form: { select: { name: true } }, tags: { select: { tag: true } } },
      }),
    ),
  // Tags go with their lead (cascade); the daily rollup is corrected (decision 055).
  erase: async (client, person) => (await inSlices(person.leadIds, (ids) => deleteLeadsReturning(client, ids))).length,
};

const partialLeads: PersonKind = {
  name: "partialLeads",
  read: async (client, person) => {
    const keys = await idsWhere(client, "PartialLead", equalsLower("email", person.email), "key");
    return inSlices(keys, (slice) =>
      client.partialLead.findMany({ where: { key: { in: slice } }, omit: { key: true } }),
    );
  },
  erase: (client, person) => deleteWhere(client, "PartialLead", equalsLower("email", person.email)),
};

const supportRequests: PersonKind = {
  name: "supportRequests",
  read: async (client, person) =>
    (await requestsOf(client, person)).map((request) => ({
      ...request,
      // Another customer's words (a request of theirs merged into this one) are theirs to see.
      messages: request.messages.filter(
        (message) => message.author !== "customer" || message.fromEmail.toLowerCase() === person.email,
      ),
    })),
  erase: (client, person) =>
    countSlices(person.ticketIds, (ids) => client.ticket.deleteMany({ where: { id: { in: ids } } })),
};

function requestsOf(client: Client, person: Person) {
  return inSlices(person.ticketIds, (ids) =>
    client.ticket.findMany({
      where: { id: { in: ids } },
      orderBy: { createdAt: "asc" },
      select: {
        reference: true,
        email: true,
        name: true,
        subject: true,
        status: true,
        createdAt: true,
        messages: {
          orderBy: { createdAt: "asc" },
          select: {
            direction: true,
            author: true,
            fromEmail: true,
            body: true,
            fullBody: true,
            notKept: true,
            createdAt: true,
            // What was attached, not its bytes (staff download those from the thread).
            attachments: { select: { id: true, filename: true, contentType: true, size: true } },
          },
        },
        notes: { orderBy: { createdAt: "asc" }, select: { body: true, createdAt: true } },
      },
    }),
  );
}

/** Their messages in other customers' requests (merged there), with what was attached. */
const messagesElsewhere: PersonKind = {
  name: "supportMessagesElsewhere",
  read: (client, person) =>
    inSlices(person.messageIds, (ids) =>
      client.ticketMessage.findMany({
        where: { id: { in: ids } },
        orderBy: { createdAt: "asc" },
        select: {
          ticket: { select: { reference: true } },
          fromEmail: true,
          body: true,
          fullBody: true,
          createdAt: true,
          attachments: { select: { id: true, filename: true, contentType: true, size: true } },
        },
      }),
    ),
  // Their attachments and the attachments' bytes go with them (cascade).
  erase: (client, person) =>
    countSlices(person.messageIds, (ids) => client.ticketMessage.deleteMany({ where: { id: { in: ids } } })),
};

/** A ticket's messages, notes and attachments (their bytes with them, by cascade), counted apart. */
const ticketParts: PersonKind[] = [
  {
    name: "attachments",
    erase: (client, person) =>
      countSlices(person.ticketIds, (ids) =>
        client.ticketAttachment.deleteMany({ where: { message: { ticketId: { in: ids } } } }),
      ),
  },
  {
    name: "supportMessages",
    erase: (client, person) =>
      countSlices(person.ticketIds, (ids) => client.ticketMessage.deleteMany({ where: { ticketId: { in: ids } } })),
  },
  {
    name: "supportNotes",
    erase: (client, person) =>
      countSlices(person.ticketIds, (ids) => client.ticketNote.deleteMany({ where: { ticketId: { in: ids } } })),
  },
];

/** Email to the address, replying to it (a staff notification of their lead), of their tickets, or naming them. */
async function emailsOf(client: Client, person: Person): Promise<string[]> {
  const ofTickets =
    person.ticketIds.length > 0 ? Prisma.sql`OR "ticketId" IN (${Prisma.join(person.ticketIds)})` : Prisma.empty;
  const theirs = await idsWhere(
    client,
    "OutboxEmail",
    Prisma.sql`${equalsLower("toEmail", person.email)} OR ${equalsLower("replyTo", person.email)} ${ofTickets}`,
  );
  const naming = await keysNaming(client, "OutboxEmail", ["subject", "text"], person.email);
  return [...new Set([...theirs, ...naming])];
}

const emails: PersonKind = {
  name: "emails",
  read: async (client, person) =>
    inSlices(await emailsOf(client, person), (ids) =>
      client.outboxEmail.findMany({
        where: { id: { in: ids } },
        orderBy: { createdAt: "asc" },
        select: { toEmail: true, subject: true, text: true, status: true, sentAt: true, createdAt: true },
      }),
    ),
  // Their attempts go with them (cascade).
  erase: async (client, person) =>
    countSlices(await emailsOf(client, person), (ids) => client.outboxEmail.deleteMany({ where: { id: { in: ids } } })),
};

const PENDING = ["pending", "delivering"] as const;

const webhookEvents: PersonKind[] = [
  {
    // Counted apart: what would still have been sent to the endpoints.
    name: "pendingDeliveries",
    erase: (client, person) =>
      countSlices(person.eventIds, (ids) =>
        client.webhookDelivery.deleteMany({ where: { eventId: { in: ids }, status: { in: [...PENDING] } } }),
      ),
  },
  {
    name: "webhookEvents",
    read: (client, person) =>
      inSlices(person.eventIds, (ids) =>
        client.webhookEvent.findMany({
          where: { id: { in: ids } },
          orderBy: { createdAt: "asc" },
          select: {
            id: true,
            type: true,
            payload: true,
            createdAt: true,
            deliveries: { select: { endpointId: true, status: true, createdAt: true } },
          },
        }),
      ),
    // Their deliveries and attempts go with them (cascade).
    erase: (client, person) =>
      countSlices(person.eventIds, (ids) => client.webhookEvent.deleteMany({ where: { id: { in: ids } } })),
  },
];

/** A table whose rows hold the address in one column, `email` (lower-case). */
function byAddress(name: string, table: string, where: (email: string) => Prisma.Sql, read?: PersonKind["read"]) {
  return {
    name,
    read,
    erase: (client, person) => deleteWhere(client, table, where(person.email)),
  } satisfies PersonKind;
}

/** A table whose rows name the address in the text of `column` (the whole address), keyed by `key`. */
function naming(name: string, table: string, column: string, key: string): PersonKind {
  return {
    name,
    erase: async (client, person) => {
      const keys = await keysNaming(client, table, [column], person.email, key);
      return countSlices(keys, async (slice) => ({
        count: await deleteWhere(client, table, Prisma.sql`${Prisma.raw(`"${key}"`)} IN (${Prisma.join(slice)})`),
      }));
    },
  };
}

const autoresponder: PersonKind[] = [
  byAddress(
    "autoresponderQuota",
    "AutoresponderQuota",
    (email) => equalsLower("email", email),
    (client, person) =>
      client.autoresponderQuota.findMany({ where: { email: person.email }, select: { day: true, count: true } }),
  ),
  byAddress(
    "emailSuppressions",
    "EmailSuppression",
    (email) => equalsLower("email", email),
    (client, person) =>
      client.emailSuppression.findMany({ where: { email: person.email }, select: { createdAt: true } }),
  ),
];

/** Short-lived rows that may hold the address: a refused post's draft, a rate limit's key. */
const transient: PersonKind[] = [
  naming("visitorDrafts", "VisitorDraft", "payload", "key"),
  naming("rateLimits", "RateLimiterFlexible", "key", "key"),
];

/** Audit entries that name the address: kept (they record what staff did), the address replaced by its hash. */
const auditEntries: PersonKind = {
  name: "auditEntries",
  read: async (client, person) => {
    const ids = await auditNaming(client, person.email);
    return inSlices(ids, (slice) =>
      client.auditEntry.findMany({
        where: { id: { in: slice } },
        select: { action: true, target: true, details: true, createdAt: true },
      }),
    );
  },
  erase: async (client, person) => {
    const ids = await auditNaming(client, person.email);
    const rows = await inSlices(ids, (slice) =>
      client.auditEntry.findMany({ where: { id: { in: slice } }, select: { id: true, target: true, details: true } }),
    );
    for (const row of rows) {
      await client.auditEntry.update({
        where: { id: row.id },
        data: {
          target: row.target === null ? null : replaceAddress(row.target, person.email, person.hash),
          details: replaceAddress(row.details, person.email, person.hash),
        },
      });
    }
    return rows.length;
  },
};

const auditNaming = (client: Client, email: string) => keysNaming(client, "AuditEntry", ["target", "details"], email);

// The person the address belongs to (decision 071): their row and addresses. Erasing takes the
// address off them, and the person too when it was their last.
const people: PersonKind = {
  name: "people",
  read: async (client, person) => {
    const id = await personIdOf(client, person.email);
    if (!id) return [];
    const found = await client.person.findUniqueOrThrow({
      where: { id },
      select: { id: true, name: true, firstSeenAt: true, _count: { select: { addresses: true } } },
    });
    // Only the address asked about: the person's others (a merge's aliases, decision 071) and the
    // name and first contact that may have come with them are not shown through this one.
    const alone = found._count.addresses === 1;
    return [
      {
        id: found.id,
        name: alone ? found.name : null,
        firstSeenAt: alone ? found.firstSeenAt : null,
        addresses: [{ email: person.email }],
      },
    ];
  },
  erase: (client, person) => eraseAddress(client, person.email),
};

/** Every kind, in the order an erasure runs them. */
export const PERSON_KINDS: readonly PersonKind[] = [
  leadChild("leadActivity", (client) => client.leadActivity),
  // What each person agreed to (decision 065): exported with their leads, erased before them.
  leadChild("consentRecords", (client) => client.consentRecord),
  // The files a person uploaded (decision 064): metadata exported, bytes (chunks) erased with them.
  leadChild("leadFiles", (client) => client.leadFile),
  ...webhookEvents,
  leads,
  partialLeads,
  emails,
  ...ticketParts,
  messagesElsewhere,
  supportRequests,
  ...autoresponder,
  ...transient,
  people,
  auditEntries,
];

/** The ids a person's kinds work from: their leads, tickets and the webhook events naming them. */
export async function findPerson(client: Client, email: string, hash: string): Promise<Person> {
  const leadIds = (await client.lead.findMany({ where: { email }, select: { id: true } })).map((row) => row.id);
  const ticketIds = await idsWhere(client, "Ticket", equalsLower("email", email));
  const ofLeads = await inSlices(leadIds, async (ids) =>
    (await client.webhookEvent.findMany({ where: { leadId: { in: ids } }, select: { id: true } })).map((row) => row.id),
  );
  const named = await keysNaming(client, "WebhookEvent", ["payload"], email);
  const written = await customerMessagesFrom(client, email);
  const own = new Set(ticketIds);
  const messageIds = written.filter((row) => !own.has(row.ticketId)).map((row) => row.id);
  return { email, hash, leadIds, ticketIds, eventIds: [...new Set([...ofLeads, ...named])], messageIds };
}
