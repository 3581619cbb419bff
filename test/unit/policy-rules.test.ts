/**
 * The pure policy rules engine, pinned edge by edge against the rules as the README states them:
 * each rule type's label, severity, description and parameters; the configuration object, its
 * defaults and its validation; thresholds and violation counts; the violation lifecycle. Every
 * expectation below is written from those rules, not read back from the implementation.
 */
import { describe, expect, it } from 'vitest';
import { ANALYSIS_STATES, TERMINAL_STATES, type AnalysisState, type ComplianceAlert } from '../../shared/domain/catalog.ts';
import {
  RULES,
  RULE_TYPES,
  checkConfig,
  compareViolations,
  effectiveConfig,
  evaluateRules,
  reconcile,
  ruleReason,
  type PackageFacts,
  type PolicyConfig,
  type RuleConfig,
  type RuleResult,
  type RuleType,
  type Violation,
} from '../../shared/domain/policy-rules.ts';

// ---------------------------------------------------------------------------------------------
// Factories

const NOW = new Date('2024-06-15T12:00:00.000Z');
const DAY_MS = 86_400_000;
/** An ISO timestamp `days` days (plus `extraMs`) before NOW. */
const ago = (days: number, extraMs = 0) => new Date(NOW.getTime() - days * DAY_MS - extraMs).toISOString();

type Vulnerability = PackageFacts['vulnerabilities'][number];
type License = PackageFacts['licenses'][number];

let sequence = 0;
const next = () => ++sequence;

/** A vulnerability linked yesterday, scored 9.0, without analysis. */
function aVulnerability(overrides: Partial<Vulnerability> = {}): Vulnerability {
  return { id: `VCID-${next()}`, riskScore: 9.0, linkedDate: ago(1), analysisState: null, ...overrides };
}

function aLicense(alert: ComplianceAlert, key = `license-${next()}`, category = 'Permissive'): License {
  return { key, alert, category };
}

/**
 * A clean package: it breaks no rule. Unless given, its expression is the AND of its licenses (every
 * license required, as before expressions were judged by their meaning).
 */
function aPackage(overrides: Partial<PackageFacts> = {}): PackageFacts {
  const n = next();
  const licenses = overrides.licenses ?? [aLicense('')];
  return {
    uuid: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    purl: `pkg:npm/package-${n}@1.0.0`,
    licenseExpression: licenses.map((license) => license.key).join(' AND '),
    concluded: false,
    unknownLicenses: [],
    usagePolicyAlert: '',
    vulnerabilities: [],
    ...overrides,
    licenses,
  };
}

/** A package that breaks `type` (and, for the vulnerability rules, possibly its siblings). */
function anOffender(type: RuleType): PackageFacts {
  switch (type) {
    case 'usage_policy_error':
      return aPackage({ usagePolicyAlert: 'error' });
    case 'usage_policy_warning':
      return aPackage({ usagePolicyAlert: 'warning' });
    case 'license_policy_error':
      return aPackage({ licenses: [aLicense('error')] });
    case 'license_policy_warning':
      return aPackage({ licenses: [aLicense('warning')] });
    case 'license_coverage_gap':
      return aPackage({ licenses: [] });
    case 'license_unknown':
      return aPackage({ licenses: [aLicense('', 'unknown-license-reference', 'Unstated License')], unknownLicenses: ['SEE LICENSE IN LICENSE'] });
    case 'vulnerability_detected':
    case 'vulnerability_unresolved':
      return aPackage({ vulnerabilities: [aVulnerability()] });
    case 'vulnerability_stale':
      return aPackage({ vulnerabilities: [aVulnerability({ riskScore: 9.5, linkedDate: ago(45) })] });
  }
}

const times = <T>(count: number, make: () => T): T[] => Array.from({ length: count }, make);

/** Evaluates `type` alone (the only active rule) and answers its result. */
function evaluateOne(type: RuleType, packages: readonly PackageFacts[], options: Partial<RuleConfig> = {}, now = NOW): RuleResult {
  const config: PolicyConfig = { [type]: { is_active: true, threshold: 0, parameters: {}, ...options } };
  const results = evaluateRules(config, packages, now);
  expect(results.map((result) => result.type)).toEqual([type]);
  return results[0]!;
}

const offenderUuids = (result: RuleResult) => result.offenders.map((offender) => offender.uuid).sort();
const uuids = (packages: readonly PackageFacts[]) => packages.map((pkg) => pkg.uuid).sort();

// ---------------------------------------------------------------------------------------------
// The rule types: labels, severities, descriptions and parameters, literally

/** Each rule type's label, severity, description (first sentence of what it detects), parameters. */
const SPEC_RULES: readonly [RuleType, string, 'error' | 'warning', string, Record<string, { type: 'score' | 'days' | 'categories'; default?: number }>][] = [
  ['usage_policy_error', 'Usage Policy Error', 'error', 'Packages assigned a usage policy flagged with an error compliance alert.', {}],
  ['usage_policy_warning', 'Usage Policy Warning', 'warning', 'Packages assigned a usage policy flagged with a warning compliance alert.', {}],
  // The license policy rules also take the categories that count as flagged.
  ['license_policy_error', 'License Policy Error', 'error', 'Packages whose licenses are assigned a usage policy flagged with an error compliance alert.', { categories: { type: 'categories' } }],
  ['license_policy_warning', 'License Policy Warning', 'warning', 'Packages whose licenses are assigned a usage policy flagged with a warning compliance alert.', { categories: { type: 'categories' } }],
  ['license_coverage_gap', 'License Coverage Gap', 'warning', 'Packages with no license expression.', {}],
  ['vulnerability_detected', 'Vulnerability Detected', 'error', 'Packages with at least one known vulnerability.', { min_risk_score: { type: 'score' } }],
  ['vulnerability_unresolved', 'Vulnerability Unresolved', 'warning', 'Packages with known vulnerabilities that have no completed triage analysis.', {}],
  [
    'vulnerability_stale',
    'Vulnerability Stale',
    'error',
    'Packages with high-risk vulnerabilities unaddressed for more than a configurable number of days.',
    { max_days: { type: 'days', default: 30 }, min_risk_score: { type: 'score', default: 8.0 } },
  ],
  // The ninth, after the eight original rule types.
  ['license_unknown', 'License Unknown', 'warning', 'Packages whose license expression contains an unknown license.', {}],
];

