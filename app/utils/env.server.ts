// Every environment variable the server reads, validated once at start.
// .env.example documents each one.
import proxyaddr from "proxy-addr";
import { z } from "zod";
import { DEFAULT_DATABASE_URL, databaseProvider } from "../storage/database-url";
import { ConfigError } from "./config-error";
import { checkOidcFields, OIDC_FIELDS, oidcConfigOf } from "./oidc-env";
import { secretWeakness } from "./secret-strength";

export { PLACEHOLDER_SECRETS } from "./secret-strength";

function checkSecret(value: string, ctx: z.RefinementCtx) {
  const weakness = secretWeakness(value);
  if (weakness) ctx.addIssue({ code: "custom", message: weakness });
}

const optionalSecret = z
  .string()
  .optional()
  .transform((value) => (value && value.trim() !== "" ? value : undefined))
  .superRefine((value, ctx) => {
    if (value !== undefined) checkSecret(value, ctx);
  });

// A URL, not a secret: a local relay (smtp://127.0.0.1:25) has no password at all. The
// message never repeats the value, which may hold one.
const smtpUrl = z
  .string()
  .optional()
  .transform((value) => (value && value.trim() !== "" ? value.trim() : undefined))
  .superRefine((value, ctx) => {
    if (value === undefined) return;
    let url: URL | null = null;
    try {
      url = new URL(value);
    } catch {
      // reported below
    }
    if (!url || !["smtp:", "smtps:"].includes(url.protocol) || url.hostname === "") {
      ctx.addIssue({
        code: "custom",
        message: "must be an smtp:// or smtps:// URL, such as smtps://user:password@mail.example.com:465",
      });
    }
  });

// The mailbox the IMAP intake reads (decision 070): imaps://user:password@host:993/INBOX or
// imap:// (STARTTLS whenever offered). As for SMTP_URL, a message never repeats the value.
const imapUrl = z
  .string()
  .optional()
  .transform((value) => (value && value.trim() !== "" ? value.trim() : undefined))
  .superRefine((value, ctx) => {
    if (value === undefined) return;
    let url: URL | null = null;
    try {
      url = new URL(value);
    } catch {
      // reported below
    }
    if (!url || !["imap:", "imaps:"].includes(url.protocol) || url.hostname === "" || !url.username || !url.password) {
      ctx.addIssue({
        code: "custom",
        message:
          "must be an imap:// or imaps:// URL with a user and password, such as imaps://user:password@mail.example.com:993/INBOX",
      });
    }
  });

const mailboxName = (fallback: string) =>
  z
    .string()
    .trim()
    .max(200)
    .regex(/^[^\u0000-\u001f\u007f*%]+$/, "must be a folder name (no control characters, * or %)")
    .default(fallback);

/** The secrets that must each have a value of their own. */
const DISTINCT_SECRETS = ["SESSION_SECRET", "SUPPORT_API_KEY", "INBOUND_SECRET", "METRICS_TOKEN"] as const;

const flag = z
  .enum(["true", "false"])
  .default("false")
  .transform((value) => value === "true");

/** A positive number (fractions allowed, so that tests can use seconds-long timeouts). */
const positiveNumber = (fallback: number) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === "") return fallback;
      const parsed = Number(value);
      if (!Number.isFinite(parsed) || parsed <= 0) {
        ctx.addIssue({ code: "custom", message: "must be a number above 0" });
        return z.NEVER;
      }
      return parsed;
    });

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

/**
 * A retention period in days (decision 054): null keeps forever ("off" or 0); unset, the
 * fallback, which may itself be null (kept unless asked).
 */
