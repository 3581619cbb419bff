/** The portfolio's pure parts: the gate, what a violation record changes per day, the days and the top rules. */
import { describe, expect, it } from 'vitest';
import { firstDay, gateOf, portfolioDays, productsByGate, topRules, violationDayChange, type ViolationImage } from '../../shared/domain/portfolio.ts';

const active = (ruleType: ViolationImage['ruleType'], at = '2026-03-02T23:30:00.000+00:00'): ViolationImage => ({ dataspace: 'acme', ruleType, resolvedDate: null, lastEvaluatedAt: at });
const resolved = (ruleType: ViolationImage['ruleType'], at: string): ViolationImage => ({ dataspace: 'acme', ruleType, resolvedDate: at, lastEvaluatedAt: at });

describe('gateOf', () => {
  it.each([
    [[], 'pass'],
    [['usage_policy_warning'], 'warn'],
    [['usage_policy_warning', 'vulnerability_detected'], 'fail'],
    [['license_unknown', 'license_coverage_gap'], 'warn'],
    [['vulnerability_stale'], 'fail'],
  ] as const)('%j → %s', (rules, gate) => {
    expect(gateOf(rules.map((ruleType) => ({ ruleType })))).toBe(gate);
  });
});

describe('violationDayChange', () => {
  const removedAt = '2026-03-05T10:00:00.000Z';
  it.each([
    ['a new violation', undefined, active('license_unknown'), { date: '2026-03-02', detected: 1, resolved: 0, active: 1 }],
    ['a re-activated one, on the day of the write', resolved('license_unknown', '2026-03-01T00:00:00.000+00:00'), active('license_unknown', '2026-03-04T00:00:01.000+00:00'), { date: '2026-03-04', detected: 1, resolved: 0, active: 1 }],
    ['a resolved one, on its resolution day (UTC)', active('license_unknown'), resolved('license_unknown', '2026-03-03T01:00:00.000+02:00'), { date: '2026-03-02', detected: 0, resolved: 1, active: -1 }],
    ['an active one removed with its product', active('license_unknown'), undefined, { date: '2026-03-05', detected: 0, resolved: 0, active: -1 }],
  ])('%s', (_name, before, after, expected) => {
    expect(violationDayChange(before, after, removedAt)).toEqual({ dataspace: 'acme', ruleType: 'license_unknown', ...expected });
  });

  it.each([
    ['an active one whose count changed', active('license_unknown'), active('license_unknown', '2026-03-04T00:00:00.000+00:00')],
    ['a resolved one removed', resolved('license_unknown', '2026-03-01T00:00:00.000+00:00'), undefined],
    ['a resolved one written again', resolved('license_unknown', '2026-03-01T00:00:00.000+00:00'), resolved('license_unknown', '2026-03-01T00:00:00.000+00:00')],
  ])('nothing for %s', (_name, before, after) => {
    expect(violationDayChange(before, after, removedAt)).toBeUndefined();
  });
});

describe('portfolioDays', () => {
  it('fills every day of the window and works back the active count from today\'s', () => {
    const stored = [
      { date: '2026-02-27', detected: 9, resolved: 0, active: 9 },
      { date: '2026-03-01', detected: 3, resolved: 0, active: 3 },
      { date: '2026-03-03', detected: 1, resolved: 2, active: -2 },
    ];
    expect(portfolioDays(stored, 10, '2026-03-03', 4)).toEqual([
      { date: '2026-02-28', detected: 0, resolved: 0, active: 9 },
      { date: '2026-03-01', detected: 3, resolved: 0, active: 12 },
      { date: '2026-03-02', detected: 0, resolved: 0, active: 12 },
      { date: '2026-03-03', detected: 1, resolved: 2, active: 10 },
    ]);
  });

  it('leaves out days after today from what it shows, and counts them as after every day shown', () => {
    const stored = [{ date: '2026-03-04', detected: 2, resolved: 0, active: 2 }];
    expect(portfolioDays(stored, 5, '2026-03-03', 2)).toEqual([
      { date: '2026-03-02', detected: 0, resolved: 0, active: 3 },
      { date: '2026-03-03', detected: 0, resolved: 0, active: 3 },
    ]);
  });

  it('starts its window days − 1 before today, across a month', () => {
    expect(firstDay('2026-03-01', 2)).toBe('2026-02-28');
    expect(firstDay('2026-03-01', 1)).toBe('2026-03-01');
  });
});

describe('topRules', () => {
  it('orders by products, errors first on a tie, at most the limit, none at zero', () => {
    const top = topRules({ license_unknown: 3, usage_policy_error: 3, vulnerability_detected: 5, license_coverage_gap: 0 }, 2);
    expect(top).toEqual([
      { rule_type: 'vulnerability_detected', label: 'Vulnerability Detected', severity: 'error', products: 5 },
      { rule_type: 'usage_policy_error', label: 'Usage Policy Error', severity: 'error', products: 3 },
    ]);
    expect(topRules({ license_coverage_gap: 0 })).toEqual([]);
  });
});

describe('productsByGate', () => {
  it('counts the products never evaluated as the rest of the dataspace', () => {
    expect(productsByGate(10, { fail: 2, warn: 3, pass: 1 })).toEqual({ fail: 2, warn: 3, pass: 1, none: 4 });
  });
});