describe('the nine rule types: labels, severities, descriptions and parameters', () => {
  it('are the eight original rule types, in their order, then license_unknown', () => {
    expect(RULE_TYPES).toEqual(SPEC_RULES.map(([type]) => type));
    expect(Object.keys(RULES).sort()).toEqual(SPEC_RULES.map(([type]) => type).sort());
  });

  it.each(SPEC_RULES)('%s is labelled %j, severity %s, with its description and parameters', (type, label, severity, description, parameters) => {
    expect(RULES[type]).toEqual({ type, label, description, severity, parameters });
  });

  it('the terminal analysis states are resolved, resolved_with_pedigree and not_affected (false_positive is not)', () => {
    expect([...TERMINAL_STATES].sort()).toEqual(['not_affected', 'resolved', 'resolved_with_pedigree']);
    expect(TERMINAL_STATES).not.toContain('false_positive');
  });
});

// ---------------------------------------------------------------------------------------------
// Threshold and counting

describe('threshold: a violation is recorded only when the count strictly exceeds it', () => {
  const rows = RULE_TYPES.flatMap((type) =>
    (
      [
        // threshold, offenders, expected triggered
        [0, 0, false],
        [0, 1, true],
        [2, 2, false],
        [2, 3, true],
        [5, 5, false],
        [5, 6, true],
      ] as const
    ).map(([threshold, offenders, triggered]) => [type, threshold, offenders, triggered] as const),
  );

  it.each(rows)('%s with threshold %i and %i offending packages → triggered %s', (type, threshold, offenderCount, triggered) => {
    const offenders = times(offenderCount, () => anOffender(type));
    const clean = times(3, () => aPackage());
    const result = evaluateOne(type, [...clean.slice(0, 2), ...offenders, ...clean.slice(2)], { threshold });
    expect(result).toMatchObject({ type, count: offenderCount, triggered });
    expect(offenderUuids(result)).toEqual(uuids(offenders));
  });
});

describe('violation_count is the number of distinct packages', () => {
  it('a package with two error licenses counts once for license_policy_error', () => {
    const pkg = aPackage({ licenses: [aLicense('error', 'gpl-3.0'), aLicense('error', 'agpl-3.0'), aLicense('', 'mit')] });
    const result = evaluateOne('license_policy_error', [pkg, aPackage()]);
    expect(result.count).toBe(1);
    expect(result.offenders).toEqual([
      {
        uuid: pkg.uuid,
        purl: pkg.purl,
        reasons: ['agpl-3.0', 'gpl-3.0'],
        license: { expression: 'gpl-3.0 AND agpl-3.0 AND mit', concluded: false, noCompliantChoice: false },
      },
    ]);
  });

  it('two error licenses on one package do not exceed a threshold of 1', () => {
    const pkg = aPackage({ licenses: [aLicense('error'), aLicense('error')] });
    expect(evaluateOne('license_policy_error', [pkg], { threshold: 1 })).toMatchObject({ count: 1, triggered: false });
  });

  it('a package with an error and a warning license counts for both license rules', () => {
    const pkg = aPackage({ licenses: [aLicense('error', 'gpl-3.0'), aLicense('warning', 'lgpl-2.1')] });
    const config: PolicyConfig = {
      license_policy_error: { is_active: true, threshold: 0, parameters: {} },
      license_policy_warning: { is_active: true, threshold: 0, parameters: {} },
    };
    const results = evaluateRules(config, [pkg, aPackage()], NOW);
    const byType = new Map(results.map((result) => [result.type, result]));
    expect(byType.get('license_policy_error')).toMatchObject({ count: 1, triggered: true, offenders: [{ uuid: pkg.uuid, reasons: ['gpl-3.0'] }] });
    expect(byType.get('license_policy_warning')).toMatchObject({ count: 1, triggered: true, offenders: [{ uuid: pkg.uuid, reasons: ['lgpl-2.1'] }] });
  });

  it.each(['vulnerability_detected', 'vulnerability_unresolved', 'vulnerability_stale'] as const)(
    'a package with three qualifying vulnerabilities counts once for %s',
    (type) => {
      const vulnerabilities = times(3, () => aVulnerability({ riskScore: 9.0, linkedDate: ago(60) }));
      const pkg = aPackage({ vulnerabilities });
      const result = evaluateOne(type, [pkg, anOffender(type), aPackage()], { threshold: 1 });
      expect(result).toMatchObject({ count: 2, triggered: true });
      expect(result.offenders.find((offender) => offender.uuid === pkg.uuid)?.reasons).toEqual(vulnerabilities.map((v) => v.id).sort());
    },
  );
});

// ---------------------------------------------------------------------------------------------
// Each rule's condition