const retentionDays = (fallback: number | null) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      const setting = value?.trim().toLowerCase();
      if (setting === undefined || setting === "") return fallback;
      if (setting === "off" || setting === "0") return null;
      const parsed = Number(setting);
      if (!Number.isInteger(parsed) || parsed < 1 || parsed > 36_500) {
        ctx.addIssue({
          code: "custom",
          message: "must be a whole number of days (1 to 36500), or 0 or off to keep forever",
        });
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
    // FULL: a 2xx means the lead is on disk, even through a power cut. NORMAL is faster
    // and loses nothing when the process dies, but an OS crash can lose the last commits.
    SQLITE_SYNCHRONOUS: z
      .string()
      .default("full")
      .transform((value) => value.trim().toLowerCase())
      .pipe(z.enum(["full", "normal"], { error: "must be full or normal" })),
    SESSION_SECRET: z.string({ error: "is required: at least 32 random characters" }).superRefine(checkSecret),
    SESSION_IDLE_HOURS: positiveNumber(12),
    SESSION_MAX_DAYS: positiveNumber(30),
    ALLOW_INSECURE_HTTP: flag,
    // Checked here so that a typo stops the start; server.js applies it (compileTrustProxy).
    TRUST_PROXY: z
      .string()
      .default("false")
      .superRefine((value, ctx) => {
        const setting = value.trim();
        if (/^(true|false|\d+)$/.test(setting)) return;
        try {
          proxyaddr.compile(
            setting
              .split(",")
              .map((entry) => entry.trim())
              .filter(Boolean),
          );
        } catch {
          ctx.addIssue({
            code: "custom",
            message: "must be true, false, a number of proxies, or a comma list of proxy addresses or CIDR ranges",
          });
        }
      }),
    SUPPORT_API_KEY: optionalSecret,
    INBOUND_SECRET: optionalSecret,
    SUPPORT_TICKET_PREFIX: z
      .string()
      .regex(/^[A-Za-z]{1,10}$/, "must be 1 to 10 letters")
      .default("SR")
      .transform((value) => value.toUpperCase()),
    SMTP_URL: smtpUrl,
    SUPPORT_FROM_EMAIL: z
      .string()
      .regex(/^[^\s@<>]+@[^\s@<>]+$/, "must be an email address")
      .default("support@localhost"),
    // The From display name; unset: the brand's name (settings/branding), else none.
    SUPPORT_FROM_NAME: z
      .string()
      .trim()
      .max(100)
      .regex(/^[^\u0000-\u001f\u007f]*$/, "must be one line of text")
      .optional(),
    // The domain of the per-ticket reply addresses (support+sr-1042.<token>@domain).
    SUPPORT_REPLY_DOMAIN: z
      .string()
      .regex(/^[A-Za-z0-9.-]+$/, "must be a domain name")
      .optional(),
    // The authserv-id of the server that receives the reply domain's mail (the first word of
    // the Authentication-Results header it writes); unset: that header is never believed.
    INBOUND_AUTHSERV_ID: z
      .string()
      .optional()
      .transform((value) => value?.trim().toLowerCase() || undefined)
      .pipe(
        z
          .string()
          .regex(/^[a-z0-9.-]{1,253}$/, "must be a host name such as mx.google.com")
          .optional(),
      ),
    // An inbound email that names no ticket opens a new one (decision 063); false: 422.
    INBOUND_NEW_TICKETS: flag,
    // The IMAP intake (decision 070): unset, no mailbox is read.
    IMAP_URL: imapUrl,
    // A poll this often when the server has no IDLE (and as a safety net when it has).
    IMAP_POLL_SECONDS: positiveNumber(60),
    // On the first connection, the mail of this many days back is filed.
    IMAP_BACKFILL_DAYS: integer(7),
    IMAP_PROCESSED_MAILBOX: mailboxName("Processed"),
    IMAP_FAILED_MAILBOX: mailboxName("Failed"),
    // How long an instance's hold on the mailbox lasts unless renewed (renewed every third of it).
    IMAP_LEASE_SECONDS: positiveNumber(60),
    SUBMIT_RATE_LIMIT_PER_MINUTE: integer(30),
    // The most the files of one submission may weigh together, in MB (decision 064).
    UPLOAD_MAX_TOTAL_MB: integer(50),
    // Each CAPTCHA provider's siteverify address (app/capture/captcha.server.ts): the
    // provider's own unless set, as tests and air-gapped installs do.
    CAPTCHA_VERIFY_URL_TURNSTILE: z.url().default("https://challenges.cloudflare.com/turnstile/v0/siteverify"),
    CAPTCHA_VERIFY_URL_HCAPTCHA: z.url().default("https://api.hcaptcha.com/siteverify"),
    CAPTCHA_VERIFY_URL_RECAPTCHA: z.url().default("https://www.google.com/recaptcha/api/siteverify"),
    SUPPORT_RATE_LIMIT_PER_HOUR: integer(20),
    SUPPORT_ACKS_PER_RECIPIENT_PER_DAY: integer(5),
    RATE_LIMIT_STORE: z.enum(["memory", "database"]).optional(),
    /** Autoresponses one address gets in a UTC day, from all forms together (decision 066). */
    AUTORESPONDER_MAX_PER_DAY: integer(3),
    OUTBOX_POLL_MS: integer(2000),
    // Staff notifications (app/notifications/notifications.server.ts): who hears of new support
    // requests and customer replies, and when each form's daily lead digest goes out.
    SUPPORT_NOTIFY_EMAILS: z
      .string()
      .default("")
      .transform((value, ctx) => {
        const list = value
          .split(",")
          .map((part) => part.trim().toLowerCase())
          .filter(Boolean);
        if (list.some((address) => !z.email().safeParse(address).success)) {
          ctx.addIssue({ code: "custom", message: "must be a comma list of email addresses" });
          return z.NEVER;
        }
        return [...new Set(list)];
      }),
    TIME_ZONE: z
      .string()
      .default("UTC")
      .refine((zone) => {
        try {
          new Intl.DateTimeFormat("en", { timeZone: zone });
          return true;
        } catch {
          return false;
        }
      }, "must be an IANA time zone such as Europe/Berlin"),
    DIGEST_HOUR: integer(8).refine((hour) => hour <= 23, "must be an hour from 0 to 23"),
    // How long finished records are kept (decision 054, docs/operations.md "Retention").
    RETENTION_WEBHOOK_DAYS: retentionDays(30),
    RETENTION_EMAIL_DAYS: retentionDays(30),
    RETENTION_AUDIT_DAYS: retentionDays(365),
    RETENTION_ATTACHMENT_DAYS: retentionDays(null),
    // Partial leads never completed (decision 060): the name issue 31 gave it.
    PARTIAL_LEAD_RETENTION_DAYS: retentionDays(30),
    // Double opt-in leads never confirmed (decision 067): at least the 7 days their link works,
    // so that none is deleted while its visitor can still confirm it.
    UNCONFIRMED_LEAD_DAYS: retentionDays(30).refine(
      (days) => days === null || days >= 7,
      "must be at least 7 (a confirmation link works for 7 days), or 0 or off to keep forever",
    ),
    // Outbound webhooks (docs/api/webhooks.md): http:// endpoints and private destinations
    // are refused unless these are set (tests, private deployments).
    WEBHOOK_ALLOW_HTTP: flag,
    WEBHOOK_ALLOW_PRIVATE: flag,
    // Seconds between a failed attempt and the next; the delivery fails after the last.
    WEBHOOK_RETRY_DELAYS: z
      .string()
      .default("5,300,1800,7200,18000,36000,36000")
      .transform((value, ctx) => {
        const delays = value.split(",").map((part) => Number(part.trim()));
        if (delays.length === 0 || delays.some((delay) => !Number.isFinite(delay) || delay < 0)) {
          ctx.addIssue({ code: "custom", message: "must be a comma list of seconds, such as 5,300,1800" });
          return z.NEVER;
        }
        return delays;
      }),
    WEBHOOK_TIMEOUT_MS: integer(10_000),
    WEBHOOK_POLL_MS: integer(1000),
    // Form views are counted in memory and added to the database this often (decision 029).
    FORM_VIEWS_FLUSH_MS: integer(5000),
    // A visitor (address and User-Agent) counts one view of a form this often, and an address
    // at most FORM_VIEWS_PER_ADDRESS visitors of a form in that time, 0: no cap (decision 039).
    FORM_VIEW_DEDUPE_SECONDS: positiveNumber(1800),
    FORM_VIEWS_PER_ADDRESS: integer(20),
    // An endpoint whose every attempt has failed for this long is disabled (5 days).
    WEBHOOK_DISABLE_AFTER_HOURS: positiveNumber(120),
    LOG_REQUESTS: flag,
    // Bearer token of GET /metrics (Prometheus); unset: /metrics answers 404 (decision 052).
    METRICS_TOKEN: optionalSecret,
    // Read by app/utils/log.server.ts, before this runs: checked here so that a typo stops the start.
    LOG_FORMAT: z
      .string()
      .default("text")
      .transform((value) => value.trim().toLowerCase())
      .pipe(z.enum(["text", "json"], { error: "must be text or json" })),
    // Single sign-on with OpenID Connect (decision 062): all unset, no button on /login.
    ...OIDC_FIELDS,
  })
  .superRefine((env, ctx) => {
    checkOidcFields(env, ctx);
    // One leaked secret must not open a second door.
    DISTINCT_SECRETS.forEach((name, index) => {
      const same = DISTINCT_SECRETS.slice(0, index).find((earlier) => env[earlier] && env[earlier] === env[name]);
      if (same) {
        ctx.addIssue({
          code: "custom",
          path: [name],
          message: `must differ from ${same}: give each secret its own value`,
        });
      }
    });
    // Session cookies and passwords must not cross the internet in clear text.
    if (env.NODE_ENV === "production" && !env.APP_URL?.startsWith("https://") && !env.ALLOW_INSECURE_HTTP) {
      ctx.addIssue({
        code: "custom",
        path: ["APP_URL"],
        message:
          "must be the service's https:// address in production (set ALLOW_INSECURE_HTTP=true only for a local trial on http://localhost)",
      });
    }
  })
  .transform((env) => {
    const provider = databaseProvider(env.DATABASE_URL);
    const appUrl = (env.APP_URL ?? `http://localhost:${env.PORT}`).replace(/\/$/, "");
    return {
      ...env,
      APP_URL: appUrl,
      DATABASE_PROVIDER: provider,
      // Several instances share one PostgreSQL, so their counters must too; the
      // embedded SQLite setup is one process, where memory is exact and cheaper.
      RATE_LIMIT_STORE: env.RATE_LIMIT_STORE ?? (provider === "postgresql" ? "database" : "memory"),
      // On https the session cookie is Secure and named __Host-session (bound to this host).
      COOKIE_SECURE: appUrl.startsWith("https://"),
      OIDC: oidcConfigOf(env),
    };
  });

export type Env = z.output<typeof EnvSchema>;

export function parseEnv(source: Record<string, string | undefined>): Env {
  // An empty value (`SMTP_URL=` in .env) means "not set".
  const present = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== ""));
  const result = EnvSchema.safeParse(present);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join(".") || "(environment)"}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration (see .env.example): ${problems.join("; ")}`);
  }
  return result.data;
}

export const env = parseEnv(process.env);
