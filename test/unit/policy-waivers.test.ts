/**
 * Policy waivers in the pure rules engine, written from the rules: a package-level waiver takes
 * its package out of its rule's count, a product-level one (no package) waives the whole rule, a waiver
 * no longer applies from its expires_at on (at `now`), a fully waived rule does not trigger, and the
 * packages an expired waiver held back come back as a detected violation that says so.
 */
import { describe, expect, it } from 'vitest';
import { evaluateRules, reconcile, waivedRules, type PackageFacts, type PolicyConfig, type RuleResult, type Violation } from '../../shared/domain/policy-rules.ts';
import { expiredSince, expiryProblem, isExpired, MAX_WAIVER_DAYS, type WaiverFacts, type WaiverRecord } from '../../shared/domain/policy-waivers.ts';
import { EVALUATED_ENTITIES, changeTargets, type ChangeRecord } from '../../shared/domain/change-records.ts';

const NOW = new Date('2026-06-15T12:00:00.000Z');
const MS = (offset: number) => new Date(NOW.getTime() + offset).toISOString().replace('Z', '+00:00');
const DAY_MS = 86_400_000;

let sequence = 0;
const uuid = () => `00000000-0000-4000-8000-${String(++sequence).padStart(12, '0')}`;

/** A package with a usage policy flagged error: it breaks usage_policy_error. */
function anOffender(): PackageFacts {
  const id = uuid();
  return { uuid: id, purl: `pkg:npm/p-${id.slice(-4)}@1.0.0`, licenseExpression: 'mit', concluded: false, licenses: [{ key: 'mit', alert: '', category: 'Permissive' }], unknownLicenses: [], usagePolicyAlert: 'error', vulnerabilities: [] };
}

function aWaiver(overrides: Partial<WaiverFacts> = {}): WaiverFacts {
  return { uuid: uuid(), ruleType: 'usage_policy_error', packageUuid: null, expiresDate: MS(DAY_MS), ...overrides };
}

const CONFIG: PolicyConfig = { usage_policy_error: { is_active: true, threshold: 0, parameters: {} } };

function evaluate(packages: PackageFacts[], waivers: WaiverFacts[], { config = CONFIG, now = NOW, lastEvaluatedAt = null as string | null } = {}): RuleResult {
  const results = evaluateRules(config, packages, now, { waivers, lastEvaluatedAt });
  expect(results).toHaveLength(1);
  return results[0]!;
}

describe('a waiver is valid when made', () => {
  it.each([
    ['a second ago', -1_000, 'Ensure this date/time is in the future.'],
    ['now exactly', 0, 'Ensure this date/time is in the future.'],
    ['a millisecond ahead', 1, undefined],
    [`${MAX_WAIVER_DAYS} days ahead`, MAX_WAIVER_DAYS * DAY_MS, undefined],
    [`${MAX_WAIVER_DAYS} days and a millisecond ahead`, MAX_WAIVER_DAYS * DAY_MS + 1, `Ensure this date/time is at most ${MAX_WAIVER_DAYS} days ahead.`],
    ['two years ahead', 730 * DAY_MS, `Ensure this date/time is at most ${MAX_WAIVER_DAYS} days ahead.`],
  ])('expires %s: %s', (_, offset, problem) => {
    expect(expiryProblem(new Date(NOW.getTime() + offset), NOW)).toBe(problem);
  });

  it('refuses a date that is not one', () => {
    expect(expiryProblem(new Date('not a date'), NOW)).toBe('Enter a valid ISO 8601 date/time with a time zone.');
  });
});

describe('expiry at now', () => {
  it.each([
    [-1, true],
    [0, true],
    [1, false],
  ])('expires_at = now %+d ms: expired %s', (offset, expired) => {
    expect(isExpired({ expiresDate: MS(offset) }, NOW)).toBe(expired);
  });

  it('whatever offset the expiry was written with', () => {
    expect(isExpired({ expiresDate: '2026-06-15T14:00:00.000+02:00' }, NOW)).toBe(true);
    expect(isExpired({ expiresDate: '2026-06-15T14:00:00.001+02:00' }, NOW)).toBe(false);
  });

  it.each([
    ['expired between the last evaluation and now', MS(-60_000), MS(-1_000), true],
    ['expired at now exactly', MS(-60_000), MS(0), true],
    ['expired before the last evaluation (that one already counted it)', MS(-1_000), MS(-60_000), false],
    ['expired at the last evaluation exactly', MS(-1_000), MS(-1_000), false],
    ['not expired yet', MS(-1_000), MS(1_000), false],
  ])('%s', (_, last, expires, expected) => {
    expect(expiredSince({ expiresDate: expires }, last, NOW)).toBe(expected);
  });

  it('never counts as expired since an evaluation that never ran', () => {
    expect(expiredSince({ expiresDate: MS(-1_000) }, null, NOW)).toBe(false);
  });
});

