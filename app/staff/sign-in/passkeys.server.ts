// Passkeys (WebAuthn) with @simplewebauthn/server (docs/decisions/068-passkeys.md,
// docs/api/auth.md#passkeys). The relying party is APP_URL: its host is the RP ID and its
// origin the only origin accepted. A challenge lives in PasskeyChallenge for 5 minutes and is
// deleted by the verification that uses it, so none is accepted twice (a replayed answer finds
// it gone, on every instance). A registration's challenge is bound to its user.
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  type RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { z } from "zod";
import { db } from "~/storage/db.server";
import { sessionUserOf, sessionUserSelect } from "~/storage/session-store.server";
import { DomainError, invalidFields, zodDetails } from "~/utils/domain-error";
import { env } from "~/utils/env.server";
import { log } from "~/utils/log.server";
import { consumeOrFail, createRateLimiter } from "~/utils/rate-limit.server";
import { recordAudit } from "../../audit/audit.server";
import { refuseSignInUnderSso } from "./security-policy.server";
import type { SessionUser } from "../policy";

const CHALLENGE_MS = 5 * 60 * 1000;
const MAX_PASSKEYS = 20;
const RP_NAME = "Lead Capture";

/** Options asked for per address: each makes a challenge row, so they are bounded. */
const optionRequests = createRateLimiter({ keyPrefix: "passkey-options", points: 30, durationSeconds: 60 });
/** Refused passkey sign-ins per address, as wrong passwords are limited. */
const refusedSignIns = createRateLimiter({ keyPrefix: "passkey-refused", points: 10, durationSeconds: 15 * 60 });
const TOO_MANY_OPTIONS = "Too many passkey requests from this address. Try again in a minute.";
const TOO_MANY_REFUSALS = "Too many refused passkey sign-ins. Try again later.";

/** The relying party, from APP_URL: the RP ID is its host name, and only its origin is accepted. */
export function relyingParty(): { rpID: string; origin: string } {
  const url = new URL(env.APP_URL);
  return { rpID: url.hostname, origin: url.origin };
}

/** A refused ceremony: `path` names the part of the answer at fault, `message` why. */
export class PasskeyRefusedError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

const Base64Url = z
  .string()
  .min(1)
  .max(16_384)
  .regex(/^[A-Za-z0-9_-]+={0,2}$/, "Expected base64url text.");

/** The browser's answer as @simplewebauthn/browser sends it; the library checks the rest. */
const CredentialSchema = z.object({
  id: Base64Url.max(1024),
  rawId: Base64Url.max(1024),
  type: z.literal("public-key"),
  response: z.looseObject({ clientDataJSON: Base64Url }),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.enum(["platform", "cross-platform"]).optional(),
});

const PasskeyNameSchema = z
  .string()
  .trim()
  .min(1, "Name the passkey (for example the device it lives on).")
  .max(60, "Keep the name under 60 characters.");

const RegistrationBodySchema = z.strictObject({
  name: PasskeyNameSchema,
  response: CredentialSchema,
});

const SignInBodySchema = z.strictObject({
  response: CredentialSchema,
  redirectTo: z.string().max(2000).optional(),
  timeZone: z.string().max(100).optional(),
});

type Credential = z.infer<typeof CredentialSchema>;

/** The challenge the client data names, or a refusal when it cannot be read. */
function challengeOf(credential: Credential): string {
  try {
    const clientData: unknown = JSON.parse(Buffer.from(credential.response.clientDataJSON, "base64url").toString());
    const challenge = (clientData as { challenge?: unknown } | null)?.challenge;
    if (typeof challenge === "string" && challenge.length > 0 && challenge.length <= 200) return challenge;
  } catch {
    // Answered below.
  }
  throw new PasskeyRefusedError("response.response.clientDataJSON", "The client data is not readable JSON.");
}

async function storeChallenge(challenge: string, purpose: "register" | "login", userId: string | null) {
  const now = new Date();
  await db.passkeyChallenge.deleteMany({ where: { expiresAt: { lt: now } } });
  await db.passkeyChallenge.create({
    data: { challenge, purpose, userId, expiresAt: new Date(now.getTime() + CHALLENGE_MS) },
    select: { challenge: true },
  });
}

