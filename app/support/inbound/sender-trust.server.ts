// Whether an inbound email really comes from the ticket's customer. A From header is
// whatever the sender typed, and references are sequential, so neither proves anything.
// What a stranger cannot guess or forge (docs/api/support.md, "Who sent it"):
// - the per-ticket reply address we send from: support+<reference>.<token>@<domain>,
//   the token an HMAC of the reference under a key derived from SESSION_SECRET;
// - In-Reply-To / References naming a Message-ID we generated for that ticket;
// - the provider's verdict, read only where the provider writes it: DMARC pass, or SPF /
//   DKIM passing for the From domain (docs/decisions/038-provider-verdicts-and-fullest-text.md).
import { createHmac, timingSafeEqual } from "node:crypto";
import { env } from "~/utils/env.server";
import type { AuthEvidence } from "./inbound-types";

const TOKEN_LENGTH = 16;

// A key of its own, so a reply token says nothing about any other use of the secret.
const tokenKey = createHmac("sha256", env.SESSION_SECRET).update("support reply address v1").digest();

export function replyToken(reference: string): string {
  return createHmac("sha256", tokenKey).update(reference.toUpperCase()).digest("hex").slice(0, TOKEN_LENGTH);
}

export function replyDomain(): string {
  return env.SUPPORT_REPLY_DOMAIN ?? env.SUPPORT_FROM_EMAIL.split("@")[1] ?? "localhost";
}

/** The address customers reply to for this ticket, e.g. support+sr-1042.3f9c…@example.com. */
export function replyAddress(reference: string): string {
  const [local] = env.SUPPORT_FROM_EMAIL.split("@");
  return `${local}+${reference.toLowerCase()}.${replyToken(reference)}@${replyDomain()}`;
}

/** Whether one of the recipients is this ticket's reply address with a valid token. */
export function carriesReplyToken(reference: string, recipients: string[]): boolean {
  const expected = Buffer.from(replyToken(reference));
  for (const recipient of recipients) {
    const match = /\+([a-z]{1,10}-\d{1,9})\.([0-9a-f]+)@/i.exec(recipient);
    if (!match || match[1].toUpperCase() !== reference.toUpperCase()) continue;
    const given = Buffer.from(match[2].toLowerCase());
    if (given.length === expected.length && timingSafeEqual(given, expected)) return true;
  }
  return false;
}

/**
 * The ticket a reply address names, when its token is valid: support+sr-1042.<token>@….
 * A reply whose subject lost the reference still reaches its ticket this way.
 */
export function referenceInReplyAddress(recipients: string[]): string | null {
  for (const recipient of recipients) {
    const reference = /\+([a-z]{1,10}-\d{1,9})\.[0-9a-f]+@/i.exec(recipient)?.[1]?.toUpperCase();
    if (reference && carriesReplyToken(reference, [recipient])) return reference;
  }
  return null;
}

export const bareMessageId = (id: string) => id.replace(/^<|>$/g, "").toLowerCase();

function domainOf(address: string | undefined): string | undefined {
  return address?.split("@").pop()?.toLowerCase().replace(/\.$/, "");
}

/** Relaxed alignment (RFC 7489): the same domain, or one a subdomain of the other. */
function aligned(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return false;
  return a === b || a.endsWith(`.${b}`) || b.endsWith(`.${a}`);
}

/**
 * The receiving server's Authentication-Results, or null: only a header whose authserv-id
 * (RFC 8601, its first word) is INBOUND_AUTHSERV_ID was written by the server that took
 * the mail in; anyone can write one under another name, and one is not believed at all
 * while that is unset.
 */
function trustedResults(header: string | undefined): string | null {
  if (!header || !env.INBOUND_AUTHSERV_ID) return null;
  const lower = header.toLowerCase();
  const authservId = /^\s*([^\s;]+)/.exec(lower)?.[1];
  return authservId === env.INBOUND_AUTHSERV_ID ? lower : null;
}

function resultsVouch(results: string, fromDomain: string | undefined): boolean {
  // DMARC itself checks alignment, but only for the domain it names: it must be the From's.
  for (const match of results.matchAll(/\bdmarc=pass\b[^;]*?header\.from=([^\s;]+)/g)) {
    if (match[1].replace(/\.$/, "") === fromDomain) return true;
  }
  const spf = /\bspf=pass\b[^;]*?smtp\.mailfrom=([^\s;]+)/.exec(results)?.[1];
  if (spf && aligned(domainOf(spf), fromDomain)) return true;
  for (const match of results.matchAll(/\bdkim=pass\b[^;]*?header\.(?:d|i)=@?([^\s;]+)/g)) {
    if (aligned(domainOf(match[1]) ?? match[1], fromDomain)) return true;
  }
  return false;
}

/**
 * The provider's word (only from where it writes it, see AuthEvidence): DMARC pass for the
 * From domain, or SPF / DKIM passing for a domain aligned with it.
 */
export function providerVouchesFor(from: string, evidence: AuthEvidence): boolean {
  const fromDomain = domainOf(from);
  const results = trustedResults(evidence.authenticationResults);
  if (results && resultsVouch(results, fromDomain)) return true;
  if (evidence.spf?.result.toLowerCase() === "pass" && aligned(domainOf(evidence.spf.envelopeFrom), fromDomain))
    return true;
  return (evidence.dkim ?? []).some(
    (entry) => entry.result.toLowerCase() === "pass" && aligned(entry.domain?.toLowerCase(), fromDomain),
  );
}