describe('evaluating with waivers', () => {
  it('without waivers, every offender counts (the result is as before waivers)', () => {
    const packages = [anOffender(), anOffender()];
    expect(evaluate(packages, [])).toEqual({ type: 'usage_policy_error', count: 2, offenders: expect.any(Array), triggered: true });
  });

  it('a package-level waiver takes its package out of the count, and names itself', () => {
    const [a, b, c] = [anOffender(), anOffender(), anOffender()];
    const waiver = aWaiver({ packageUuid: b.uuid });
    const result = evaluate([a, b, c], [waiver]);
    expect(result).toMatchObject({ count: 2, triggered: true, waivedOff: false, waivers: [waiver.uuid], expiredWaivers: [] });
    expect(result.offenders.map((o) => o.uuid)).toEqual([a.uuid, c.uuid]);
    expect(result.waived!.map((o) => o.uuid)).toEqual([b.uuid]);
  });

  it('a product-level waiver (no package) waives the whole rule: nothing counted, no violation', () => {
    const packages = [anOffender(), anOffender()];
    const waiver = aWaiver();
    const result = evaluate(packages, [waiver]);
    expect(result).toMatchObject({ count: 0, offenders: [], triggered: false, waivedOff: true, waivers: [waiver.uuid] });
    expect(result.waived).toHaveLength(2);
  });

  it('waiving every violating package resolves the rule as a product-level waiver does', () => {
    const [a, b] = [anOffender(), anOffender()];
    const result = evaluate([a, b], [aWaiver({ packageUuid: a.uuid }), aWaiver({ packageUuid: b.uuid })]);
    expect(result).toMatchObject({ count: 0, triggered: false, waivedOff: true });
  });

  it('a waiver of another rule, or of a package that does not break the rule, changes nothing', () => {
    const [a, b] = [anOffender(), anOffender()];
    const clean = { ...anOffender(), usagePolicyAlert: '' as const };
    const result = evaluate([a, b, clean], [aWaiver({ ruleType: 'usage_policy_warning', packageUuid: a.uuid }), aWaiver({ ruleType: 'license_coverage_gap' }), aWaiver({ packageUuid: clean.uuid })]);
    expect(result).toMatchObject({ count: 2, triggered: true, waived: [], waivers: [], waivedOff: false });
  });

  it('an expired waiver (expires_at ≤ now) does not apply', () => {
    const [a, b] = [anOffender(), anOffender()];
    expect(evaluate([a, b], [aWaiver({ packageUuid: a.uuid, expiresDate: MS(0) })])).toMatchObject({ count: 2, waived: [] });
    expect(evaluate([a, b], [aWaiver({ packageUuid: a.uuid, expiresDate: MS(1) })])).toMatchObject({ count: 1 });
    expect(evaluate([a, b], [aWaiver({ expiresDate: MS(-1) })])).toMatchObject({ count: 2, triggered: true });
  });

  it('the threshold applies to what is left: waived down to it, the rule does not trigger', () => {
    const [a, b] = [anOffender(), anOffender()];
    const config: PolicyConfig = { usage_policy_error: { is_active: true, threshold: 1, parameters: {} } };
    expect(evaluate([a, b], [aWaiver({ packageUuid: a.uuid })], { config })).toMatchObject({ count: 1, triggered: false, waivedOff: true });
    // Under the threshold with or without the waiver: nothing held back that would have counted.
    expect(evaluate([a], [aWaiver({ packageUuid: a.uuid })], { config })).toMatchObject({ count: 0, triggered: false, waivedOff: false });
  });

  it('names the waivers that expired since the last evaluation when their packages count again', () => {
    const [a, b] = [anOffender(), anOffender()];
    const expired = aWaiver({ packageUuid: a.uuid, expiresDate: MS(-1_000) });
    const older = aWaiver({ packageUuid: b.uuid, expiresDate: MS(-3_600_000) });
    expect(evaluate([a, b], [expired, older], { lastEvaluatedAt: MS(-60_000) })).toMatchObject({ count: 2, expiredWaivers: [expired.uuid] });
    // The last evaluation already ran without it.
    expect(evaluate([a, b], [expired], { lastEvaluatedAt: MS(-500) })).toMatchObject({ count: 2, expiredWaivers: [] });
    // Its package is held back by another waiver still: nothing came back.
    expect(evaluate([a, b], [expired, aWaiver({ packageUuid: a.uuid })], { lastEvaluatedAt: MS(-60_000) })).toMatchObject({ count: 1, expiredWaivers: [] });
    // A product-level one that expired brings the whole rule back.
    const rule = aWaiver({ expiresDate: MS(-1_000) });
    expect(evaluate([a, b], [rule], { lastEvaluatedAt: MS(-60_000) })).toMatchObject({ count: 2, triggered: true, expiredWaivers: [rule.uuid] });
  });

  it('summarises what waivers held back, by rule, for the evaluation state', () => {
    const [a, b] = [anOffender(), anOffender()];
    const waiver = aWaiver({ packageUuid: a.uuid });
    expect(waivedRules([evaluate([a, b], [waiver])])).toEqual([{ ruleType: 'usage_policy_error', waivedCount: 1, waivers: [waiver.uuid], waivedOff: false }]);
    expect(waivedRules([evaluate([a, b], [])])).toEqual([]);
  });
});

