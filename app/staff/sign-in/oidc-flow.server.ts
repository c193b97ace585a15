// Single sign-on's OpenID Connect flow (decision 062): the authorization-code flow with PKCE
// (S256), state and nonce, through openid-client. What the browser must bring back (state,
// nonce, the PKCE verifier, where to go next) rides in a signed HttpOnly cookie for 10
// minutes, as the two-factor step's pending sign-in does; nothing is kept on the server.
import { createCookie } from "@remix-run/node";
import * as oidc from "openid-client";
import { z } from "zod";
import { env } from "~/utils/env.server";
import { log } from "~/utils/log.server";
import { secretsMatch } from "../auth.server";

const FLOW_SECONDS = 10 * 60;

const flowCookie = createCookie(env.COOKIE_SECURE ? "__Host-oidc" : "__oidc", {
  httpOnly: true,
  // Lax: the provider sends the browser back with a top-level GET, which carries it.
  sameSite: "lax",
  secure: env.COOKIE_SECURE,
  path: "/",
  maxAge: FLOW_SECONDS,
  secrets: [env.SESSION_SECRET],
});

const FlowSchema = z.object({
  state: z.string().max(200),
  nonce: z.string().max(200),
  verifier: z.string().max(200),
  redirectTo: z.string().max(2000),
  expiresAt: z.number(),
});

/** Why a sign-in through the provider was refused: `reason` for the audit log, `message` for the person. */
export class SsoRefusal extends Error {
  constructor(
    readonly reason: string,
    message: string,
    readonly status: number,
    /** For the audit log only (an email tried, the provider's error code). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** The path the provider sends the browser back to; APP_URL + this is the redirect URI to register. */
export const CALLBACK_PATH = "/auth/oidc/callback";

const redirectUri = () => `${env.APP_URL}${CALLBACK_PATH}`;

let discovered: Promise<oidc.Configuration> | null = null;

/** The provider's metadata, fetched once (again after a failure). */
function configuration(): Promise<oidc.Configuration> {
  const config = env.OIDC;
  if (!config) throw new SsoRefusal("not_configured", "Single sign-on is not set up here.", 404);
  discovered ??= oidc
    .discovery(new URL(config.issuer), config.clientId, config.clientSecret, undefined, { timeout: 10 })
    .catch((error: unknown) => {
      discovered = null;
      log.error(`single sign-on: the provider ${config.issuer} could not be read`, error);
      throw new SsoRefusal(
        "provider_unreachable",
        "The sign-in provider cannot be reached right now. Try again in a minute, or sign in with your password if you have one.",
        502,
        { error: error instanceof Error ? error.message.slice(0, 200) : "unknown" },
      );
    });
  return discovered;
}

/** Where to send the browser to sign in at the provider, and the cookie that remembers the flow. */
export async function startSsoFlow(redirectTo: string): Promise<{ url: string; cookie: string }> {
  const config = await configuration();
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri(),
    scope: "openid email profile",
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
    nonce,
  });
  const cookie = await flowCookie.serialize({
    state,
    nonce,
    verifier,
    redirectTo,
    expiresAt: Date.now() + FLOW_SECONDS * 1000,
  });
  return { url: url.href, cookie };
}

/** The Set-Cookie value that ends the flow (each callback ends it, signed in or not). */
export function endSsoFlow(): Promise<string> {
  return flowCookie.serialize("", { maxAge: 0 });
}

export type SsoClaims = { subject: string; email: string | null; emailVerified: boolean; name: string | null };

/**
 * Finishes the flow the request's cookie remembers: checks the state, exchanges the code
 * (with the PKCE verifier and the client's secret) and checks the ID token (signature,
 * issuer, audience, expiry, nonce). The person's claims, and where they wanted to go.
 */
