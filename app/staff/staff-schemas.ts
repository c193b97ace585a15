// The zod schemas of the staff list's forms, client-safe: staff.server.ts parses with them
// and /settings/staff validates in the browser with the same ones (Conform).
import { z } from "zod";
import { EmailSchema, StaffNameSchema } from "./account-schemas";
import { STAFF_ROLES } from "./policy";

/** An invitation's fields, as /settings/staff sends them (beside its `intent`). */
export const InviteFormSchema = z.object({
  email: EmailSchema,
  role: z.enum(STAFF_ROLES, { error: `Use one of: ${STAFF_ROLES.join(", ")}.` }),
  name: StaffNameSchema.optional(),
});
/** An invitation as the JSON API takes it: nothing but its fields. */
export const InviteSchema = InviteFormSchema.strict();

export const StaffChangeSchema = z
  .object({
    role: z.enum(STAFF_ROLES, { error: `Use one of: ${STAFF_ROLES.join(", ")}.` }).optional(),
    disabled: z.boolean({ error: "Use true or false." }).optional(),
  })
  .strict();
