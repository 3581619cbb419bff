/** How the service writes instants (shared/domain/time.ts). */
import { describe, expect, it } from 'vitest';
import { DAY_MS, isoSeconds, isoWithOffset } from '../../shared/domain/time.ts';

describe('time formats', () => {
  it.each([
    ['2026-03-01T12:34:56.789Z', '2026-03-01T12:34:56.789+00:00', '2026-03-01T12:34:56Z'],
    ['2026-03-01T00:00:00.000Z', '2026-03-01T00:00:00.000+00:00', '2026-03-01T00:00:00Z'],
    ['1999-12-31T23:59:59.999Z', '1999-12-31T23:59:59.999+00:00', '1999-12-31T23:59:59Z'],
  ])('%s: the API writes %s, SBOMs and EventBridge %s', (instant, api, seconds) => {
    expect(isoWithOffset(new Date(instant))).toBe(api);
    expect(isoSeconds(new Date(instant))).toBe(seconds);
  });

  it('a day is 24 hours', () => {
    expect(new Date(Date.parse('2026-03-01T00:00:00Z') + DAY_MS).toISOString()).toBe('2026-03-02T00:00:00.000Z');
  });
});
