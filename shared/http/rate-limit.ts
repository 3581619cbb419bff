/**
 * Per-API-key throttling with GCRA (the generic cell rate algorithm): a key may make `burst` requests
 * at once, then one every 1/`perSecond` seconds; a refused request is a 429 with Retry-After and
 * takes nothing from the allowance. The state is one `tat` per key in the table (RateLimitStore).
 * The arithmetic below is pure (the caller passes `now`), so it is tested without a table or a clock.
 */
import { ThrottledError } from '../domain/errors.ts';
import type { GcraStep, RateLimitStore } from '../store/rate-limit-store.ts';

export interface RateLimit {
  /** Steady requests a second per key; above 0. */
  readonly perSecond: number;
  /** Requests a key may make at once; at least 1. */
  readonly burst: number;
}

/** How long the limiter's item outlives the latest `tat` it can hold, in seconds. */
const TTL_MARGIN_SECONDS = 60;

/** The values one request at `now` (epoch ms) compares and sets. */
export function gcraStep(limit: RateLimit, now: number): GcraStep {
  const interval = 1000 / limit.perSecond;
  const allowAt = now + (limit.burst - 1) * interval;
  // The highest `tat` a write at `now` can set is allowAt + interval.
  return { now, interval, allowAt, expiresAt: Math.ceil((allowAt + interval) / 1000) + TTL_MARGIN_SECONDS };
}

/** Whole seconds until a request refused by `tat` would be admitted: at least 1, as Retry-After. */
export function retryAfterSeconds(tat: number, step: GcraStep): number {
  return Math.max(1, Math.ceil((tat - step.allowAt) / 1000));
}

export type GcraDecision =
  | { readonly admitted: true; readonly tat: number }
  | { readonly admitted: false; readonly retryAfterSeconds: number; readonly tat: number };

/** The decision the store's two conditional writes make, given the key's `tat` (undefined: no item). */
export function gcra(tat: number | undefined, step: GcraStep): GcraDecision {
  if (tat === undefined || tat < step.now) return { admitted: true, tat: step.now + step.interval };
  if (tat <= step.allowAt) return { admitted: true, tat: tat + step.interval };
  return { admitted: false, retryAfterSeconds: retryAfterSeconds(tat, step), tat };
}

export interface RateLimiter {
  /** Counts one request of the key, or throws ThrottledError (and counts nothing). */
  admit(keyId: string): Promise<void>;
}

export function gcraRateLimiter(store: Pick<RateLimitStore, 'take'>, limit: RateLimit, now: () => number): RateLimiter {
  if (!(limit.perSecond > 0) || !(limit.burst >= 1)) throw new Error(`Invalid rate limit ${JSON.stringify(limit)}`);
  return {
    async admit(keyId) {
      const step = gcraStep(limit, now());
      const result = await store.take(keyId, step);
      if (!result.admitted) throw new ThrottledError(retryAfterSeconds(result.tat, step));
    },
  };
}
