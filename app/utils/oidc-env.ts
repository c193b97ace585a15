// Single sign-on's variables (decision 062, docs/api/auth.md#single-sign-on), checked with the
// rest of the environment in env.server.ts: a typo stops the start with one clear line.
import { z } from "zod";

const optionalText = z
  .string()
  .optional()
  .transform((value) => (value && value.trim() !== "" ? value.trim() : undefined));

/** The provider's issuer: https:// only, so that its keys and tokens cannot be swapped on the way. */
const issuer = optionalText.superRefine((value, ctx) => {
  if (value === undefined) return;
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    // reported below
  }
  if (!url || url.protocol !== "https:" || url.search || url.hash) {
    ctx.addIssue({
      code: "custom",
      message: "must be the provider's https:// issuer URL, such as https://accounts.google.com",
    });
  }
});

const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

const allowedDomains = z
  .string()
  .default("")
  .transform((value, ctx) => {
    const list = value
      .split(",")
      .map((part) => part.trim().toLowerCase().replace(/^@/, ""))
      .filter(Boolean);
    if (list.some((domain) => !DOMAIN.test(domain))) {
      ctx.addIssue({ code: "custom", message: "must be a comma list of email domains, such as example.com" });
      return z.NEVER;
    }
    return [...new Set(list)];
  });

export const OIDC_FIELDS = {
  OIDC_ISSUER: issuer,
  OIDC_CLIENT_ID: optionalText.pipe(z.string().max(500, "must be at most 500 characters").optional()),
  OIDC_CLIENT_SECRET: optionalText,
  // The button's label on /login: "Sign in with <OIDC_NAME>".
  OIDC_NAME: optionalText.pipe(
    z
      .string()
      .max(60, "must be at most 60 characters")
      .regex(/^[^\u0000-\u001f\u007f]*$/, "must be one line of text")
      .optional(),
  ),
  OIDC_ALLOWED_DOMAINS: allowedDomains,
};

type OidcFields = {
  OIDC_ISSUER?: string;
  OIDC_CLIENT_ID?: string;
  OIDC_CLIENT_SECRET?: string;
  OIDC_NAME?: string;
  OIDC_ALLOWED_DOMAINS: string[];
};

export type OidcConfig = {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The button's label. */
  name: string;
  /** Email domains whose unknown addresses become agents at their first sign-in. */
  allowedDomains: string[];
} | null;

const NEEDED = ["OIDC_ISSUER", "OIDC_CLIENT_ID", "OIDC_CLIENT_SECRET"] as const;

/** Half a configuration is a mistake: the three that make a client come together or not at all. */
export function checkOidcFields(env: OidcFields, ctx: z.RefinementCtx): void {
  const given = NEEDED.filter((name) => env[name] !== undefined);
  if (given.length === 0 || given.length === NEEDED.length) return;
  for (const name of NEEDED.filter((needed) => env[needed] === undefined)) {
    ctx.addIssue({
      code: "custom",
      path: [name],
      message: `is required with ${given.join(" and ")}: single sign-on needs OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET`,
    });
  }
}

/** The single sign-on client, or null when it is not configured. */
export function oidcConfigOf(env: OidcFields): OidcConfig {
  if (!env.OIDC_ISSUER || !env.OIDC_CLIENT_ID || !env.OIDC_CLIENT_SECRET) return null;
  return {
    issuer: env.OIDC_ISSUER,
    clientId: env.OIDC_CLIENT_ID,
    clientSecret: env.OIDC_CLIENT_SECRET,
    name: env.OIDC_NAME ?? "single sign-on",
    allowedDomains: env.OIDC_ALLOWED_DOMAINS,
  };
}
