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
// Bounded: entries live one window and are forgotten in the order they were made (all live
// equally long, so that is their expiry order); past `maxEntries` the oldest goes early, and
// that visitor could be counted again before the window ends. An entry only comes with a
// counted view, so one address adds at most `perAddress` of them per form and window. Keys
// are hashes, the address's keyed with a secret: no address is kept.
import { hash as digestOf } from "node:crypto";
import { env } from "~/utils/env.server";

/** SHA-256 in one call (no Hash object per call). */
const sha256 = (text: string): Buffer => digestOf("sha256", text, "buffer");

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
/** Visitors (and as many addresses) remembered per process: about 35 MB when full. */
export const MAX_REMEMBERED_VISITORS = 100_000;

/**
 * Counts per key that live `ttlMs` from the key's first count, at most `max` keys. A key
 * leaves the map only from the front of the queue, in the order it came, so the queue
 * holds each key once and its expiries ascend: forgetting costs O(1) per key. (Iterating
 * the Map from its front would walk the holes its deletions leave, slower and slower.)
 */
class ExpiringCounts {
  private readonly counts = new Map<string, number>();
  private keys: string[] = [];
  private expiries: number[] = [];
  private head = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly max: number,
  ) {}

  /** How often `key` was counted in its window: 0 when never, or when the window has passed. */
  get(key: string, now: number): number {
    while (this.head < this.keys.length && this.expiries[this.head] <= now) this.forgetOldest();
    return this.counts.get(key) ?? 0;
  }

  /** Counts `key` once more; a key not held starts its window now (the oldest goes when full). */
  add(key: string, now: number): void {
    const count = this.get(key, now);
    if (count === 0) {
      while (this.counts.size >= this.max) this.forgetOldest();
      this.keys.push(key);
      this.expiries.push(now + this.ttlMs);
    }
    this.counts.set(key, count + 1);
  }

  get size(): number {
    return this.counts.size;
  }

  private forgetOldest(): void {
    this.counts.delete(this.keys[this.head]);
    this.head += 1;
    // Drop the forgotten part of the queue now and then (amortized O(1) per key).
    if (this.head >= 1024 && this.head * 2 >= this.keys.length) {
      this.keys = this.keys.slice(this.head);
      this.expiries = this.expiries.slice(this.head);
      this.head = 0;
    }
  }
}

// A site's visitors share few User-Agents: their hashes are kept (cleared when this many).
const AGENT_HASHES_MAX = 2_000;

export type VisitorWindow = {
  /** Whether this view is the visitor's first of the form in the window (and within its address's cap); remembers it if so. */
  admit(formId: string, visitor: Visitor): boolean;
  /** Entries held, for tests of the bound. */
  size(): { visitors: number; addresses: number };
};

export function createVisitorWindow(options: VisitorWindowOptions): VisitorWindow {
  const { windowMs, perAddress, maxEntries, secret, now = Date.now } = options;
  const visitors = new ExpiringCounts(windowMs, maxEntries);
  const addresses = new ExpiringCounts(windowMs, maxEntries);
  const agentHashes = new Map<string, Buffer>();
  // 96 bits of a hash of the User-Agent: two browsers at one address colliding costs one view.
  const agentHash = (userAgent: string | null): Buffer => {
    const agent = (userAgent ?? "").slice(0, USER_AGENT_MAX_LENGTH);
    let hash = agentHashes.get(agent);
    if (hash === undefined) {
      hash = sha256(agent).subarray(0, 12);
      if (agentHashes.size >= AGENT_HASHES_MAX) agentHashes.clear();
      agentHashes.set(agent, hash);
    }
    return hash;
  };
  // Keys are built in here and copied out as one flat string (a joined or sliced string
  // would keep its parts alive beside it): 128 bits of a keyed hash of form and address,
  // then the User-Agent's 96. The address itself is not kept. The key is the secret
  // prefixed (no HMAC: these hashes never leave the process, so nobody can extend one, and
  // createHmac's per-call key setup was a tenth of the beacon's time).
  const key = Buffer.alloc(28);
  const prefix = `${secret}\u0000form-view\u0000`;
  return {
    admit(formId, { ip, userAgent }) {
      const at = now();
      sha256(`${prefix}${formId}\u0000${ip}`).copy(key, 0, 0, 16);
      agentHash(userAgent).copy(key, 16);
      const address = key.toString("base64url", 0, 16);
      const visitor = key.toString("base64url");
      if (visitors.get(visitor, at) > 0) return false;
      if (perAddress > 0) {
        if (addresses.get(address, at) >= perAddress) return false;
        addresses.add(address, at);
      }
      visitors.add(visitor, at);
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
