// Whether an inbound email really comes from the ticket's customer. A From header is
// whatever the sender typed, and references are sequential, so neither proves anything.
// What a stranger cannot guess or forge (docs/api/support.md, "Who sent it"):
// - the per-ticket reply address we send from: support+<reference>.<token>@<domain>,
//   the token an HMAC of the reference under a key derived from SESSION_SECRET;
// - In-Reply-To / References naming a Message-ID we generated for that ticket;
// - the provider's verdict: DMARC pass, or SPF / DKIM passing for the From domain.
import { createHmac, timingSafeEqual } from "node:crypto";
import addressparser from "nodemailer/lib/addressparser";
import { env } from "~/utils/env.server";

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

/** Bare addresses of a list of address headers or values ("A <a@x>, b@y"). */
export function addressesIn(values: Array<string | undefined | null>): string[] {
  const found: string[] = [];
  for (const value of values) {
    if (!value) continue;
    for (const entry of addressparser(value.slice(0, 10_000), { flatten: true })) {
      if (entry.address?.includes("@")) found.push(entry.address.toLowerCase());
    }
  }
  return found;
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

/** Message-IDs in In-Reply-To / References values, without angle brackets, lower-cased. */
export function messageIdsIn(values: Array<string | undefined | null>): string[] {
  const ids: string[] = [];
  for (const value of values) {
    if (!value) continue;
    for (const match of value.slice(0, 20_000).matchAll(/<?([^<>\s,]+@[^<>\s,]+)>?/g)) ids.push(match[1].toLowerCase());
  }
  return ids;
}

export const bareMessageId = (id: string) => id.replace(/^<|>$/g, "").toLowerCase();

/** What the receiving provider said about the sender's domain. */
export type AuthEvidence = {
  /** Authentication-Results header values (RFC 8601), the receiving server's first. */
  authenticationResults: string[];
  /** An SPF verdict without a header ("pass", "fail", ...), with the envelope sender it was for. */
  spf?: { result: string; envelopeFrom?: string };
  /** DKIM verdicts as domain -> result (SendGrid's `dkim` field, Mailgun's check result). */
  dkim?: Array<{ domain?: string; result: string }>;
};

function domainOf(address: string | undefined): string | undefined {
  return address?.split("@").pop()?.toLowerCase().replace(/\.$/, "");
}

/** Relaxed alignment (RFC 7489): the same domain, or one a subdomain of the other. */
function aligned(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return false;
  return a === b || a.endsWith(`.${b}`) || b.endsWith(`.${a}`);
}

/** DMARC pass, or SPF / DKIM passing for a domain aligned with the From address. */
export function providerVouchesFor(from: string, evidence: AuthEvidence): boolean {
  const fromDomain = domainOf(from);
  for (const header of evidence.authenticationResults.slice(0, 1)) {
    const lower = header.toLowerCase();
    if (/\bdmarc=pass\b/.test(lower)) {
      const headerFrom = /\bdmarc=pass\b[^;]*?header\.from=([^\s;]+)/.exec(lower)?.[1];
      if (!headerFrom || aligned(headerFrom, fromDomain)) return true;
    }
    const spf = /\bspf=pass\b[^;]*?smtp\.mailfrom=([^\s;]+)/.exec(lower)?.[1];
    if (spf && aligned(domainOf(spf), fromDomain)) return true;
    for (const match of lower.matchAll(/\bdkim=pass\b[^;]*?header\.(?:d|i)=@?([^\s;]+)/g)) {
      if (aligned(domainOf(match[1]) ?? match[1], fromDomain)) return true;
    }
  }
  if (evidence.spf?.result.toLowerCase() === "pass" && aligned(domainOf(evidence.spf.envelopeFrom), fromDomain)) return true;
  return (evidence.dkim ?? []).some((entry) => entry.result.toLowerCase() === "pass" && aligned(entry.domain, fromDomain));
}
