// Saved replies (docs/api/support.md): team-wide reply templates, picked in a ticket's reply
// box with their placeholders filled for that ticket and the agent replying. An unknown
// placeholder is left as written, so a typo shows instead of vanishing.
import { z } from "zod";
import { db, isUniqueViolation } from "~/storage/db.server";
import { DomainError, parseOrThrow } from "~/utils/domain-error";
import { MessageTextSchema, SavedReplyNameSchema, SavedReplySchema } from "./support-schemas";

export const PLACEHOLDERS = ["customer.name", "customer.email", "ticket.reference", "ticket.subject", "agent.name"];

const SavedReplyPatchSchema = z
  .object({ name: SavedReplyNameSchema.optional(), body: MessageTextSchema.optional() })
  .strict()
  .refine((patch) => Object.keys(patch).length > 0, "Send name, body or both.");

const select = { id: true, name: true, body: true, createdAt: true, updatedAt: true } as const;

export function listSavedReplies() {
  return db.savedReply.findMany({ select, orderBy: { name: "asc" }, take: 500 });
}

function nameTaken(name: string): DomainError {
  return new DomainError("validation_failed", "The request has invalid fields.", [
    { path: "name", message: `A saved reply is already named ${JSON.stringify(name)}.` },
  ]);
}

export async function createSavedReply(input: unknown) {
  const { name, body } = parseOrThrow(SavedReplySchema, input);
  try {
    return await db.savedReply.create({ data: { name, body }, select });
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken(name);
    throw error;
  }
}

export async function updateSavedReply(id: string, input: unknown) {
  const patch = parseOrThrow(SavedReplyPatchSchema, input);
  const { count } = await db.savedReply.updateMany({ where: { id }, data: patch }).catch((error: unknown) => {
    if (isUniqueViolation(error)) throw nameTaken(patch.name ?? "");
    throw error;
  });
  if (count === 0) throw new DomainError("not_found", `No saved reply with id ${JSON.stringify(id)}.`);
  return db.savedReply.findUniqueOrThrow({ where: { id }, select });
}

export async function deleteSavedReply(id: string): Promise<void> {
  const { count } = await db.savedReply.deleteMany({ where: { id } });
  if (count === 0) throw new DomainError("not_found", `No saved reply with id ${JSON.stringify(id)}.`);
}

export type ReplyContext = {
  customer: { name: string | null; email: string };
  ticket: { reference: string; subject: string };
  agent: { name: string | null; email: string };
};

/** The template with `{{customer.name}}`, `{{ticket.reference}}`, `{{agent.name}}`… filled in. */
export function fillSavedReply(body: string, context: ReplyContext): string {
  const values: Record<string, string> = {
    "customer.name": context.customer.name ?? context.customer.email,
    "customer.email": context.customer.email,
    "ticket.reference": context.ticket.reference,
    "ticket.subject": context.ticket.subject,
    "agent.name": context.agent.name ?? context.agent.email,
  };
  return body.replace(/\{\{\s*([a-z]+\.[a-z]+)\s*\}\}/g, (whole, key: string) => values[key] ?? whole);
}
