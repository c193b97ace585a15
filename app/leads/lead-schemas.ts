// Working a lead, client-safe: the statuses and the tag rule the API and the lists use, and
// the lead page's form schemas, which its action parses with and its browser validates
// with (Conform, decision 022), so both give the same messages.
import { z } from "zod";
import { LEAD_STATUSES } from "~/storage/leads/lead-types";

// A lead's status (its stage, or `spam`) is the table's: app/storage/leads/lead-types.ts.
export const MAX_TAG_LENGTH = 40;
export const MAX_TAGS = 10;
export const MAX_NOTE_LENGTH = 5000;

/** A tag as stored: trimmed, inner spaces collapsed, lower-cased. */
export const TagSchema = z
  .string()
  .transform((value) => value.trim().replace(/\s+/g, " ").toLowerCase())
  .pipe(z.string().min(1, "A tag cannot be empty.").max(MAX_TAG_LENGTH, `Use at most ${MAX_TAG_LENGTH} characters.`));

/** The tags input: comma-separated, empty items left out. */
export const tagList = (value: string) =>
  value
    .split(",")
    .map((tag) => tag.trim())
    .filter(Boolean);

/** The tags input's text, each tag checked, a refused one named by its position ("Tag 2: ..."). */
const TagsTextSchema = z.string().superRefine((value, context) => {
  const tags = tagList(value);
  if (tags.length > MAX_TAGS) {
    context.addIssue({ code: "custom", message: `Use at most ${MAX_TAGS} tags.` });
    return;
  }
  tags.forEach((tag, index) => {
    const result = TagSchema.safeParse(tag);
    if (!result.success)
      context.addIssue({ code: "custom", message: `Tag ${index + 1}: ${result.error.issues[0].message}` });
  });
});

/**
 * The lead page's "Status, owner and tags" form (and the spam notice's "Not spam"). An
 * empty owner is nobody; `<name>Was` holds what the page showed, so a save changes only
 * what this person changed.
 */
export const LeadWorkFormSchema = z.object({
  status: z.enum(LEAD_STATUSES, { error: `Use one of ${LEAD_STATUSES.join(", ")}.` }).optional(),
  ownerId: z.string().max(64, "Use a staff user's id.").optional(),
  tags: TagsTextSchema.optional(),
  statusWas: z.string().optional(),
  ownerIdWas: z.string().optional(),
  tagsWas: z.string().optional(),
});

/** The lead page's note form. */
export const LeadNoteFormSchema = z.object({
  body: z
    .string({ error: "Write the note." })
    .trim()
    .min(1, "Write the note.")
    .max(MAX_NOTE_LENGTH, `Use at most ${MAX_NOTE_LENGTH} characters.`),
});

export const NO_LEADS = "Tick the leads to change, or choose all leads matching the filter.";
export const NO_OPERATION = "Choose what to do with the leads.";

/**
 * The lead list's bulk form (Apply or Export): which leads, and for Apply what to do. What
 * an operation may be, and with which tag, the bulk operation itself checks
 * (lead-bulk-form.server.ts reads the form into the request POST /api/leads/bulk takes).
 */
export const BulkFormSchema = z
  .object({
    intent: z.enum(["bulk", "export"]),
    scope: z.enum(["selected", "all"]).optional(),
    ids: z.array(z.string()).optional(),
    filter: z.string().optional(),
    operation: z.string().optional(),
    tag: z.string().optional(),
    confirmed: z.string().optional(),
  })
  .superRefine((form, context) => {
    if (form.scope !== "all" && !form.ids?.length)
      context.addIssue({ code: "custom", path: ["ids"], message: NO_LEADS });
    if (form.intent === "bulk" && !form.operation) {
      context.addIssue({ code: "custom", path: ["operation"], message: NO_OPERATION });
    }
  });
