/**
 * Policy waivers, pure: a waiver holds back one rule for one package of a product (or, without a
 * package, the whole rule for the product) until it expires. What makes a waiver valid when it is
 * made, and whether one applies at a given `now`; the rules engine (policy-rules.ts) applies them.
 * No I/O, no clock: callers pass `now`.
 */
import { DAY_MS } from './time.ts';
import type { RuleType } from './policy-rules.ts';

/** A waiver may run at most this long from when it is made ("at most one year ahead"). */
export const MAX_WAIVER_DAYS = 365;
/** The longest reason a waiver keeps. */
export const MAX_WAIVER_REASON_LENGTH = 2_000;

export interface PolicyWaiver {
  readonly uuid: string;
  readonly dataspace: string;
  readonly productUuid: string;
  readonly ruleType: RuleType;
  /** The package waived; null: the rule is waived for the whole product. */
  readonly packageUuid: string | null;
  /** The package's purl when the waiver was made (for answers and events; null with no package). */
  readonly packagePurl: string | null;
  readonly reason: string;
  /** When it stops applying (ISO 8601, UTC offset): from this instant on, the rule counts the package again. */
  readonly expiresDate: string;
  readonly createdBy: string;
  readonly createdDate: string;
  /** When the expiry job recorded that it expired (null until then; `isExpired` reads the time alone). */
  readonly expiredDate: string | null;
}

/** A waiver item as the table's stream shows it: revoked ones too (kept a while, marked). */
export interface WaiverRecord extends PolicyWaiver {
  readonly revokedDate: string | null;
  readonly revokedBy: string | null;
}

/** What the rules engine reads of a waiver. */
export type WaiverFacts = Pick<PolicyWaiver, 'uuid' | 'ruleType' | 'packageUuid' | 'expiresDate'>;

/** A waiver no longer applies from its expiry on: expires_at ≤ now. */
export function isExpired(waiver: Pick<PolicyWaiver, 'expiresDate'>, now: Date): boolean {
  return Date.parse(waiver.expiresDate) <= now.getTime();
}

/**
 * What is wrong with an expiry requested at `now`, or undefined: it must lie in the future, and at
 * most MAX_WAIVER_DAYS ahead.
 */
export function expiryProblem(expiresAt: Date, now: Date): string | undefined {
  if (Number.isNaN(expiresAt.getTime())) return 'Enter a valid ISO 8601 date/time with a time zone.';
  if (expiresAt.getTime() <= now.getTime()) return 'Ensure this date/time is in the future.';
  if (expiresAt.getTime() > now.getTime() + MAX_WAIVER_DAYS * DAY_MS) return `Ensure this date/time is at most ${MAX_WAIVER_DAYS} days ahead.`;
  return undefined;
}

/**
 * Waivers that expired in (since, now]: those the last evaluation (which ran at `since`) still applied
 * and this one, at `now`, no longer does. With no earlier evaluation, none.
 */
export function expiredSince(waiver: Pick<PolicyWaiver, 'expiresDate'>, since: string | null, now: Date): boolean {
  if (since === null) return false;
  const at = Date.parse(waiver.expiresDate);
  return at > Date.parse(since) && at <= now.getTime();
}
