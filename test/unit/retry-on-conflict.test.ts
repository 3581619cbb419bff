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
    const failure = await retryOnConflict(async () => {
      tries++;
      throw tries === 6 ? last : new LostRace();
    }, isRace).catch((error: unknown) => error);
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