/** Takes the challenge, once: deleted here, so a second verification (a replay) finds nothing. */
async function takeChallenge(challenge: string, purpose: "register" | "login", userId: string | null) {
  const taken = await db.passkeyChallenge.deleteMany({
    where: { challenge, purpose, userId, expiresAt: { gt: new Date() } },
  });
  if (taken.count !== 1) {
    throw new PasskeyRefusedError(
      "response.response.clientDataJSON",
      "The challenge is unknown, expired or already used: start again.",
    );
  }
}

const transportsOf = (stored: string) => (stored ? (stored.split(",") as AuthenticatorTransport[]) : []);

type Who = { id: string; email: string; name: string | null };

/** Options for navigator.credentials.create(): a discoverable credential with user verification. */
export async function passkeyRegistrationOptions(user: Who, ip: string) {
  await consumeOrFail(optionRequests, ip, TOO_MANY_OPTIONS);
  const existing = await db.passkey.findMany({
    where: { userId: user.id },
    select: { credentialId: true, transports: true },
    take: MAX_PASSKEYS,
  });
  if (existing.length >= MAX_PASSKEYS) {
    throw new DomainError("conflict", `You have ${MAX_PASSKEYS} passkeys: remove one before adding another.`);
  }
  const options = await generateRegistrationOptions({
    rpName: RP_NAME,
    rpID: relyingParty().rpID,
    userName: user.email,
    userDisplayName: user.name ?? user.email,
    // The user handle the authenticator keeps and hands back at sign-in.
    userID: new TextEncoder().encode(user.id),
    attestationType: "none",
    excludeCredentials: existing.map((key) => ({ id: key.credentialId, transports: transportsOf(key.transports) })),
    authenticatorSelection: { residentKey: "required", userVerification: "required" },
    timeout: CHALLENGE_MS,
  });
  await storeChallenge(options.challenge, "register", user.id);
  return options;
}

/** Verifies a new passkey's answer and keeps it under `name`; audited as `passkey.add`. */
export async function registerPasskey(user: Who, body: unknown, ip: string): Promise<PasskeyJson> {
  const parsed = RegistrationBodySchema.safeParse(body);
  if (!parsed.success) throw invalidFields(zodDetails(parsed.error));
  const { name, response } = parsed.data;
  const challenge = challengeOf(response);
  await takeChallenge(challenge, "register", user.id);
  const { rpID, origin } = relyingParty();
  const verification = await verifyOrRefuse(() =>
    verifyRegistrationResponse({
      response: response as unknown as RegistrationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: true,
    }),
  );
  if (!verification.verified) throw new PasskeyRefusedError("response", "The passkey could not be verified.");
  const { credential } = verification.registrationInfo;
  const taken = await db.passkey.findUnique({ where: { credentialId: credential.id }, select: { id: true } });
  if (taken) throw new PasskeyRefusedError("response.id", "This passkey is already registered.");
  const row = await db.passkey.create({
    data: {
      userId: user.id,
      credentialId: credential.id,
      publicKey: Buffer.from(credential.publicKey),
      counter: BigInt(credential.counter),
      transports: (credential.transports ?? []).join(","),
      name,
    },
    select: passkeySelect,
  });
  await recordAudit({ action: "passkey.add", actor: user, target: `user:${user.id}`, ip, details: { name } });
  return passkeyJson(row);
}

/** Options for navigator.credentials.get() with no credentials listed: the browser offers the discoverable ones. */
export async function passkeySignInOptions(ip: string) {
  await consumeOrFail(optionRequests, ip, TOO_MANY_OPTIONS);
  const options = await generateAuthenticationOptions({
    rpID: relyingParty().rpID,
    userVerification: "required",
    timeout: CHALLENGE_MS,
  });
  await storeChallenge(options.challenge, "login", null);
  return options;
}

/**
 * The user a passkey's answer signs in (not disabled), its counter moved on. A refusal is
 * audited and counted per address (429 past 10 in 15 minutes). Audited as `session.login`.
 */