describe('usage_policy_error / usage_policy_warning: the package’s own usage policy alert', () => {
  it.each([
    // package alert, license alert, counts for usage_policy_error, counts for usage_policy_warning
    ['error', '', true, false],
    ['warning', '', false, true],
    ['', '', false, false],
    ['', 'error', false, false],
    ['', 'warning', false, false],
    ['warning', 'error', false, true],
  ] as const)('package alert %j (license alert %j) → error %s, warning %s', (packageAlert, licenseAlert, error, warning) => {
    const pkg = aPackage({ usagePolicyAlert: packageAlert, licenses: [aLicense(licenseAlert)] });
    expect(evaluateOne('usage_policy_error', [pkg]).count).toBe(error ? 1 : 0);
    expect(evaluateOne('usage_policy_warning', [pkg]).count).toBe(warning ? 1 : 0);
  });
});

describe('license_policy_error / license_policy_warning: any license of the expression', () => {
  it.each([
    // license alerts, package alert, error, warning
    [['error'], '', true, false],
    [['warning'], '', false, true],
    [[''], '', false, false],
    [['', ''], 'error', false, false],
    [[], 'warning', false, false],
    [['', 'error'], '', true, false],
    [['', 'warning', ''], '', false, true],
    [['warning', 'error'], '', true, true],
  ] as const)('license alerts %j (package alert %j) → error %s, warning %s', (alerts, packageAlert, error, warning) => {
    const pkg = aPackage({ usagePolicyAlert: packageAlert, licenses: alerts.map((alert) => aLicense(alert)) });
    expect(evaluateOne('license_policy_error', [pkg]).count).toBe(error ? 1 : 0);
    expect(evaluateOne('license_policy_warning', [pkg]).count).toBe(warning ? 1 : 0);
  });
});

describe('license_coverage_gap: packages with no license expression', () => {
  it.each([
    ['', [], [], 1],
    ['mit', [aLicense('', 'mit')], [], 0],
    ['gpl-3.0', [aLicense('error', 'gpl-3.0')], [], 0],
    // Free text kept as an unknown license is a license statement: not a gap (license_unknown tells it).
    ['unknown-license-reference', [aLicense('', 'unknown-license-reference', 'Unstated License')], ['SEE LICENSE IN LICENSE.md'], 0],
  ] as const)('expression %j → count %i', (licenseExpression, licenses, unknownLicenses, count) => {
    const result = evaluateOne('license_coverage_gap', [aPackage({ licenseExpression, licenses: [...licenses], unknownLicenses })]);
    expect(result).toMatchObject({ count, triggered: count > 0 });
  });
});

describe('vulnerability_detected: any vulnerability, or those scoring at least min_risk_score', () => {
  it.each([
    // min_risk_score (undefined: not set), scores of the package's vulnerabilities, counted
    [undefined, [], false],
    [undefined, [0.0], true],
    [undefined, [null], true],
    [undefined, [9.8], true],
    [7.0, [7.0], true],
    [7.0, [6.9], false],
    [7.0, [null], false],
    [7.0, [6.9, null, 7.0], true],
    [0.0, [null], false],
    [0.0, [0.0], true],
    [10.0, [10.0], true],
    [10.0, [9.9], false],
    [5.5, [5.5], true],
    [5.5, [5.4], false],
  ] as const)('min_risk_score %s with scores %j → counted %s', (minimum, scores, counted) => {
    const pkg = aPackage({ vulnerabilities: scores.map((riskScore) => aVulnerability({ riskScore })) });
    const parameters: Record<string, number> = minimum === undefined ? {} : { min_risk_score: minimum };
    expect(evaluateOne('vulnerability_detected', [pkg], { parameters })).toMatchObject({ count: counted ? 1 : 0, triggered: counted });
  });

  it('names only the vulnerabilities that reach the minimum', () => {
    const low = aVulnerability({ riskScore: 6.9 });
    const unscored = aVulnerability({ riskScore: null });
    const high = aVulnerability({ riskScore: 7.0 });
    const result = evaluateOne('vulnerability_detected', [aPackage({ vulnerabilities: [low, unscored, high] })], { parameters: { min_risk_score: 7.0 } });
    expect(result.offenders.map((offender) => offender.reasons)).toEqual([[high.id]]);
  });
});

describe('vulnerability_unresolved: no analysis in a terminal state for this product', () => {
  const rows: [AnalysisState | null, boolean][] = [
    ['resolved', false],
    ['resolved_with_pedigree', false],
    ['not_affected', false],
    ['exploitable', true],
    ['in_triage', true],
    ['false_positive', true],
    [null, true],
  ];

  it('covers every analysis state', () => {
    expect(rows.map(([state]) => state).filter((state) => state !== null).sort()).toEqual([...ANALYSIS_STATES].sort());
  });

  it.each(rows)('analysis %s → counted %s', (analysisState, counted) => {
    const pkg = aPackage({ vulnerabilities: [aVulnerability({ analysisState })] });
    expect(evaluateOne('vulnerability_unresolved', [pkg])).toMatchObject({ count: counted ? 1 : 0, triggered: counted });
  });

  it.each(rows)('analysis %s with an unscored, old vulnerability → counted %s (score and age do not matter)', (analysisState, counted) => {
    const pkg = aPackage({ vulnerabilities: [aVulnerability({ analysisState, riskScore: null, linkedDate: ago(400) })] });
    expect(evaluateOne('vulnerability_unresolved', [pkg]).count).toBe(counted ? 1 : 0);
  });

  it('a package with one resolved and one in-triage vulnerability is counted, for the in-triage one', () => {
    const done = aVulnerability({ analysisState: 'resolved' });
    const open = aVulnerability({ analysisState: 'in_triage' });
    const result = evaluateOne('vulnerability_unresolved', [aPackage({ vulnerabilities: [done, open] })]);
    expect(result.offenders.map((offender) => offender.reasons)).toEqual([[open.id]]);
  });
});

