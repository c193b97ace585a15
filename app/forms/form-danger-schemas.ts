// The builder's danger zone forms, client-safe: archiving (or bringing back) a form and
// deleting it, parsed by the section's action and validated in the browser with the same
// schemas (Conform, decision 022).
import { z } from "zod";

/** Archive or unarchive: the intent is the whole form. */
export const FormStatusFormSchema = z.object({
  intent: z.enum(["archive", "unarchive"], { error: "Choose archive or unarchive." }),
});

/** Delete: whether the form's leads go with it (the checkbox, "on" when ticked). */
export const DeleteFormFormSchema = z.object({ deleteLeads: z.boolean().optional() });
