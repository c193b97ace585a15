// The zod schemas of staff account forms, client-safe: the server parses submissions with
// them and the browser validates with the same ones (Conform) before anything is sent.
import { z } from "zod";

export const EmailSchema = z.string().trim().toLowerCase().pipe(z.email("Enter a valid email address.").max(254));
export const PasswordSchema = z.string().min(12, "Use at least 12 characters.").max(200);

export const ChangePasswordSchema = z
  .object({
    currentPassword: z
      .string({ error: "Enter your current password." })
      .min(1, "Enter your current password.")
      .max(200),
    newPassword: z.string({ error: "Use at least 12 characters." }).pipe(PasswordSchema),
    confirmPassword: z.string({ error: "Repeat the new password." }).max(200),
  })
  .refine((value) => value.newPassword === value.confirmPassword, {
    path: ["confirmPassword"],
    message: "The two new passwords differ.",
  });
