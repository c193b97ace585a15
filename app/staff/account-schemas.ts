// The zod schemas of staff account forms, client-safe: the server parses submissions with
// them and the browser validates with the same ones (Conform) before anything is sent.
import { z } from "zod";

// A string schema's own `error` is what an empty input reads as: Conform sends it as absent.
export const EmailSchema = z
  .string({ error: "Enter a valid email address." })
  .trim()
  .toLowerCase()
  .pipe(z.email("Enter a valid email address.").max(254));
export const PasswordSchema = z
  .string({ error: "Use at least 12 characters." })
  .min(12, "Use at least 12 characters.")
  .max(200);

/** A staff user's name, as they choose it on joining or a manager gives it on inviting. */
export const StaffNameSchema = z
  .string({ error: "Enter a name." })
  .trim()
  .min(1, "Enter a name.")
  .max(100, "At most 100 characters.");

/** /login's fields (remix-auth's form strategy parses them strictly: auth.server.ts). */
export const LoginFormSchema = z.object({
  email: EmailSchema,
  password: z.string({ error: "Enter your password." }).min(1, "Enter your password.").max(200),
});

export const ForgotPasswordSchema = z.object({ email: EmailSchema });
export const ResetPasswordSchema = z.object({ password: PasswordSchema });
export const AcceptInvitationSchema = z.object({ name: StaffNameSchema, password: PasswordSchema });

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