describe('vulnerability_stale: scoring ≥ min_risk_score, linked more than max_days ago, no terminal analysis', () => {
  describe('with the defaults (min_risk_score 8.0, max_days 30)', () => {
    it.each([
      // linked (days ago, extra ms), score, analysis, stale
      ['exactly 30 days', ago(30), 9.0, null, false],
      ['30 days + 1 ms', ago(30, 1), 9.0, null, true],
      ['31 days', ago(31), 9.0, null, true],
      ['29 days', ago(29), 9.0, null, false],
      ['30 days − 1 ms', ago(30, -1), 9.0, null, false],
      ['31 days, score 7.9', ago(31), 7.9, null, false],
      ['31 days, score 8.0', ago(31), 8.0, null, true],
      ['31 days, score 10.0', ago(31), 10.0, null, true],
      ['31 days, unscored', ago(31), null, null, false],
      ['31 days, resolved', ago(31), 9.0, 'resolved', false],
      ['31 days, resolved_with_pedigree', ago(31), 9.0, 'resolved_with_pedigree', false],
      ['31 days, not_affected', ago(31), 9.0, 'not_affected', false],
      ['31 days, exploitable', ago(31), 9.0, 'exploitable', true],
      ['31 days, in_triage', ago(31), 9.0, 'in_triage', true],
      ['31 days, false_positive', ago(31), 9.0, 'false_positive', true],
    ] as const)('linked %s ago (score %s, analysis %s) → stale %s', (_, linkedDate, riskScore, analysisState, stale) => {
      const pkg = aPackage({ vulnerabilities: [aVulnerability({ linkedDate, riskScore, analysisState })] });
      expect(evaluateOne('vulnerability_stale', [pkg])).toMatchObject({ count: stale ? 1 : 0, triggered: stale });
    });
  });

  describe('with custom parameters', () => {
    it.each([
      // parameters, linked, score, stale
      [{ max_days: 7, min_risk_score: 5.0 }, ago(7), 5.0, false],
      [{ max_days: 7, min_risk_score: 5.0 }, ago(7, 1), 5.0, true],
      [{ max_days: 7, min_risk_score: 5.0 }, ago(8), 5.0, true],
      [{ max_days: 7, min_risk_score: 5.0 }, ago(8), 4.9, false],
      [{ max_days: 7, min_risk_score: 5.0 }, ago(20), 7.9, true],
      [{ max_days: 7, min_risk_score: 5.0 }, ago(6), 10.0, false],
      // only max_days given: min_risk_score stays 8.0
      [{ max_days: 7 }, ago(8), 7.9, false],
      [{ max_days: 7 }, ago(8), 8.0, true],
      // only min_risk_score given: max_days stays 30
      [{ min_risk_score: 5.0 }, ago(30), 6.0, false],
      [{ min_risk_score: 5.0 }, ago(31), 6.0, true],
      [{ min_risk_score: 5.0 }, ago(31), 4.9, false],
      // min_risk_score 0 still excludes unscored vulnerabilities
      [{ min_risk_score: 0 }, ago(31), null, false],
      [{ min_risk_score: 0 }, ago(31), 0, true],
    ] as const)('%j, linked at %s, score %s → stale %s', (parameters, linkedDate, riskScore, stale) => {
      const pkg = aPackage({ vulnerabilities: [aVulnerability({ linkedDate, riskScore })] });
      expect(evaluateOne('vulnerability_stale', [pkg], { parameters })).toMatchObject({ count: stale ? 1 : 0, triggered: stale });
    });
  });

  it('ages against the `now` it is given, not the clock', () => {
    const linkedDate = '2024-01-01T00:00:00.000Z';
    const pkg = aPackage({ vulnerabilities: [aVulnerability({ linkedDate, riskScore: 9.0 })] });
    const at = (days: number, ms = 0) => new Date(Date.parse(linkedDate) + days * DAY_MS + ms);
    expect(evaluateOne('vulnerability_stale', [pkg], {}, at(30)).count).toBe(0);
    expect(evaluateOne('vulnerability_stale', [pkg], {}, at(30, 1)).count).toBe(1);
    expect(evaluateOne('vulnerability_stale', [pkg], {}, at(31)).count).toBe(1);
  });

  it('names only the stale vulnerabilities', () => {
    const fresh = aVulnerability({ riskScore: 9.0, linkedDate: ago(10) });
    const stale = aVulnerability({ riskScore: 9.0, linkedDate: ago(40) });
    const triaged = aVulnerability({ riskScore: 9.0, linkedDate: ago(40), analysisState: 'not_affected' });
    const result = evaluateOne('vulnerability_stale', [aPackage({ vulnerabilities: [fresh, stale, triaged] })]);
    expect(result.offenders.map((offender) => offender.reasons)).toEqual([[stale.id]]);
  });
});

// ---------------------------------------------------------------------------------------------
// Inactive and omitted rules

