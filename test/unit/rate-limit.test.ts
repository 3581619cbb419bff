/** The GCRA arithmetic of per-key throttling: pure, driven by request times in milliseconds. */
import { describe, expect, it } from 'vitest';
import { ThrottledError } from '../../shared/domain/errors.ts';
import { gcra, gcraRateLimiter, gcraStep, retryAfterSeconds, type RateLimit } from '../../shared/http/rate-limit.ts';
import type { GcraStep, TakeResult } from '../../shared/store/rate-limit-store.ts';

/** Runs requests at the given times through one key's `tat`: 'y' admitted, 'n' refused. */
function run(limit: RateLimit, times: readonly number[]): string {
  let tat: number | undefined;
  return times
    .map((now) => {
      const decision = gcra(tat, gcraStep(limit, now));
      if (decision.admitted) tat = decision.tat;
      return decision.admitted ? 'y' : 'n';
    })
    .join('');
}

const repeat = (time: number, count: number) => Array.from({ length: count }, () => time);

describe('gcraStep', () => {
  it.each([
    // perSecond, burst, now → interval, allowAt, expiresAt (epoch s: a minute past allowAt + interval)
    [2, 3, 0, 500, 1000, 62],
    [5, 20, 10_000, 200, 13_800, 74],
    [1, 1, 1_500, 1000, 1_500, 63],
    [0.5, 2, 0, 2000, 2000, 64],
  ])('%d a second, burst %d, at %d: interval %d, allowAt %d, expiresAt %d', (perSecond, burst, now, interval, allowAt, expiresAt) => {
    expect(gcraStep({ perSecond, burst }, now)).toEqual({ now, interval, allowAt, expiresAt });
  });
});

describe('gcra decisions', () => {
  it.each([
    ['admits the burst at once, refuses the next', { perSecond: 2, burst: 3 }, repeat(0, 4), 'yyyn'],
    ['admits exactly the burst of 20', { perSecond: 5, burst: 20 }, repeat(0, 21), `${'y'.repeat(20)}n`],
    ['refuses until one interval has passed', { perSecond: 2, burst: 3 }, [...repeat(0, 3), 499], 'yyyn'],
    ['admits one more after one interval', { perSecond: 2, burst: 3 }, [...repeat(0, 3), 500, 500], 'yyyyn'],
    ['does not count refused requests', { perSecond: 2, burst: 3 }, [...repeat(0, 8), 500], 'yyynnnnny'],
    ['refills the whole burst after an idle spell', { perSecond: 2, burst: 3 }, [...repeat(0, 3), ...repeat(10_000, 4)], 'yyyyyyn'],
    ['refills the burst gradually', { perSecond: 2, burst: 3 }, [...repeat(0, 3), ...repeat(1000, 3)], 'yyyyyn'],
    ['with a burst of 1, admits one per interval', { perSecond: 1, burst: 1 }, [0, 0, 999, 1000, 1000, 2000], 'ynnyny'],
    ['admits a steady client at exactly the rate', { perSecond: 4, burst: 1 }, [0, 250, 500, 750, 1000], 'yyyyy'],
    // 5 a second against 4: each request runs 50 ms ahead, and the burst's spare 250 ms lasts five of them.
    ['refuses a client slightly faster than the rate once its slack is spent', { perSecond: 4, burst: 2 }, [0, 200, 400, 600, 800, 1000, 1200], 'yyyyyyn'],
  ])('%s', (_, limit, times, expected) => {
    expect(run(limit, times)).toBe(expected);
  });

  it('starts a key with no state from now', () => {
    expect(gcra(undefined, gcraStep({ perSecond: 2, burst: 3 }, 1000))).toEqual({ admitted: true, tat: 1500 });
  });
});

describe('retryAfterSeconds', () => {
  it.each([
    // perSecond, burst, requests at 0 to spend the burst, now of the refused request → seconds
    [2, 3, 3, 0, 1], // 500 ms to wait: rounds up to 1
    [0.25, 2, 2, 0, 4], // 4000 ms
    [0.25, 2, 2, 1, 4], // 3999 ms rounds up
    [0.25, 2, 2, 1000, 3], // 3000 ms exactly
    [0.25, 2, 2, 3999, 1], // 1 ms rounds up to a whole second
    [0.1, 1, 1, 0, 10], // one request every 10 s
  ])('%d a second, burst %d, %d requests at 0, refused at %d: %d s', (perSecond, burst, spent, now, seconds) => {
    const limit = { perSecond, burst };
    let tat: number | undefined;
    for (let i = 0; i < spent; i++) tat = (gcra(tat, gcraStep(limit, 0)) as { tat: number }).tat;
    const decision = gcra(tat, gcraStep(limit, now));
    expect(decision).toMatchObject({ admitted: false, retryAfterSeconds: seconds });
    // Waiting that long is enough, and (when the wait is over a second) a second less is not.
    expect(gcra(tat, gcraStep(limit, now + seconds * 1000)).admitted).toBe(true);
    if (seconds > 1) expect(gcra(tat, gcraStep(limit, now + (seconds - 1) * 1000)).admitted).toBe(false);
  });

  it('is never below 1, as a Retry-After of 0 would invite an immediate retry', () => {
    const step = gcraStep({ perSecond: 1000, burst: 1 }, 0);
    expect(retryAfterSeconds(step.allowAt + 0.5, step)).toBe(1);
  });
});

describe('gcraRateLimiter', () => {
  /** A store that applies the decisions in memory, as the table's conditional writes do. */
  function memoryStore() {
    const tats = new Map<string, number>();
    return {
      tats,
      async take(keyId: string, step: GcraStep): Promise<TakeResult> {
        const decision = gcra(tats.get(keyId), step);
        if (!decision.admitted) return { admitted: false, tat: decision.tat };
        tats.set(keyId, decision.tat);
        return { admitted: true };
      },
    };
  }

  it('throws ThrottledError with the wait once a key has spent its burst, leaving other keys alone', async () => {
    const store = memoryStore();
    let now = 0;
    const limiter = gcraRateLimiter(store, { perSecond: 0.5, burst: 2 }, () => now);
    await limiter.admit('aaaaaaaaaaaa');
    await limiter.admit('aaaaaaaaaaaa');
    const refused = await limiter.admit('aaaaaaaaaaaa').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ThrottledError);
    expect((refused as ThrottledError).retryAfterSeconds).toBe(2);
    expect((refused as ThrottledError).message).toBe('Request was throttled. Expected available in 2 seconds.');
    await expect(limiter.admit('bbbbbbbbbbbb')).resolves.toBeUndefined();
    now = 2000;
    await expect(limiter.admit('aaaaaaaaaaaa')).resolves.toBeUndefined();
  });

  it.each([
    { perSecond: 0, burst: 20 },
    { perSecond: -1, burst: 20 },
    { perSecond: 5, burst: 0 },
  ])('refuses a limit that cannot admit anything: %o', (limit) => {
    expect(() => gcraRateLimiter(memoryStore(), limit, () => 0)).toThrow(/Invalid rate limit/);
  });
});
