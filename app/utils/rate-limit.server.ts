// Rate limits for the public and login endpoints (rate-limiter-flexible).
// The store is process memory for the embedded single-process setup and the database
// when several instances share one PostgreSQL (RATE_LIMIT_STORE, see env.server.ts).
import { RateLimiterMemory, RateLimiterPrisma, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { db } from "../storage/db.server";
import { RateLimited } from "./domain-error";
import { env } from "./env.server";

export type RateLimiter = RateLimiterAbstract;

export function createRateLimiter(options: {
  keyPrefix: string;
  points: number;
  durationSeconds: number;
}): RateLimiter {
  const config = {
    keyPrefix: options.keyPrefix,
    points: options.points,
    duration: options.durationSeconds,
  };
  return env.RATE_LIMIT_STORE === "database"
    ? new RateLimiterPrisma({ ...config, storeClient: db })
    : new RateLimiterMemory(config);
}

function retryAfterSeconds(res: RateLimiterRes): number {
  return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
}

export function tooManyRequests(retryAfter: number, message: string): never {
  throw new RateLimited(message, retryAfter);
}

/** Counts one request against `key`; over the limit, stops with 429 and Retry-After. */
export async function consumeOrFail(limiter: RateLimiter, key: string, message: string): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) tooManyRequests(retryAfterSeconds(rejection), message);
    throw rejection;
  }
}

/** Seconds until `key` may try again, or 0 when it is not blocked (without counting a try). */
export async function secondsBlocked(limiter: RateLimiter, key: string): Promise<number> {
  const res = await limiter.get(key);
  if (!res || res.consumedPoints < limiter.points) return 0;
  return retryAfterSeconds(res);
}
