/**
 * The policy portfolio, pure: a product's gate (the policy_status of its last evaluation), what one
 * change of a violation record does to its dataspace's daily counts, and the portfolio answer built
 * from the stored counts. No I/O, no clock: callers pass `today`.
 */
import { DAY_MS } from './time.ts';
import { RULES, RULE_TYPES, type RuleType } from './policy-rules.ts';

/** A product's gate as its last evaluation left it. */
export const GATES = ['fail', 'warn', 'pass'] as const;
export type Gate = (typeof GATES)[number];
/** The gate filter's values: a gate, or `none` for a product never evaluated. */
export const GATE_FILTERS = [...GATES, 'none'] as const;
export type GateFilter = (typeof GATE_FILTERS)[number];

/** The gate of a product whose active violations are these: as GET .../policy_status/ answers it. */
export function gateOf(active: readonly { readonly ruleType: RuleType }[]): Gate {
  if (active.some((violation) => RULES[violation.ruleType].severity === 'error')) return 'fail';
  return active.length > 0 ? 'warn' : 'pass';
}

/** What a violation record holds that the daily counts need (a stream image's fields). */
export interface ViolationImage {
  readonly dataspace: string;
  readonly ruleType: RuleType;
  readonly resolvedDate: string | null;
  readonly lastEvaluatedAt: string;
}

/** One change to a dataspace's counts: on `date` (UTC day), detected / resolved / net active, and per rule the net active. */
export interface ViolationDayChange {
  readonly dataspace: string;
  readonly date: string;
  readonly detected: number;
  readonly resolved: number;
  /** The change in the number of active violations (detected − resolved − removed). */
  readonly active: number;
  readonly ruleType: RuleType;
}

/** The UTC day of an ISO timestamp (with any offset): `2026-01-31`. */
export function utcDay(iso: string): string {
  return new Date(Date.parse(iso)).toISOString().slice(0, 10);
}

const isActive = (image: ViolationImage | undefined) => image !== undefined && image.resolvedDate === null;

/**
 * What one stream record of a violation item changes, or undefined when nothing: a violation that
 * became active (new, or re-activated) is detected on the day of the write that did it; one that
 * became resolved, resolved on its resolution day; an active one removed (its product deleted)
 * leaves the active count on `removedAt`'s day, neither detected nor resolved.
 */
export function violationDayChange(before: ViolationImage | undefined, after: ViolationImage | undefined, removedAt: string): ViolationDayChange | undefined {
  const was = isActive(before);
  const is = isActive(after);
  if (was === is) return undefined;
  if (is) return { dataspace: after!.dataspace, ruleType: after!.ruleType, date: utcDay(after!.lastEvaluatedAt), detected: 1, resolved: 0, active: 1 };
  if (after) return { dataspace: after.dataspace, ruleType: after.ruleType, date: utcDay(after.resolvedDate ?? after.lastEvaluatedAt), detected: 0, resolved: 1, active: -1 };
  return { dataspace: before!.dataspace, ruleType: before!.ruleType, date: utcDay(removedAt), detected: 0, resolved: 0, active: -1 };
}

/** A stored day's counts (only days with a change are stored). */
export interface StoredViolationDay {
  readonly date: string;
  readonly detected: number;
  readonly resolved: number;
  /** Net change of the active count that day. */
  readonly active: number;
}

export interface PortfolioDay {
  readonly date: string;
  readonly detected: number;
  readonly resolved: number;
  /** Active violations at the end of the day. */
  readonly active: number;
}

/**
 * The last `days` days up to `today` (UTC), every day present: active at the end of a day is today's
 * total minus the net changes of the days after it (stored days after `today`, from a clock ahead,
 * count as after every day shown).
 */
export function portfolioDays(stored: readonly StoredViolationDay[], activeNow: number, today: string, days: number): PortfolioDay[] {
  const end = Date.parse(`${today}T00:00:00Z`);
  const dates = Array.from({ length: days }, (_, i) => new Date(end - (days - 1 - i) * DAY_MS).toISOString().slice(0, 10));
  const byDate = new Map(stored.map((day) => [day.date, day]));
  let after = stored.filter((day) => day.date > today).reduce((sum, day) => sum + day.active, 0);
  const out: PortfolioDay[] = [];
  for (let i = dates.length - 1; i >= 0; i--) {
    const date = dates[i]!;
    const day = byDate.get(date);
    out.push({ date, detected: day?.detected ?? 0, resolved: day?.resolved ?? 0, active: Math.max(0, activeNow - after) });
    after += day?.active ?? 0;
  }
  return out.reverse();
}

/** The first day of the last `days` days up to `today`. */
export function firstDay(today: string, days: number): string {
  return new Date(Date.parse(`${today}T00:00:00Z`) - (days - 1) * DAY_MS).toISOString().slice(0, 10);
}

export interface TopRule {
  readonly rule_type: RuleType;
  readonly label: string;
  readonly severity: 'error' | 'warning';
  /** Products in active violation of the rule. */
  readonly products: number;
}

/** The rules with the most products in active violation, most first (errors first on a tie, then by label), at most `limit`. */
export function topRules(activeByRule: Readonly<Partial<Record<RuleType, number>>>, limit = 10): TopRule[] {
  return RULE_TYPES.filter((type) => (activeByRule[type] ?? 0) > 0)
    .map((type) => ({ rule_type: type, label: RULES[type].label, severity: RULES[type].severity, products: activeByRule[type]! }))
    .sort((a, b) => b.products - a.products || (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1) || a.label.localeCompare(b.label))
    .slice(0, limit);
}

/** Products by gate: the three counters, and `none` the rest of the dataspace's count. */
export function productsByGate(total: number, counted: Readonly<Record<Gate, number>>): Record<GateFilter, number> {
  const evaluated = counted.fail + counted.warn + counted.pass;
  return { fail: counted.fail, warn: counted.warn, pass: counted.pass, none: Math.max(0, total - evaluated) };
}
