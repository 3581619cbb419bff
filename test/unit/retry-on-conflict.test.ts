/**
 * retryOnConflict: a read-modify-write that lost an optimistic-concurrency race runs again; one that
 * loses every try is "busy" (503 with Retry-After), never a 500; anything else is not retried.
 */
import { describe, expect, it } from 'vitest';
import { retryOnConflict } from '../../shared/store/dynamo.ts';
import { ServiceUnavailableError, ValidationError } from '../../shared/domain/errors.ts';
import { errorResponse } from '../../shared/http/error-table.ts';

class LostRace extends Error {}
const isRace = (error: unknown) => error instanceof LostRace;

describe('retryOnConflict', () => {
  it('runs a lost race again until it wins', async () => {
    let tries = 0;
    const answer = await retryOnConflict(async () => {
      tries++;
      if (tries < 3) throw new LostRace();
      return 'won';
    }, isRace);
    expect(answer).toBe('won');
    expect(tries).toBe(3);
  });

  it('answers "busy" after the last lost try, with the last race as the cause', async () => {
    let tries = 0;
    const last = new LostRace('the sixth');
    const failure = await retryOnConflict(
      async () => {
        tries++;
        throw tries === 6 ? last : new LostRace();
      },
      isRace,
      { maxTries: 6 },
    ).catch((error: unknown) => error);
    expect(tries).toBe(6);
    expect(failure).toBeInstanceOf(ServiceUnavailableError);
    expect((failure as Error).cause).toBe(last);
    expect(errorResponse(failure)).toEqual({
      statusCode: 503,
      headers: { 'Retry-After': '1' },
      body: { detail: 'The service is busy; try again shortly.' },
      expected: true,
    });
  });

  it('keeps retrying within its time budget, not a fixed count of tries, then answers "busy"', async () => {
    let tries = 0;
    const failure = await retryOnConflict(
      async () => {
        tries++;
        throw new LostRace();
      },
      isRace,
      { budgetMs: 300, baseMs: 1, capMs: 2 },
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ServiceUnavailableError);
    // Waits of at most 2 ms within 300 ms: far more than the six tries a count would have allowed.
    expect(tries).toBeGreaterThan(6);
  });

  it('runs the tries of writes of one object one at a time within a process', async () => {
    let running = 0;
    let most = 0;
    const write = () =>
      retryOnConflict(
        async () => {
          running++;
          most = Math.max(most, running);
          await new Promise((resolve) => setImmediate(resolve));
          running--;
        },
        isRace,
        { key: 'request#one' },
      );
    await Promise.all(Array.from({ length: 10 }, write));
    expect(most).toBe(1);
    // Another object's writes are not held up by it.
    running = 0;
    most = 0;
    await Promise.all(Array.from({ length: 10 }, (_, i) => retryOnConflict(async () => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setImmediate(resolve));
      running--;
    }, isRace, { key: `request#${i}` })));
    expect(most).toBe(10);
  });

  it('a write still queued behind another of its object when its budget is spent answers "busy" and never runs', async () => {
    let release!: () => void;
    const slow = retryOnConflict(() => new Promise<void>((resolve) => (release = resolve)), isRace, { key: 'product#slow' });
    let ran = false;
    const queued = await retryOnConflict(
      async () => {
        ran = true;
      },
      isRace,
      { key: 'product#slow', budgetMs: 50 },
    ).catch((error: unknown) => error);
    expect(queued).toBeInstanceOf(ServiceUnavailableError);
    expect(ran).toBe(false);
    release();
    await slow;
    // The queue moves on: the next write of the object runs.
    await retryOnConflict(async () => {
      ran = true;
    }, isRace, { key: 'product#slow' });
    expect(ran).toBe(true);
  });

  it('does not retry other errors, and passes them on unchanged', async () => {
    let tries = 0;
    const refused = new ValidationError({ name: ['This field is required.'] });
    await expect(
      retryOnConflict(async () => {
        tries++;
        throw refused;
      }, isRace),
    ).rejects.toBe(refused);
    expect(tries).toBe(1);
  });
});
