// The zod schemas of a new API token, client-safe: api-tokens.server.ts parses the JSON
// API's body with NewTokenSchema and /account/tokens validates its form in the browser
// with NewTokenFormSchema, made of the same fields.
import { z } from "zod";
import { TOKEN_SCOPES } from "./policy";

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