export async function signInWithPasskey(body: unknown, ip: string): Promise<SessionUser> {
  await consumeOrFail(refusedSignIns, ip, TOO_MANY_REFUSALS);
  try {
    const parsed = SignInBodySchema.safeParse(body);
    if (!parsed.success) throw invalidFields(zodDetails(parsed.error));
    const user = await verifySignIn(parsed.data.response);
    await refusedSignIns.reward(ip, 1);
    await refuseSignInUnderSso(user, ip, "passkey");
    await recordAudit({
      action: "session.login",
      actor: user,
      target: `user:${user.id}`,
      ip,
      details: { method: "passkey" },
    });
    return user;
  } catch (error) {
    if (error instanceof PasskeyRefusedError) {
      await recordAudit({ action: "session.login_failed", actor: null, ip, details: { method: "passkey" } });
    } else {
      await refusedSignIns.reward(ip, 1);
    }
    throw error;
  }
}

async function verifySignIn(response: Credential): Promise<SessionUser> {
  const challenge = challengeOf(response);
  await takeChallenge(challenge, "login", null);
  const key = await db.passkey.findUnique({
    where: { credentialId: response.id },
    select: {
      id: true,
      credentialId: true,
      publicKey: true,
      counter: true,
      transports: true,
      user: { select: sessionUserSelect },
    },
  });
  if (!key || key.user.disabledAt) {
    throw new PasskeyRefusedError("response.id", "This passkey is not registered here.");
  }
  const userHandle = (response.response as { userHandle?: unknown }).userHandle;
  if (typeof userHandle === "string" && Buffer.from(userHandle, "base64url").toString() !== key.user.id) {
    throw new PasskeyRefusedError("response.response.userHandle", "The passkey answered for another user.");
  }
  const { rpID, origin } = relyingParty();
  const verification = await verifyOrRefuse(() =>
    verifyAuthenticationResponse({
      response: response as unknown as AuthenticationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: true,
      credential: {
        id: key.credentialId,
        publicKey: new Uint8Array(key.publicKey),
        counter: Number(key.counter),
        transports: transportsOf(key.transports),
      },
    }),
  );
  if (!verification.verified) throw new PasskeyRefusedError("response", "The passkey's signature is not right.");
  await takeCounter(key.id, key.counter, verification.authenticationInfo.newCounter);
  return sessionUserOf(key.user);
}

/**
 * Moves the counter on from the value just checked against (the library refused a counter
 * that did not grow, unless both are 0: synced passkeys keep none). Conditional, so two
 * answers racing with the same counter cannot both pass.
 */
async function takeCounter(id: string, was: bigint, now: number): Promise<void> {
  const moved = await db.passkey.updateMany({
    where: { id, counter: was },
    data: { counter: BigInt(now), lastUsedAt: new Date() },
  });
  if (moved.count !== 1) throw new PasskeyRefusedError("response", "The passkey was used twice at once.");
}

/** Runs a library check; what it throws (origin, RP ID, signature, counter) becomes a refusal. */
async function verifyOrRefuse<T>(check: () => Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/counter/i.test(message)) log.warn(`a passkey's counter went back: a cloned authenticator? (${message})`);
    throw new PasskeyRefusedError("response", message.slice(0, 300));
  }
}

const passkeySelect = { id: true, name: true, createdAt: true, lastUsedAt: true, transports: true } as const;
type PasskeyRow = { id: string; name: string; createdAt: Date; lastUsedAt: Date | null; transports: string };
export type PasskeyJson = { id: string; name: string; createdAt: string; lastUsedAt: string | null };

const passkeyJson = (row: PasskeyRow): PasskeyJson => ({
  id: row.id,
  name: row.name,
  createdAt: row.createdAt.toISOString(),
  lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
});

/** The user's passkeys, oldest first. */
export async function listPasskeys(userId: string): Promise<PasskeyJson[]> {
  const rows = await db.passkey.findMany({
    where: { userId },
    select: passkeySelect,
    orderBy: { createdAt: "asc" },
    take: MAX_PASSKEYS,
  });
  return rows.map(passkeyJson);
}

/** Removes one of the user's own passkeys (404 for anybody else's); audited as `passkey.remove`. */
export async function removePasskey(user: Who, passkeyId: string, ip: string): Promise<void> {
  const key = await db.passkey.findFirst({ where: { id: passkeyId, userId: user.id }, select: { name: true } });
  const removed = key ? await db.passkey.deleteMany({ where: { id: passkeyId, userId: user.id } }) : { count: 0 };
  if (!key || removed.count !== 1) throw new DomainError("not_found", "There is no such passkey of yours.");
  await recordAudit({
    action: "passkey.remove",
    actor: user,
    target: `user:${user.id}`,
    ip,
    details: { name: key.name },
  });
}
