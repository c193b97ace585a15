// Every environment variable the server reads, validated once at start.
// .env.example documents each one.
import { z } from "zod";
import { DEFAULT_DATABASE_URL, databaseProvider } from "./database-url";

const optionalSecret = z
  .string()
  .optional()
  .transform((value) => (value && value.trim() !== "" ? value : undefined));

const integer = (fallback: number) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === "") return fallback;
      const parsed = Number(value);
      if (!Number.isInteger(parsed) || parsed < 0) {
        ctx.addIssue({ code: "custom", message: "must be a whole number, 0 or more" });
        return z.NEVER;
      }
      return parsed;
    });

const EnvSchema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
    PORT: integer(3000),
    HOST: z.string().default("0.0.0.0"),
    APP_URL: z.url().optional(),
    DATABASE_URL: z.string().min(1).default(DEFAULT_DATABASE_URL),
    DATABASE_POOL_SIZE: integer(10),
    SESSION_SECRET: z
      .string({ error: "is required: at least 32 random characters" })
      .min(32, "must be at least 32 characters"),
    TRUST_PROXY: z
      .enum(["true", "false"])
      .default("false")
      .transform((value) => value === "true"),
    SUPPORT_API_KEY: optionalSecret,
    INBOUND_SECRET: optionalSecret,
    SUPPORT_TICKET_PREFIX: z
      .string()
      .regex(/^[A-Za-z]{1,10}$/, "must be 1 to 10 letters")
      .default("SR")
      .transform((value) => value.toUpperCase()),
    SMTP_URL: optionalSecret,
    SUPPORT_FROM_EMAIL: z
      .string()
      .regex(/^[^\s@<>]+@[^\s@<>]+$/, "must be an email address")
      .default("support@localhost"),
    SUBMIT_RATE_LIMIT_PER_MINUTE: integer(30),
    SUPPORT_RATE_LIMIT_PER_HOUR: integer(20),
    RATE_LIMIT_STORE: z.enum(["memory", "database"]).optional(),
    OUTBOX_POLL_MS: integer(2000),
    LOG_REQUESTS: z
      .enum(["true", "false"])
      .default("false")
      .transform((value) => value === "true"),
  })
  .transform((env) => {
    const provider = databaseProvider(env.DATABASE_URL);
    const appUrl = (env.APP_URL ?? `http://localhost:${env.PORT}`).replace(/\/$/, "");
    const local = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/.test(appUrl);
    return {
      ...env,
      APP_URL: appUrl,
      DATABASE_PROVIDER: provider,
      // Several instances share one PostgreSQL, so their counters must too; the
      // embedded SQLite setup is one process, where memory is exact and cheaper.
      RATE_LIMIT_STORE: env.RATE_LIMIT_STORE ?? (provider === "postgresql" ? "database" : "memory"),
      // Secure cookies in production, except for the plain-http local quick start.
      COOKIE_SECURE: env.NODE_ENV === "production" && !local,
    };
  });

export type Env = z.output<typeof EnvSchema>;

export function parseEnv(source: Record<string, string | undefined>): Env {
  // An empty value (`SMTP_URL=` in .env) means "not set".
  const present = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== ""));
  const result = EnvSchema.safeParse(present);
  if (!result.success) {
    const lines = result.error.issues.map(
      (issue) => `  - ${issue.path.join(".") || "(environment)"}: ${issue.message}`,
    );
    throw new Error(
      `Invalid environment (see .env.example):\n${lines.join("\n")}`,
    );
  }
  return result.data;
}

export const env = parseEnv(process.env);