describe('rules omitted or without is_active true are not evaluated', () => {
  const everyOffender = () => RULE_TYPES.map(anOffender);

  it('an empty configuration evaluates nothing', () => {
    expect(evaluateRules({}, everyOffender(), NOW)).toEqual([]);
  });

  it.each(RULE_TYPES)('%s with is_active false gives no result', (type) => {
    const config: PolicyConfig = { [type]: { is_active: false, threshold: 0, parameters: {} } };
    expect(evaluateRules(config, everyOffender(), NOW)).toEqual([]);
  });

  it.each(RULE_TYPES)('with only %s active, only %s is evaluated', (type) => {
    const config: PolicyConfig = Object.fromEntries(RULE_TYPES.map((other) => [other, { is_active: other === type, threshold: 0, parameters: {} }]));
    const results = evaluateRules(config, everyOffender(), NOW);
    expect(results.map((result) => result.type)).toEqual([type]);
    expect(results[0]?.triggered).toBe(true);
  });

  it('every active rule gives one result, triggered or not', () => {
    const config: PolicyConfig = {
      usage_policy_error: { is_active: true, threshold: 0, parameters: {} },
      license_coverage_gap: { is_active: true, threshold: 0, parameters: {} },
      vulnerability_stale: { is_active: false, threshold: 0, parameters: {} },
    };
    const results = evaluateRules(config, [anOffender('usage_policy_error'), aPackage()], NOW);
    expect(results.map((result) => [result.type, result.count, result.triggered]).sort()).toEqual([
      ['license_coverage_gap', 0, false],
      ['usage_policy_error', 1, true],
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// Configuration

describe('checkConfig: the configuration object (rule type → options), validated strictly', () => {
  it('accepts an empty configuration', () => {
    expect(checkConfig({})).toEqual({ ok: true, config: {} });
  });

  it('fills is_active false, threshold 0 and no parameters for a rule given as {}', () => {
    expect(checkConfig({ usage_policy_error: {} })).toEqual({
      ok: true,
      config: { usage_policy_error: { is_active: false, threshold: 0, parameters: {} } },
    });
  });

  it('keeps every valid option and parameter as given', () => {
    expect(
      checkConfig({
        license_policy_warning: { is_active: true },
        vulnerability_detected: { is_active: true, threshold: 3, parameters: { min_risk_score: 7.5 } },
        vulnerability_stale: { is_active: false, threshold: 0, parameters: { max_days: 7, min_risk_score: 5.0 } },
      }),
    ).toEqual({
      ok: true,
      config: {
        license_policy_warning: { is_active: true, threshold: 0, parameters: {} },
        vulnerability_detected: { is_active: true, threshold: 3, parameters: { min_risk_score: 7.5 } },
        vulnerability_stale: { is_active: false, threshold: 0, parameters: { max_days: 7, min_risk_score: 5.0 } },
      },
    });
  });

  it.each([
    ['min_risk_score 0.0', { vulnerability_detected: { parameters: { min_risk_score: 0.0 } } }],
    ['min_risk_score 10.0', { vulnerability_detected: { parameters: { min_risk_score: 10.0 } } }],
    ['min_risk_score 8 (an integer is a float)', { vulnerability_stale: { parameters: { min_risk_score: 8 } } }],
    ['max_days 1', { vulnerability_stale: { parameters: { max_days: 1 } } }],
    ['threshold 0', { usage_policy_error: { threshold: 0 } }],
    ['threshold 1000', { usage_policy_error: { threshold: 1000 } }],
    ['is_active true with empty parameters', { license_coverage_gap: { is_active: true, parameters: {} } }],
  ])('accepts the boundary: %s', (_, raw) => {
    expect(checkConfig(raw)).toMatchObject({ ok: true });
  });

  const S = 'vulnerability_stale';
  const D = 'vulnerability_detected';
  it.each([
    ['unknown rule type', { no_such_rule: { is_active: true } }, ['no_such_rule']],
    ['unknown option', { usage_policy_error: { is_active: true, severity: 'error' } }, ['usage_policy_error.severity']],
    ['unknown parameter on a rule that takes none', { usage_policy_error: { parameters: { min_risk_score: 5 } } }, ['usage_policy_error.parameters.min_risk_score']],
    ['unknown parameter on license_coverage_gap', { license_coverage_gap: { parameters: { max_days: 5 } } }, ['license_coverage_gap.parameters.max_days']],
    ['max_days on vulnerability_detected', { [D]: { parameters: { max_days: 5 } } }, [`${D}.parameters.max_days`]],
    ['unknown parameter on vulnerability_stale', { [S]: { parameters: { days: 5 } } }, [`${S}.parameters.days`]],
    ['threshold -1', { usage_policy_error: { threshold: -1 } }, ['usage_policy_error.threshold']],
    ['threshold 1.5', { usage_policy_error: { threshold: 1.5 } }, ['usage_policy_error.threshold']],
    ['threshold "2"', { usage_policy_error: { threshold: '2' } }, ['usage_policy_error.threshold']],
    ['threshold null', { license_policy_error: { threshold: null } }, ['license_policy_error.threshold']],
    ['threshold true', { license_policy_error: { threshold: true } }, ['license_policy_error.threshold']],
    ['vulnerability_detected score -0.1', { [D]: { parameters: { min_risk_score: -0.1 } } }, [`${D}.parameters.min_risk_score`]],
    ['vulnerability_detected score 10.1', { [D]: { parameters: { min_risk_score: 10.1 } } }, [`${D}.parameters.min_risk_score`]],
    ['vulnerability_detected score "8"', { [D]: { parameters: { min_risk_score: '8' } } }, [`${D}.parameters.min_risk_score`]],
    ['vulnerability_detected score null', { [D]: { parameters: { min_risk_score: null } } }, [`${D}.parameters.min_risk_score`]],
    ['vulnerability_stale score -0.1', { [S]: { parameters: { min_risk_score: -0.1 } } }, [`${S}.parameters.min_risk_score`]],
    ['vulnerability_stale score 10.1', { [S]: { parameters: { min_risk_score: 10.1 } } }, [`${S}.parameters.min_risk_score`]],
    ['vulnerability_stale score "8"', { [S]: { parameters: { min_risk_score: '8' } } }, [`${S}.parameters.min_risk_score`]],
    ['max_days 0', { [S]: { parameters: { max_days: 0 } } }, [`${S}.parameters.max_days`]],
    ['max_days 2.5', { [S]: { parameters: { max_days: 2.5 } } }, [`${S}.parameters.max_days`]],
    ['max_days -1', { [S]: { parameters: { max_days: -1 } } }, [`${S}.parameters.max_days`]],
    ['max_days "30"', { [S]: { parameters: { max_days: '30' } } }, [`${S}.parameters.max_days`]],
    ['is_active "yes"', { usage_policy_warning: { is_active: 'yes' } }, ['usage_policy_warning.is_active']],
    ['is_active 1', { usage_policy_warning: { is_active: 1 } }, ['usage_policy_warning.is_active']],
    ['is_active null', { usage_policy_warning: { is_active: null } }, ['usage_policy_warning.is_active']],
    ['options a string', { usage_policy_error: 'yes' }, ['usage_policy_error']],
    ['options true', { usage_policy_error: true }, ['usage_policy_error']],
    ['options null', { usage_policy_error: null }, ['usage_policy_error']],
    ['options an array', { usage_policy_error: [] }, ['usage_policy_error']],
    ['options a number', { usage_policy_error: 5 }, ['usage_policy_error']],
    ['parameters an array', { [S]: { parameters: [] } }, [`${S}.parameters`]],
    ['parameters a number', { [S]: { parameters: 30 } }, [`${S}.parameters`]],
    ['parameters null', { [S]: { parameters: null } }, [`${S}.parameters`]],
    ['root null', null, ['non_field_errors']],
    ['root an array', [], ['non_field_errors']],
    ['root a string', 'usage_policy_error', ['non_field_errors']],
    ['root a number', 5, ['non_field_errors']],
    [
      'several problems at once, all named',
      {
        bogus: {},
        usage_policy_error: { is_active: 'yes', threshold: -1 },
        [S]: { parameters: { max_days: 0, min_risk_score: 11 } },
        license_coverage_gap: { is_active: true },
      },
      ['bogus', 'usage_policy_error.is_active', 'usage_policy_error.threshold', `${S}.parameters.max_days`, `${S}.parameters.min_risk_score`],
    ],
  ] as const)('refuses %s, naming %j, and keeps nothing', (_, raw, keys) => {
    const checked = checkConfig(raw);
    expect(checked.ok).toBe(false);
    expect('config' in checked).toBe(false);
    if (checked.ok) return;
    expect(Object.keys(checked.errors).sort()).toEqual([...keys].sort());
    for (const messages of Object.values(checked.errors)) {
      expect(messages.length).toBeGreaterThan(0);
      for (const message of messages) expect(message).toEqual(expect.stringMatching(/\S/));
    }
  });
});

describe('effectiveConfig: defaults filled in (inactive, threshold 0, parameter defaults)', () => {
  it.each(SPEC_RULES.map(([type]) => type))('%s, not configured: inactive, threshold 0, default parameters only (categories has none)', (type) => {
    const parameters = type === 'vulnerability_stale' ? { max_days: 30, min_risk_score: 8.0 } : {};
    expect(effectiveConfig({}, type)).toEqual({ is_active: false, threshold: 0, parameters });
  });

  it.each([
    ['vulnerability_stale', {}, { max_days: 30, min_risk_score: 8.0 }],
    ['vulnerability_stale', { max_days: 7 }, { max_days: 7, min_risk_score: 8.0 }],
    ['vulnerability_stale', { min_risk_score: 5.0 }, { max_days: 30, min_risk_score: 5.0 }],
    ['vulnerability_stale', { max_days: 7, min_risk_score: 5.0 }, { max_days: 7, min_risk_score: 5.0 }],
    ['vulnerability_detected', {}, {}],
    ['vulnerability_detected', { min_risk_score: 6.5 }, { min_risk_score: 6.5 }],
    ['vulnerability_detected', { min_risk_score: 0 }, { min_risk_score: 0 }],
  ] as const)('%s with parameters %j → %j', (type, given, parameters) => {
    const config: PolicyConfig = { [type]: { is_active: true, threshold: 4, parameters: given } };
    expect(effectiveConfig(config, type)).toEqual({ is_active: true, threshold: 4, parameters });
  });

  it('a configuration checked by checkConfig gets its defaults', () => {
    const checked = checkConfig({ vulnerability_stale: { is_active: true }, vulnerability_detected: { is_active: true } });
    if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
    expect(effectiveConfig(checked.config, 'vulnerability_stale')).toEqual({ is_active: true, threshold: 0, parameters: { max_days: 30, min_risk_score: 8.0 } });
    expect(effectiveConfig(checked.config, 'vulnerability_detected')).toEqual({ is_active: true, threshold: 0, parameters: {} });
    expect(effectiveConfig(checked.config, 'usage_policy_error')).toEqual({ is_active: false, threshold: 0, parameters: {} });
  });
});

// ---------------------------------------------------------------------------------------------
// The violation lifecycle: detected, active, resolved, re-activated

const EARLIER = '2024-05-01T08:30:00.000+00:00';
const RESOLVED_AT = '2024-05-20T10:00:00.000+00:00';

function aViolation(overrides: Partial<Violation> = {}): Violation {
  return { ruleType: 'usage_policy_error', count: 2, detectedDate: EARLIER, resolvedDate: null, lastEvaluatedAt: EARLIER, ...overrides };
}

function aResult(type: RuleType, count: number, triggered: boolean): RuleResult {
  return { type, count, triggered, offenders: [] };
}

const isNow = (timestamp: string | null | undefined) => typeof timestamp === 'string' && Date.parse(timestamp) === NOW.getTime();
const ISO_8601 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

describe('reconcile: each step of the violation lifecycle', () => {
  type Expected = { write: 'none' | 'detected' | 'updated' | 'resolved' | 'reactivated' };
  const rows: [string, Violation | null, RuleResult | null, number, Expected['write']][] = [
    ['(none) → Detected: first trigger', null, aResult('usage_policy_error', 3, true), 3, 'detected'],
    ['(none), not triggered: nothing recorded', null, aResult('usage_policy_error', 1, false), 0, 'none'],
    ['(none), rule off: nothing recorded', null, null, 0, 'none'],
    ['Active → Active: still triggered, same count, no write', aViolation({ count: 2 }), aResult('usage_policy_error', 2, true), 2, 'none'],
    ['Active → Active: count changed, written, detected_date kept', aViolation({ count: 2 }), aResult('usage_policy_error', 5, true), 5, 'updated'],
    ['Active → Resolved: condition no longer holds (count 0)', aViolation(), aResult('usage_policy_error', 0, false), 2, 'resolved'],
    ['Active → Resolved: count fell to the threshold', aViolation(), aResult('usage_policy_error', 1, false), 2, 'resolved'],
    ['Active → Resolved: rule switched off or removed (no result)', aViolation(), null, 2, 'resolved'],
    ['Resolved → Re-activated: condition recurs', aViolation({ resolvedDate: RESOLVED_AT, lastEvaluatedAt: RESOLVED_AT }), aResult('usage_policy_error', 4, true), 4, 'reactivated'],
    ['Resolved, still not triggered: no write', aViolation({ resolvedDate: RESOLVED_AT, lastEvaluatedAt: RESOLVED_AT }), aResult('usage_policy_error', 0, false), 2, 'none'],
    ['Resolved, rule off: no write', aViolation({ resolvedDate: RESOLVED_AT, lastEvaluatedAt: RESOLVED_AT }), null, 2, 'none'],
  ];

  it.each(rows)('%s', (_, before, result, count, write) => {
    const outcome = reconcile(before ? [before] : [], result ? [result] : [], NOW);

    if (write === 'none') {
      expect(outcome).toEqual({ writes: [], detected: [], resolved: [] });
      return;
    }
    expect(outcome.writes).toHaveLength(1);
    const written = outcome.writes[0]!;
    expect(written.ruleType).toBe('usage_policy_error');
    expect(written.count).toBe(count);
    expect(isNow(written.lastEvaluatedAt)).toBe(true);
    expect(written.lastEvaluatedAt).toMatch(ISO_8601);

    switch (write) {
      case 'detected':
        expect(isNow(written.detectedDate)).toBe(true);
        expect(written.detectedDate).toMatch(ISO_8601);
        expect(written.resolvedDate).toBeNull();
        expect(outcome.detected).toEqual([{ violation: written, reactivated: false }]);
        expect(outcome.resolved).toEqual([]);
        break;
      case 'updated':
        expect(written.detectedDate).toBe(EARLIER);
        expect(written.resolvedDate).toBeNull();
        expect(outcome.detected).toEqual([]);
        expect(outcome.resolved).toEqual([]);
        break;
      case 'resolved':
        expect(written.detectedDate).toBe(EARLIER);
        expect(isNow(written.resolvedDate)).toBe(true);
        expect(written.resolvedDate).toMatch(ISO_8601);
        expect(outcome.detected).toEqual([]);
        expect(outcome.resolved).toEqual([written]);
        break;
      case 'reactivated':
        expect(written.detectedDate).toBe(EARLIER);
        expect(written.resolvedDate).toBeNull();
        expect(outcome.detected).toEqual([{ violation: written, reactivated: true }]);
        expect(outcome.resolved).toEqual([]);
        break;
    }
  });

  it('handles every rule independently in one run', () => {
    const existing = [
      aViolation({ ruleType: 'usage_policy_error', count: 1 }), // stays, same count
      aViolation({ ruleType: 'license_policy_error', count: 1 }), // count changes
      aViolation({ ruleType: 'vulnerability_stale', count: 3 }), // rule off → resolved
      aViolation({ ruleType: 'license_coverage_gap', count: 2, resolvedDate: RESOLVED_AT }), // recurs
      aViolation({ ruleType: 'vulnerability_unresolved', count: 2, resolvedDate: RESOLVED_AT }), // stays resolved
      aViolation({ ruleType: 'usage_policy_warning', count: 4 }), // no longer triggered
    ];
    const results = [
      aResult('usage_policy_error', 1, true),
      aResult('license_policy_error', 2, true),
      aResult('license_coverage_gap', 5, true),
      aResult('vulnerability_unresolved', 0, false),
      aResult('usage_policy_warning', 0, false),
      aResult('vulnerability_detected', 7, true), // new
    ];
    const outcome = reconcile(existing, results, NOW);
    const writes = new Map(outcome.writes.map((violation) => [violation.ruleType, violation]));
    expect([...writes.keys()].sort()).toEqual(['license_coverage_gap', 'license_policy_error', 'usage_policy_warning', 'vulnerability_detected', 'vulnerability_stale']);
    expect(outcome.writes).toHaveLength(5);
    expect(writes.get('license_policy_error')).toMatchObject({ count: 2, detectedDate: EARLIER, resolvedDate: null });
    expect(writes.get('license_coverage_gap')).toMatchObject({ count: 5, detectedDate: EARLIER, resolvedDate: null });
    expect(isNow(writes.get('vulnerability_detected')?.detectedDate)).toBe(true);
    expect(isNow(writes.get('vulnerability_stale')?.resolvedDate)).toBe(true);
    expect(isNow(writes.get('usage_policy_warning')?.resolvedDate)).toBe(true);
    expect(outcome.detected.map(({ violation, reactivated }) => [violation.ruleType, reactivated]).sort()).toEqual([
      ['license_coverage_gap', true],
      ['vulnerability_detected', false],
    ]);
    expect(outcome.resolved.map((violation) => violation.ruleType).sort()).toEqual(['usage_policy_warning', 'vulnerability_stale']);
  });

  it('evaluate → reconcile through a whole life: detected, resolved, re-activated with detected_date kept', () => {
    const config: PolicyConfig = { license_coverage_gap: { is_active: true, threshold: 0, parameters: {} } };
    const broken = aPackage({ licenses: [] });
    const fixed = { ...broken, licenseExpression: 'mit', licenses: [aLicense('', 'mit')] };
    const t1 = new Date('2024-06-01T00:00:00.000Z');
    const t2 = new Date('2024-06-02T00:00:00.000Z');
    const t3 = new Date('2024-06-03T00:00:00.000Z');

    const first = reconcile([], evaluateRules(config, [broken], t1), t1);
    expect(first.detected.map((d) => d.reactivated)).toEqual([false]);
    const v1 = first.writes[0]!;
    expect(Date.parse(v1.detectedDate)).toBe(t1.getTime());

    const second = reconcile([v1], evaluateRules(config, [fixed], t2), t2);
    const v2 = second.writes[0]!;
    expect(second.resolved).toEqual([v2]);
    expect(Date.parse(v2.resolvedDate ?? '')).toBe(t2.getTime());

    const third = reconcile([v2], evaluateRules(config, [broken], t3), t3);
    const v3 = third.writes[0]!;
    expect(third.detected).toEqual([{ violation: v3, reactivated: true }]);
    expect(v3).toMatchObject({ detectedDate: v1.detectedDate, resolvedDate: null, count: 1 });
  });
});

// ---------------------------------------------------------------------------------------------
// Ordering

describe('compareViolations: errors before warnings, then by label', () => {
  const sortTypes = (types: readonly RuleType[]) => [...types].map((ruleType) => ({ ruleType })).sort(compareViolations).map((v) => v.ruleType);

  it.each([
    ['as declared', [...RULE_TYPES]],
    ['reversed', [...RULE_TYPES].reverse()],
    ['shuffled', ['license_coverage_gap', 'vulnerability_stale', 'license_unknown', 'usage_policy_warning', 'license_policy_error', 'vulnerability_unresolved', 'usage_policy_error', 'license_policy_warning', 'vulnerability_detected'] as RuleType[]],
  ])('sorts all nine (%s) into the same order', (_, types) => {
    expect(sortTypes(types)).toEqual([
      'license_policy_error', // License Policy Error
      'usage_policy_error', // Usage Policy Error
      'vulnerability_detected', // Vulnerability Detected
      'vulnerability_stale', // Vulnerability Stale
      'license_coverage_gap', // License Coverage Gap
      'license_policy_warning', // License Policy Warning
      'license_unknown', // License Unknown
      'usage_policy_warning', // Usage Policy Warning
      'vulnerability_unresolved', // Vulnerability Unresolved
    ]);
  });

  it.each([
    // a, b, sign of compare(a, b)
    ['vulnerability_stale', 'license_coverage_gap', -1], // error before warning though its label sorts later
    ['license_coverage_gap', 'vulnerability_stale', 1],
    ['license_policy_error', 'usage_policy_error', -1], // both errors: by label
    ['vulnerability_unresolved', 'license_policy_warning', 1], // both warnings: by label
    ['vulnerability_detected', 'vulnerability_stale', -1],
    ['usage_policy_warning', 'usage_policy_warning', 0],
  ] as const)('compare(%s, %s) has sign %i', (a, b, sign) => {
    expect(Math.sign(compareViolations({ ruleType: a }, { ruleType: b }))).toBe(sign);
  });
});

describe('ruleReason', () => {
  const rule = (parameters: Record<string, number | string[]> = {}, threshold = 0) => ({ is_active: true, threshold, parameters });

  it('says why a license rule fires in the terms of its configuration: the alert, and the categories chosen', () => {
    expect(ruleReason('license_policy_error', rule())).toBe(
      'A license the package needs has a usage policy with the error compliance alert (a choice, OR, fires only when every option does).',
    );
    expect(ruleReason('license_policy_error', rule({ categories: ['Commercial', 'Proprietary Free'] }))).toContain(
      'the error compliance alert, or is in the categories Commercial and Proprietary Free',
    );
    expect(ruleReason('license_policy_warning', rule({ categories: ['Copyleft'] }))).toContain('the warning compliance alert, or is in the category Copyleft');
  });

  it('names the scores, days and threshold configured', () => {
    expect(ruleReason('vulnerability_detected', rule())).toBe('A package has a known vulnerability.');
    expect(ruleReason('vulnerability_detected', rule({ min_risk_score: 7 }, 2))).toBe(
      'A package has a known vulnerability with a risk score of 7 or more. It fires when more than 2 packages do.',
    );
    expect(ruleReason('vulnerability_stale', effectiveConfig({ vulnerability_stale: rule() }, 'vulnerability_stale'))).toContain('a risk score of 8 or more for more than 30 days');
    expect(ruleReason('usage_policy_warning', rule({}, 1))).toBe("A package's own usage policy has the warning compliance alert. It fires when more than 1 package does.");
  });

  it('has a reason for every rule type', () => {
    for (const type of RULE_TYPES) expect(ruleReason(type, effectiveConfig({}, type)).length, type).toBeGreaterThan(20);
  });
});
