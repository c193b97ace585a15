// A support request as the dashboard page shows it: the newest messages a page at a time,
// each message's text cut to a preview in the database, and the whole text a download away
// (app/routes/support.$reference.messages.$id.text.ts). A thread of 21 MB read whole, then
// rendered into the page and its data, held every other request for over half a second
// (issue 28); on SQLite the read alone runs on the event loop. Decision 035.
import { db } from "~/storage/db.server";
import { messageTextPreviews } from "~/storage/transactions.server";
import {
  emailSelect,
  listSelect,
  mergedIntoSelect,
  noteSelect,
  threadEmails,
  threadMessages,
} from "./support-thread.server";
import { ticketWhere } from "./ticket-reference.server";

/** Messages on one page of a thread; older ones are a link away. */
export const MESSAGES_PER_PAGE = 50;
/** Characters of a message's text (and of the full email) shown on the page. */
export const PREVIEW_CHARACTERS = 5_000;

// The message without its two texts: those come cut, from textPreviews.
const messageSelect = {
  id: true,
  direction: true,
  author: true,
  authorUser: { select: { id: true, email: true, name: true } },
  fromEmail: true,
  unverifiedSender: true,
  isAutoReply: true,
  emailMessageId: true,
  notKept: true,
  attachments: { select: { id: true, filename: true, contentType: true, size: true }, orderBy: { id: "asc" } },
  createdAt: true,
} as const;

type Preview = { body: string; fullBody: string; fullBytes: number; cut: boolean; quoted: boolean };

// Messages cut per query: SQLite reads a whole text value to cut it (up to 2 MB a message
// here), synchronously, so a page's reads are spread over turns of the event loop.
const PREVIEWS_PER_QUERY = 4;

/**
 * The first PREVIEW_CHARACTERS of each message's text and full email, and their sizes in
 * bytes: octet_length reads neither SQLite's value nor PostgreSQL's compressed one, where
 * length() and a comparison of the whole texts would read (and decompress) both.
 */
async function textPreviews(ids: string[]): Promise<Map<string, Preview>> {
  const previews = new Map<string, Preview>();
  for (let start = 0; start < ids.length; start += PREVIEWS_PER_QUERY) {
    const batch = ids.slice(start, start + PREVIEWS_PER_QUERY);
    const rows = await messageTextPreviews(batch, PREVIEW_CHARACTERS);
    for (const row of rows) previews.set(row.id, preview(row));
    await new Promise((resolve) => setImmediate(resolve));
  }
  return previews;
}

function preview(row: { body: string; bodyBytes: unknown; fullBody: string; fullBytes: unknown }): Preview {
  const bodyBytes = Number(row.bodyBytes);
  const fullBytes = Number(row.fullBytes);
  const bodyCut = Buffer.byteLength(row.body) < bodyBytes;
  const fullCut = Buffer.byteLength(row.fullBody) < fullBytes;
  // The full email differs from the text shown (quoted history was cut off). Compared whole
  // when both fit the preview; otherwise by their beginnings and sizes.
  const quoted =
    bodyCut || fullCut ? fullBytes !== bodyBytes || row.fullBody !== row.body : row.fullBody.trim() !== row.body.trim();
  return { body: row.body, fullBody: row.fullBody, fullBytes, cut: bodyCut || (quoted && fullCut), quoted };
}

/**
 * One page of a ticket's thread, oldest first: the MESSAGES_PER_PAGE messages before
 * `before` (a message id), or the newest ones. `earlier` names the page before it, if any.
 */
export async function getThreadPage(idOrReference: string, before?: string) {
  const ticket = await db.ticket.findUnique({
    where: ticketWhere(idOrReference),
    select: {
      ...listSelect,
      ...mergedIntoSelect,
      threadMessageId: true,
      outbox: { orderBy: [{ createdAt: "asc" }, { id: "asc" }], take: 500, select: emailSelect },
      notes: { orderBy: [{ createdAt: "asc" }, { id: "asc" }], take: 500, select: noteSelect },
    },
  });
  if (!ticket) return null;
  const cursor = before
    ? await db.ticketMessage.findFirst({ where: { id: before, ticketId: ticket.id }, select: { id: true } })
    : null;
  // One more than a page, newest first: the extra one says there is an earlier page.
  const newestFirst = await db.ticketMessage.findMany({
    where: { ticketId: ticket.id },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    ...(cursor ? { cursor, skip: 1 } : {}),
    take: MESSAGES_PER_PAGE + 1,
    select: messageSelect,
  });
  const messages = newestFirst.slice(0, MESSAGES_PER_PAGE).reverse();
  // The reply form's "seen": the newest message of the thread, on whichever page.
  const newest = cursor
    ? await db.ticketMessage.findFirst({
        where: { ticketId: ticket.id },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        select: { id: true },
      })
    : messages.at(-1);
  const previews = await textPreviews(messages.map((message) => message.id));
  const { threadMessageId, outbox, mergedInto, ...rest } = ticket;
  return {
    ...rest,
    mergedInto: mergedInto?.reference ?? null,
    earlier: newestFirst.length > MESSAGES_PER_PAGE ? messages[0].id : null,
    newestMessageId: newest?.id ?? "",
    messages: threadMessages(rest.reference, messages, outbox, (message) => {
      const text = previews.get(message.id)!;
      return {
        body: text.body,
        fullBody: text.quoted ? text.fullBody : "",
        hasQuotedText: text.quoted,
        /** Either text is longer than shown: the page links to the whole of it. */
        cut: text.cut,
        fullBytes: text.fullBytes,
        textUrl: messageTextPath(rest.reference, message.id),
      };
    }),
    emails: threadEmails(outbox, threadMessageId),
  };
}

/** Where staff download a message's whole text (app/routes/support.$reference.messages.$id.text.ts). */
export function messageTextPath(reference: string, id: string): string {
  return `/support/${encodeURIComponent(reference)}/messages/${encodeURIComponent(id)}/text`;
}

/** A message's whole text as received (the full email), or null when the ticket has no such message. */
export async function getMessageText(reference: string, id: string) {
  const message = await db.ticketMessage.findFirst({
    where: { id, ticket: ticketWhere(reference) },
    select: { fullBody: true, ticket: { select: { reference: true } } },
  });
  return message ? { reference: message.ticket.reference, text: message.fullBody } : null;
}

export type ThreadPage = NonNullable<Awaited<ReturnType<typeof getThreadPage>>>;
