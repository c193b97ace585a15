// The zod schemas of the staff list's forms and of a new API token, client-safe: staff.server.ts
// and api-tokens.server.ts parse with them, and /settings/staff and /account/tokens validate in
// the browser with the same ones (Conform).
import { z } from "zod";
import { EmailSchema, StaffNameSchema } from "./account-schemas";
import { STAFF_ROLES, TOKEN_SCOPES } from "./policy";

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

export const NewTokenSchema = z
  .object({
    name: z.string({ error: "Name the token." }).trim().min(1, "Name the token.").max(100, "At most 100 characters."),
    scopes: z
      .array(z.enum(TOKEN_SCOPES, { error: `Use scopes among: ${TOKEN_SCOPES.join(", ")}.` }), {
        error: "Give a list of scopes.",
      })
      .min(1, "Give at least one scope.")
      .max(TOKEN_SCOPES.length),
    expiresAt: z.iso
      .datetime({ offset: true, error: "Use an ISO 8601 date and time." })
      .transform((value) => new Date(value))
      .refine((date) => date.getTime() > Date.now(), "Use a time in the future.")
      .nullable()
      .optional(),
    // Sudo mode's re-authentication (a change of its own) reads it; taken here so that a
    // client sending it is not refused as an unknown key.
    password: z.string().max(200).optional(),
  })
  .strict();

/**
 * /account/tokens' form: a day (the token ends at its last second, UTC) instead of a time.
 * Whether the password is needed, and right, only the server knows.
 */
export const NewTokenFormSchema = z.object({
  name: NewTokenSchema.shape.name,
  scopes: NewTokenSchema.shape.scopes,
  expiresOn: z.iso.date({ error: "Use a date." }).optional(),
  password: NewTokenSchema.shape.password,
});
