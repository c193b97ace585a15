// The support thread page's operations (app/routes/_dashboard.support.$reference.tsx): the
// page with what its forms offer (the staff to assign, the saved replies filled in for this
// ticket and agent), a saved reply picked without JavaScript, and a staff reply that is not
// sent over one another agent sent since the page was loaded.
import { listStaff } from "../staff/staff.server";
import { fillSavedReply, listSavedReplies, type ReplyContext } from "./saved-replies.server";
import { getThreadPage } from "./support-thread-page.server";
import { addStaffReply, repliedSince } from "./support.server";
import { mergeCandidates } from "./ticket-merge.server";
import type { SessionUser } from "../staff/user.server";

type Ticket = { name: string | null; email: string; reference: string; subject: string };

function replyContext(ticket: Ticket, agent: { name: string | null; email: string }): ReplyContext {
  return {
    customer: { name: ticket.name, email: ticket.email },
    ticket: { reference: ticket.reference, subject: ticket.subject },
    agent: { name: agent.name, email: agent.email },
  };
}

/**
 * One page of a ticket's thread (see getThreadPage) with the enabled staff it can be
 * assigned to, the saved replies filled in for it and `agent`, and the requests its merge
 * form suggests; null for no such ticket.
 */
export async function getSupportDesk(idOrReference: string, before: string | undefined, agent: SessionUser) {
  const ticket = await getThreadPage(idOrReference, before);
  if (!ticket) return null;
  const [members, replies, mergeInto] = await Promise.all([
    listStaff(),
    listSavedReplies(),
    ticket.mergedInto ? [] : mergeCandidates(ticket),
  ]);
  const staff = members.filter((member) => member.status === "active");
  const context = replyContext(ticket, agent);
  const savedReplies = replies.map(({ id, name, body }) => ({ id, name, text: fillSavedReply(body, context) }));
  return { ticket, staff, savedReplies, mergeInto };
}

/** A saved reply's text filled in for the ticket and `agent`; null when either does not exist. */
export async function savedReplyText(
  idOrReference: string,
  savedReplyId: unknown,
  agent: SessionUser,
): Promise<string | null> {
  const [ticket, replies] = await Promise.all([getThreadPage(idOrReference), listSavedReplies()]);
  const saved = replies.find((reply) => reply.id === savedReplyId);
  if (!ticket || !saved) return null;
  return fillSavedReply(saved.body, replyContext(ticket, agent));
}

/**
 * Sends `message` to the customer, unless another reply came after `seen` (the newest message
 * when the page was loaded) and the agent has not confirmed: then nothing is sent.
 */
export async function replyOnce(
  idOrReference: string,
  message: string,
  check: { seen: string; confirmed: boolean },
  agent: SessionUser,
): Promise<{ collision: true } | { collision: false; reference: string }> {
  if (!check.confirmed && (await repliedSince(idOrReference, check.seen, agent.id))) return { collision: true };
  const { ticket } = await addStaffReply(idOrReference, message, { author: "staff", user: agent });
  return { collision: false, reference: ticket.reference };
}