export async function finishSsoFlow(request: Request): Promise<{ claims: SsoClaims; redirectTo: string }> {
  const config = await configuration();
  const flow = FlowSchema.safeParse(await flowCookie.parse(request.headers.get("Cookie")));
  if (!flow.success || flow.data.expiresAt < Date.now()) {
    throw new SsoRefusal("flow_expired", "This sign-in took too long or was not started here. Start again.", 400);
  }
  const { search } = new URL(request.url);
  // The address the provider sent the browser to, as registered (not as a proxy rewrote it).
  const callbackUrl = new URL(`${CALLBACK_PATH}${search}`, env.APP_URL);
  const params = callbackUrl.searchParams;
  const providerError = params.get("error");
  if (providerError) {
    throw new SsoRefusal("provider_error", "The sign-in provider did not sign you in.", 403, {
      error: providerError.slice(0, 100),
    });
  }
  if (!secretsMatch(params.get("state") ?? "", flow.data.state)) {
    throw new SsoRefusal(
      "state_mismatch",
      "This sign-in answer does not belong to the sign-in started here. Start again.",
      400,
    );
  }
  let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
  try {
    tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: flow.data.verifier,
      expectedState: flow.data.state,
      expectedNonce: flow.data.nonce,
      idTokenExpected: true,
    });
  } catch (error) {
    const details = whatWentWrong(error);
    log.warn("single sign-on: the sign-in answer was refused", details);
    throw new SsoRefusal("token_rejected", "The sign-in could not be completed. Start again.", 403, details);
  }
  return { claims: claimsOf(await withUserInfo(config, tokens)), redirectTo: flow.data.redirectTo };
}

/**
 * The ID token's claims, with the UserInfo endpoint's when the token carries no email (a
 * provider that follows the specification to the letter puts scope claims there only). The
 * UserInfo answer must name the ID token's subject.
 */
async function withUserInfo(
  config: oidc.Configuration,
  tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>,
): Promise<Record<string, unknown> | undefined> {
  const idToken = tokens.claims();
  if (!idToken || idToken.email !== undefined || !tokens.access_token) return idToken;
  try {
    const userInfo = await oidc.fetchUserInfo(config, tokens.access_token, idToken.sub);
    return { ...userInfo, ...idToken, email: userInfo.email, email_verified: userInfo.email_verified };
  } catch (error) {
    const details = whatWentWrong(error);
    log.warn("single sign-on: the provider's UserInfo answer was refused", details);
    throw new SsoRefusal("token_rejected", "The sign-in could not be completed. Start again.", 403, details);
  }
}

/**
 * What openid-client refused, for the log and the audit entry: its message and code, the
 * provider's error (invalid_grant for a code used twice) or the claim that failed (aud for an
 * ID token issued to another client). Never a token.
 */
function whatWentWrong(error: unknown): Record<string, string> {
  if (!(error instanceof Error)) return { error: "unknown" };
  // openid-client wraps oauth4webapi's error, whose own cause names the claim.
  const inner = error.cause instanceof Error ? error.cause : error;
  const fields = error as Error & { code?: unknown; error?: unknown };
  const claim = (inner.cause as { claim?: unknown } | undefined)?.claim;
  return {
    error: inner.message.slice(0, 200),
    ...(typeof fields.code === "string" ? { code: fields.code } : {}),
    ...(typeof fields.error === "string" ? { providerError: fields.error.slice(0, 100) } : {}),
    ...(typeof claim === "string" ? { claim } : {}),
  };
}

/**
 * The claims that matter. An email is verified when the provider says `email_verified: true`;
 * Microsoft Entra ID never sends that claim for work accounts, and says instead, through the
 * optional claim `xms_edov: true`, that the tenant owns the address's domain (decision 062).
 */
function claimsOf(claims: Record<string, unknown> | undefined): SsoClaims {
  const email = typeof claims?.email === "string" ? claims.email.trim().toLowerCase().slice(0, 254) : null;
  const verified =
    claims?.email_verified === true || (claims?.email_verified === undefined && claims?.xms_edov === true);
  const name = typeof claims?.name === "string" ? claims.name.trim().slice(0, 100) || null : null;
  return { subject: String(claims?.sub ?? "").slice(0, 255), email, emailVerified: verified, name };
}
