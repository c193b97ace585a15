// Which visitors' views of a form were counted lately (issue 28, decision 039): a visitor
// (client address and User-Agent) counts one view of a form per FORM_VIEW_DEDUPE_SECONDS,
// however often the hosted page is rendered or the embed's beacon arrives, and one address
// counts at most FORM_VIEWS_PER_ADDRESS visitors of a form in that window, so rotating
// User-Agents from one address inflates nothing either. A view past either limit is
// simply not counted; the caller answers as usual.
//
// Held in process memory like the counts themselves (decision 029: no database write per
// view), so with several instances each keeps its own: a visitor whose requests the load
// balancer spreads over n instances counts at most n views per window.
//
// Bounded: entries live one window and are dropped in the order they were made (all live
// equally long, so a Map's insertion order is their expiry order); past `maxEntries` the
// oldest goes early, and that visitor could be counted again before the window ends. An
// entry only comes with a counted view, so one address adds at most `perAddress` of them per
// form and window. Keys are HMACs keyed with SESSION_SECRET: no address is kept.
import { createHash, createHmac } from "node:crypto";
import { env } from "~/utils/env.server";

/** Who sent a view: the client address and the User-Agent header. */
export type Visitor = { ip: string; userAgent: string | null };

export type VisitorWindowOptions = {
  /** How long a counted visitor is not counted again, in milliseconds. */
  windowMs: number;
  /** Visitors of one form counted per address per window; 0: no cap. */
  perAddress: number;
  /** Visitors (and as many addresses) remembered at most. */
  maxEntries: number;
  secret: string;
  now?: () => number;
};

// A User-Agent is cut here before hashing, as isBotAgent reads it.
const USER_AGENT_MAX_LENGTH = 512;
/** Visitors remembered per process by default: about 10 MB of keys. */
export const MAX_REMEMBERED_VISITORS = 100_000;

/** Keys that expire `windowMs` after they were set, oldest first, at most `max` of them. */
class ExpiringKeys<V extends { expires: number }> {
  private readonly entries = new Map<string, V>();
  constructor(private readonly max: number) {}

  get(key: string, now: number): V | undefined {
    const entry = this.entries.get(key);
    return entry && entry.expires > now ? entry : undefined;
  }

  set(key: string, entry: V, now: number): void {
    this.entries.delete(key);
    for (const [oldest, { expires }] of this.entries) {
      if (expires > now && this.entries.size < this.max) break;
      this.entries.delete(oldest);
    }
    this.entries.set(key, entry);
  }

  get size(): number {
    return this.entries.size;
  }
}

export type VisitorWindow = {
  /** Whether this view is the visitor's first of the form in the window (and within its address's cap); remembers it if so. */
  admit(formId: string, visitor: Visitor): boolean;
  /** Entries held, for tests of the bound. */
  size(): { visitors: number; addresses: number };
};

export function createVisitorWindow(options: VisitorWindowOptions): VisitorWindow {
  const { windowMs, perAddress, maxEntries, secret, now = Date.now } = options;
  const visitors = new ExpiringKeys<{ expires: number }>(maxEntries);
  const addresses = new ExpiringKeys<{ expires: number; counted: number }>(maxEntries);
  return {
    admit(formId, { ip, userAgent }) {
      const at = now();
      // 128 bits of each hash, copied out (a slice of a longer string would keep it alive).
      const address = createHmac("sha256", secret).update(`form-view\u0000${formId}\u0000${ip}`).digest();
      const key = address.toString("base64url", 0, 16);
      const agent = (userAgent ?? "").slice(0, USER_AGENT_MAX_LENGTH);
      const visitor = createHash("sha256").update(address).update(agent).digest().toString("base64url", 0, 16);
      if (visitors.get(visitor, at)) return false;
      const counted = addresses.get(key, at);
      if (perAddress > 0 && counted && counted.counted >= perAddress) return false;
      if (counted) counted.counted += 1;
      else addresses.set(key, { expires: at + windowMs, counted: 1 }, at);
      visitors.set(visitor, { expires: at + windowMs }, at);
      return true;
    },
    size: () => ({ visitors: visitors.size, addresses: addresses.size }),
  };
}

/** The process's window, as configured (FORM_VIEW_DEDUPE_SECONDS, FORM_VIEWS_PER_ADDRESS). */
export const recentVisitors = createVisitorWindow({
  windowMs: env.FORM_VIEW_DEDUPE_SECONDS * 1000,
  perAddress: env.FORM_VIEWS_PER_ADDRESS,
  maxEntries: MAX_REMEMBERED_VISITORS,
  secret: env.SESSION_SECRET,
});
