/**
 * How the service writes instants and spans of time. Pure: every function formats the Date it is
 * given and none reads the clock (callers pass `now`).
 */

/** A day, in milliseconds. */
export const DAY_MS = 86_400_000;

/** ISO 8601 with an explicit UTC offset, as the API shows every timestamp: `2026-01-01T00:00:00.000+00:00`. */
export function isoWithOffset(date: Date): string {
  return date.toISOString().replace('Z', '+00:00');
}

/**
 * ISO 8601 in UTC to the second, without a fraction: `2026-01-01T00:00:00Z`, as SBOM documents and
 * EventBridge write times (several SPDX readers parse exactly that).
 */
export function isoSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
