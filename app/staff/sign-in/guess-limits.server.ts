// Wrong secrets and API tokens per client address (decision 037). The secrets are 32+
// generated characters and the tokens 256 random bits, so nobody guesses one online: the
// limit makes guessing visible (429, a line in the log) and cheap to refuse. It never holds
// back a right secret or token, so a stranger sending wrong ones from the provider's shared
// address cannot lock the provider out.
import { RateLimiterRes } from "rate-limiter-flexible";
import { hashIp } from "~/capture/lead-signatures.server";
import { log } from "~/utils/log.server";
import { createRateLimiter, tooManyRequests, type RateLimiter } from "../../utils/rate-limit.server";

const WINDOW_SECONDS = 15 * 60;
const WRONG_PER_WINDOW = 10;

/** Wrong SUPPORT_API_KEY and INBOUND_SECRET values, per address. */
const wrongSecrets = createRateLimiter({
  keyPrefix: "api-key-ip",
  points: WRONG_PER_WINDOW,
  durationSeconds: WINDOW_SECONDS,
});
/** Wrong `lc_` API tokens, per address. */
const wrongTokens = createRateLimiter({
  keyPrefix: "api-token-ip",
  points: WRONG_PER_WINDOW,
  durationSeconds: WINDOW_SECONDS,
});

/**
 * Counts a wrong `what` from `ip`. Up to 10 in 15 minutes it returns (the caller answers
 * 401); past that it throws 429 with Retry-After. Each wrong one is logged with the hashed
 * address, and the first refusal of a window too (not every one after it).
 */
async function countWrong(limiter: RateLimiter, ip: string, what: string, refusal: string): Promise<void> {
  const from = `address ${hashIp(ip).slice(0, 12)}`;
  try {
    const res = await limiter.consume(ip);
    log.warn(`wrong ${what} from ${from} (${res.consumedPoints} of ${WRONG_PER_WINDOW} in 15 minutes)`);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
    if (rejection.consumedPoints === WRONG_PER_WINDOW + 1) {
      log.warn(`wrong ${what} from ${from}: over ${WRONG_PER_WINDOW} in 15 minutes, answered 429`);
    }
    tooManyRequests(retryAfter, refusal);
  }
}

/** Counts a wrong shared secret (`what`: "support API key", "inbound secret"). */
export const countWrongSecret = (ip: string, what: string) =>
  countWrong(wrongSecrets, ip, what, "Too many wrong keys from this address. Try again later.");

/** Counts a wrong API token. */
export const countWrongToken = (ip: string) =>
  countWrong(wrongTokens, ip, "API token", "Too many wrong API tokens from this address. Try again later.");
