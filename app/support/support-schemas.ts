// The support thread's form schemas, client-safe: the JSON API, the dashboard's action and
// the dashboard's browser-side validation (Conform, decision 022) all use these.
import { z } from "zod";
import { EmailSchema } from "~/staff/account-schemas";
import { FORBIDDEN_TEXT_MESSAGE, hasForbiddenText } from "~/utils/text-policy";
import { TICKET_STATUSES } from "./ticket-status";

/**
 * A message body: no control characters, 1 to 20000 characters once trimmed and its line
 * endings made `\n`. The string schema comes first, not inside a pipe: Conform reads an
 * empty input as absent and would answer zod's own "expected string" otherwise.
 */
export const MessageTextSchema = z
  .string({ error: "Write a message." })
  .refine((value) => !hasForbiddenText(value), FORBIDDEN_TEXT_MESSAGE)
  .trim()
  .min(1, "Write a message.")
  .transform((value) => value.replace(/\r\n?/g, "\n"))
  .refine((value) => value.length <= 20_000, "Use at most 20000 characters.");

/** A staff reply, as the dashboard's form sends it (beside its `intent`). */
export const ReplySchema = z.object({ message: MessageTextSchema });
/** A staff reply as the JSON API takes it: nothing but the message. */
export const ReplyBodySchema = ReplySchema.strict();

export const StatusSchema = z.object({
  status: z.enum(TICKET_STATUSES, { error: "Use open, pending or closed." }),
});

/** PATCH /api/support-requests/:ticket: the status, the assignee (a staff user's id; null: nobody), or both. */
export const TicketPatchSchema = z
  .object({
    status: z.enum(TICKET_STATUSES, { error: "Use open, pending or closed." }).optional(),
    assigneeId: z
      .string({ error: "Use a staff user's id, or null." })
      .min(1, "Use a staff user's id, or null.")
      .max(64)
      .nullable()
      .optional(),
  })
  .strict()
  .refine((patch) => Object.keys(patch).length > 0, "Send status, assigneeId or both.");

/** The dashboard's assignee form (beside its `intent`): a staff user's id, or none for nobody. */
export const AssigneeFormSchema = z.object({ assigneeId: TicketPatchSchema.shape.assigneeId });

/** A staff note, as the dashboard's form sends it (beside its `intent`): the same text rules as a message. */
export const NoteFormSchema = z.object({ body: MessageTextSchema });
/** A staff note as the JSON API takes it: nothing but the body. */
export const NoteSchema = NoteFormSchema.strict();

/** The ticket to merge into: its reference (SR-1042, any case, `#` or not) or its id. */
export const MergeFormSchema = z.object({
  into: z
    .string({ error: "Name the support request to merge into, such as SR-1042." })
    .trim()
    .min(1, "Name the support request to merge into, such as SR-1042.")
    .max(64, "Use a reference such as SR-1042."),
});
/** POST /api/support-requests/:ticket/merge: nothing but `into`. */
export const MergeSchema = MergeFormSchema.strict();

export const SavedReplyNameSchema = z
  .string({ error: "Name the reply." })
  .trim()
  .min(1, "Name the reply.")
  .max(100, "At most 100 characters.");

/** A new saved reply, as /settings/replies sends it (beside its `intent`). */
export const SavedReplyFormSchema = z.object({ name: SavedReplyNameSchema, body: MessageTextSchema });
/** A new saved reply as the JSON API takes it: nothing but its fields. */
export const SavedReplySchema = SavedReplyFormSchema.strict();

const oneLine = (max: number, message: string) =>
  z
    .string({ error: message })
    .transform((value) => value.replace(/[\r\n\t]+/g, " ").trim())
    .pipe(z.string().min(1, message).max(max, `Use at most ${max} characters.`));

/** A customer's new request: /support/new's form, a site's own form, the JSON API. */
export const CreateTicketSchema = z.object({
  email: EmailSchema,
  name: z
    .string()
    .optional()
    .nullable()
    .transform((value) => value?.replace(/[\r\n\t]+/g, " ").trim() || null)
    .pipe(z.string().max(200, "Use at most 200 characters.").nullable()),
  subject: oneLine(200, "Give a subject."),
  message: MessageTextSchema,
});