describe('the lifecycle with waivers', () => {
  const EARLIER = '2026-06-01T00:00:00.000+00:00';
  const active = (count: number): Violation => ({ ruleType: 'usage_policy_error', count, detectedDate: EARLIER, resolvedDate: null, lastEvaluatedAt: EARLIER });
  const result = (count: number, expiredWaivers: string[] = []): RuleResult => ({ type: 'usage_policy_error', count, offenders: [], triggered: count > 0, expiredWaivers });

  it('waived down to zero: the violation resolves', () => {
    const outcome = reconcile([active(2)], [{ ...result(0), waivedOff: true }], NOW);
    expect(outcome.resolved).toHaveLength(1);
    expect(outcome.detected).toEqual([]);
  });

  it('an expired waiver raising an active count: detected again (not re-activated), naming the waiver', () => {
    const outcome = reconcile([active(2)], [result(3, ['w-1'])], NOW);
    expect(outcome.writes).toEqual([{ ...active(3), lastEvaluatedAt: expect.any(String) }]);
    expect(outcome.detected).toEqual([{ violation: outcome.writes[0], reactivated: false, expiredWaivers: ['w-1'] }]);
  });

  it('a count that rises for another reason stays a quiet update, as before waivers', () => {
    expect(reconcile([active(2)], [result(3)], NOW).detected).toEqual([]);
  });

  it('a violation resolved by a waiver comes back re-activated when it expires, naming it', () => {
    const resolved = { ...active(2), resolvedDate: '2026-06-10T00:00:00.000+00:00' };
    const outcome = reconcile([resolved], [result(2, ['w-2'])], NOW);
    expect(outcome.detected).toEqual([{ violation: outcome.writes[0], reactivated: true, expiredWaivers: ['w-2'] }]);
    expect(outcome.writes[0]).toMatchObject({ detectedDate: EARLIER, resolvedDate: null, count: 2 });
  });
});

describe('which waiver changes re-evaluate their product (change records)', () => {
  const record = (overrides: Partial<WaiverRecord> = {}): WaiverRecord => ({
    uuid: 'w-1',
    dataspace: 'acme',
    productUuid: 'p-1',
    ruleType: 'usage_policy_error',
    packageUuid: null,
    packagePurl: null,
    reason: 'why',
    expiresDate: MS(DAY_MS),
    createdBy: 'alice',
    createdDate: MS(0),
    expiredDate: null,
    revokedDate: null,
    revokedBy: null,
    ...overrides,
  });
  const version = (r: WaiverRecord) => ({ record: r, marks: {} });
  const product = [{ kind: 'product', dataspace: 'acme', uuid: 'p-1' }];

  it.each([
    ['made', { eventName: 'INSERT', after: version(record()) }, product],
    ['revoked', { eventName: 'MODIFY', before: version(record()), after: version(record({ revokedDate: MS(1), revokedBy: 'alice' })) }, product],
    ['marked expired', { eventName: 'MODIFY', before: version(record()), after: version(record({ expiredDate: MS(1) })) }, product],
    ['written again unchanged (a correlation stamp)', { eventName: 'MODIFY', before: version(record()), after: version(record()) }, []],
    ['removed with its product, or by the TTL of a revoked one', { eventName: 'REMOVE', before: version(record({ revokedDate: MS(1) })) }, []],
  ] as const)('%s', (_, change, targets) => {
    expect(changeTargets({ entity: 'PolicyWaiver', ...change } as ChangeRecord)).toEqual(targets);
  });

  it('reach the stream router: PolicyWaiver is an evaluated entity', () => {
    expect(EVALUATED_ENTITIES).toContain('PolicyWaiver');
  });
});
