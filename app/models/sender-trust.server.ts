// Whether an inbound email really comes from the ticket's customer. A From header is
// whatever the sender typed, and references are sequential, so neither proves anything.
// What a stranger cannot guess or forge (docs/api/support.md, "Who sent it"):
// - the per-ticket reply address we send from: support+<reference>.<token>@<domain>,
//   the token an HMAC of the reference under a key derived from SESSION_SECRET;
// - In-Reply-To / References naming a Message-ID we generated for that ticket;
// - the provider's verdict: DMARC pass, or SPF / DKIM passing for the From domain.
import { createHmac, timingSafeEqual } from "node:crypto";
import { env } from "~/utils/env.server";
import type { AuthEvidence } from "./inbound-payload";

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

export const bareMessageId = (id: string) => id.replace(/^<|>$/g, "").toLowerCase();

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
  if (evidence.spf?.result.toLowerCase() === "pass" && aligned(domainOf(evidence.spf.envelopeFrom), fromDomain))
    return true;
  return (evidence.dkim ?? []).some(
    (entry) => entry.result.toLowerCase() === "pass" && aligned(entry.domain, fromDomain),
  );
}
