/**
 * License expressions judged by their meaning: `A AND B` breaks a license rule when A or B is
 * flagged, `A OR B` only when every choice is, `A WITH E` when A or E is; a license is flagged by
 * its usage policy's alert or by the rule's `categories`; license_unknown; the concluded expression
 * is what the facts carry. Table-driven, pure.
 */
import { describe, expect, it } from 'vitest';
import type { ComplianceAlert } from '../../shared/domain/catalog.ts';
import {
  checkConfig,
  effectiveConfig,
  evaluateRules,
  judgeExpression,
  sameConfig,
  type LicenseFacts,
  type PackageFacts,
  type PolicyConfig,
  type RuleType,
} from '../../shared/domain/policy-rules.ts';
import { parseLicenseExpression } from '../../shared/domain/license-expression.ts';
import { REFERENCE_CATEGORIES } from '../../shared/domain/reference-license.ts';

const NOW = new Date('2026-03-01T12:00:00Z');

/** The dataspace of these tests: gpl-3.0 prohibited (error), lgpl-2.1 watched (warning), the rest without policy. */
const LICENSES: Record<string, { alert: ComplianceAlert; category: string }> = {
  mit: { alert: '', category: 'Permissive' },
  'apache-2.0': { alert: '', category: 'Permissive' },
  'gpl-3.0': { alert: 'error', category: 'Copyleft' },
  'agpl-3.0': { alert: 'error', category: 'Copyleft' },
  'gpl-2.0': { alert: '', category: 'Copyleft' },
  'lgpl-2.1': { alert: 'warning', category: 'Copyleft Limited' },
  'classpath-exception-2.0': { alert: '', category: 'Copyleft Limited' },
  'bad-exception': { alert: 'error', category: 'Copyleft Limited' },
  'acme-eula': { alert: '', category: 'Proprietary Free' },
  'unknown-license-reference': { alert: '', category: 'Unstated License' },
};

let sequence = 0;

/** A package whose (effective) expression is `expression`, its keys' facts from LICENSES. */
function aPackage(expression: string, overrides: Partial<PackageFacts> = {}): PackageFacts {
  const n = ++sequence;
  const parsed = parseLicenseExpression(expression);
  const keys = expression === '' ? [] : parsed.ok ? parsed.keys : [];
  return {
    uuid: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    purl: `pkg:npm/p${n}@1.0.0`,
    licenseExpression: expression,
    concluded: false,
    licenses: keys.map((key): LicenseFacts => ({ key, ...(LICENSES[key] ?? { alert: '', category: '' }) })),
    unknownLicenses: [],
    usagePolicyAlert: '',
    vulnerabilities: [],
    ...overrides,
  };
}

function run(type: RuleType, packages: PackageFacts[], parameters: PolicyConfig[RuleType] extends infer C ? (C extends { parameters: infer P } ? P : never) : never = {}) {
  const results = evaluateRules({ [type]: { is_active: true, threshold: 0, parameters } }, packages, NOW);
  return results[0]!;
}

describe('license_policy_error over AND, OR, WITH', () => {
  it.each([
    // expression, violates, reasons (the flagged licenses that caused it), no compliant choice
    ['gpl-3.0', true, ['gpl-3.0'], false],
    ['mit', false, [], false],
    ['mit AND gpl-3.0', true, ['gpl-3.0'], false],
    ['gpl-3.0 AND mit', true, ['gpl-3.0'], false],
    ['mit AND apache-2.0', false, [], false],
    ['mit OR gpl-3.0', false, [], false],
    ['gpl-3.0 OR mit', false, [], false],
    ['gpl-3.0 OR agpl-3.0', true, ['agpl-3.0', 'gpl-3.0'], true],
    ['gpl-3.0 OR agpl-3.0 OR mit', false, [], false],
    ['(mit OR gpl-3.0) AND apache-2.0', false, [], false],
    ['(mit OR gpl-3.0) AND agpl-3.0', true, ['agpl-3.0'], false],
    ['(gpl-3.0 OR agpl-3.0) AND mit', true, ['agpl-3.0', 'gpl-3.0'], true],
    ['mit OR (gpl-3.0 AND apache-2.0)', false, [], false],
    ['agpl-3.0 OR (gpl-3.0 AND apache-2.0)', true, ['agpl-3.0', 'gpl-3.0'], true],
    ['gpl-2.0 WITH classpath-exception-2.0', false, [], false],
    ['gpl-3.0 WITH classpath-exception-2.0', true, ['gpl-3.0'], false],
    ['gpl-2.0 WITH bad-exception', true, ['bad-exception'], false],
    ['mit OR gpl-2.0 WITH bad-exception', false, [], false],
    ['gpl-3.0 OR gpl-2.0 WITH bad-exception', true, ['bad-exception', 'gpl-3.0'], true],
    // a warning license is not an error
    ['lgpl-2.1', false, [], false],
  ] as const)('%s → violates %s, reasons %j, no compliant choice %s', (expression, violates, reasons, noChoice) => {
    const pkg = aPackage(expression);
    const result = run('license_policy_error', [pkg]);
    expect(result.count).toBe(violates ? 1 : 0);
    if (violates) {
      expect(result.offenders).toEqual([
        { uuid: pkg.uuid, purl: pkg.purl, reasons: [...reasons], license: { expression, concluded: false, noCompliantChoice: noChoice } },
      ]);
    }
  });

  it('license_policy_warning judges the same way with the warning alert', () => {
    expect(run('license_policy_warning', [aPackage('lgpl-2.1 OR mit')]).count).toBe(0);
    expect(run('license_policy_warning', [aPackage('lgpl-2.1 AND mit')]).offenders[0]?.reasons).toEqual(['lgpl-2.1']);
    expect(run('license_policy_warning', [aPackage('lgpl-2.1 OR gpl-3.0')]).count).toBe(0);
  });
});

describe('judgeExpression', () => {
  const flagged = (keys: string[]) => (key: string) => keys.includes(key);
  it.each([
    ['a', ['a'], true],
    ['a AND b AND c', ['c'], true],
    ['a OR b OR c', ['a', 'b'], false],
    ['a OR b OR c', ['a', 'b', 'c'], true],
    ['(a AND b) OR (c AND d)', ['a', 'd'], true],
    ['(a AND b) OR (c AND d)', ['a', 'b'], false],
    ['a WITH e OR b', ['e'], false],
    ['a WITH e OR b WITH f', ['e', 'f'], true],
  ])('%s with %j flagged → breaks %s', (text, keys, breaks) => {
    const parsed = parseLicenseExpression(text);
    if (!parsed.ok) throw new Error(parsed.error);
    expect(judgeExpression(parsed.expression, flagged(keys)).breaks).toBe(breaks);
  });
});

describe('categories: licenses of these categories count as flagged even without a usage policy', () => {
  it.each([
    // expression, categories, error rule counts it, reasons
    ['gpl-2.0', ['Copyleft'], true, ['gpl-2.0']],
    ['gpl-2.0', [], false, []],
    ['gpl-2.0', ['Copyleft Limited'], false, []],
    ['mit OR gpl-2.0', ['Copyleft'], false, []],
    ['mit AND gpl-2.0', ['Copyleft'], true, ['gpl-2.0']],
    ['gpl-2.0 OR lgpl-2.1', ['Copyleft', 'Copyleft Limited'], true, ['gpl-2.0', 'lgpl-2.1']],
    ['gpl-2.0 WITH classpath-exception-2.0', ['Copyleft Limited'], true, ['classpath-exception-2.0']],
    ['acme-eula', ['Proprietary Free'], true, ['acme-eula']],
    // the usage policy still flags on its own
    ['gpl-3.0', ['Proprietary Free'], true, ['gpl-3.0']],
    ['unknown-license-reference', ['Unstated License'], true, ['unknown-license-reference']],
  ] as const)('%s with categories %j → %s %j', (expression, categories, counted, reasons) => {
    const result = run('license_policy_error', [aPackage(expression)], { categories: [...categories] });
    expect(result.count).toBe(counted ? 1 : 0);
    expect(result.offenders.map((o) => o.reasons)).toEqual(counted ? [[...reasons]] : []);
  });

  it('a key whose category is unknown ("") is never flagged by categories', () => {
    const pkg = aPackage('foo', { licenses: [{ key: 'foo', alert: '', category: '' }] });
    expect(run('license_policy_error', [pkg], { categories: [...REFERENCE_CATEGORIES] }).count).toBe(0);
  });

  it('the warning rule has its own categories', () => {
    const config: PolicyConfig = {
      license_policy_error: { is_active: true, threshold: 0, parameters: { categories: ['Copyleft'] } },
      license_policy_warning: { is_active: true, threshold: 0, parameters: { categories: ['Copyleft Limited'] } },
    };
    const [error, warning] = evaluateRules(config, [aPackage('gpl-2.0'), aPackage('classpath-exception-2.0')], NOW);
    expect([error!.count, warning!.count]).toEqual([1, 1]);
    expect(error!.offenders[0]!.reasons).toEqual(['gpl-2.0']);
    expect(warning!.offenders[0]!.reasons).toEqual(['classpath-exception-2.0']);
  });
});

describe('license_unknown: the effective expression holds an unknown license', () => {
  it.each([
    ['unknown-license-reference', ['SEE LICENSE IN LICENSE.md'], true, ['SEE LICENSE IN LICENSE.md']],
    ['mit OR unknown-license-reference', ['LicenseRef-acme-internal'], true, ['LicenseRef-acme-internal']],
    ['unknown-license-reference AND mit', ['Foo', 'Bar'], true, ['Bar', 'Foo']],
    // the unknown key written as such: named by it
    ['unknown-license-reference', [], true, ['unknown-license-reference']],
    ['mit', [], false, []],
    ['', [], false, []],
  ] as const)('%s (unknown %j) → %s, reasons %j', (expression, unknownLicenses, counted, reasons) => {
    const result = run('license_unknown', [aPackage(expression, { unknownLicenses: [...unknownLicenses] })]);
    expect(result.count).toBe(counted ? 1 : 0);
    expect(result.offenders.map((o) => o.reasons)).toEqual(counted ? [[...reasons]] : []);
  });

  it('free text alone is a license statement: license_coverage_gap does not count it, license_unknown does', () => {
    const pkg = aPackage('unknown-license-reference', { unknownLicenses: ['SEE LICENSE IN LICENSE.md'] });
    const config: PolicyConfig = {
      license_coverage_gap: { is_active: true, threshold: 0, parameters: {} },
      license_unknown: { is_active: true, threshold: 0, parameters: {} },
    };
    expect(evaluateRules(config, [pkg], NOW).map((r) => [r.type, r.count])).toEqual([
      ['license_coverage_gap', 0],
      ['license_unknown', 1],
    ]);
  });
});

describe('the concluded expression is the one judged', () => {
  it('the facts carry it, and the drill-down says so', () => {
    // A GPL package concluded MIT for this product: not in violation; concluded GPL OR AGPL: in violation, no choice.
    expect(run('license_policy_error', [aPackage('mit', { concluded: true })]).count).toBe(0);
    const concluded = aPackage('gpl-3.0 OR agpl-3.0', { concluded: true });
    expect(run('license_policy_error', [concluded]).offenders[0]?.license).toEqual({ expression: 'gpl-3.0 OR agpl-3.0', concluded: true, noCompliantChoice: true });
  });
});

describe('the categories parameter is checked strictly', () => {
  it.each([
    [['Copyleft'], undefined],
    [[...REFERENCE_CATEGORIES], undefined],
    [[], undefined],
    ['Copyleft', 'Must be a list of license category names.'],
    [[1], 'Must be a list of license category names.'],
    [null, 'Must be a list of license category names.'],
    [['copyleft'], `Unknown category "copyleft"; choose from ${REFERENCE_CATEGORIES.join(', ')}.`],
    [['Copyleft', 'Viral', 'Nope'], `Unknown categories "Viral", "Nope"; choose from ${REFERENCE_CATEGORIES.join(', ')}.`],
    [['Copyleft', 'Copyleft'], '"Copyleft" listed twice.'],
    [[...REFERENCE_CATEGORIES, 'Copyleft'], `Ensure this list has no more than ${REFERENCE_CATEGORIES.length} items.`],
  ])('%j → %s', (categories, message) => {
    const checked = checkConfig({ license_policy_error: { is_active: true, parameters: { categories } } });
    if (message === undefined) {
      expect(checked).toEqual({ ok: true, config: { license_policy_error: { is_active: true, threshold: 0, parameters: { categories } } } });
    } else {
      expect(checked).toEqual({ ok: false, errors: { 'license_policy_error.parameters.categories': [message] } });
    }
  });

  it.each(['usage_policy_error', 'license_coverage_gap', 'license_unknown', 'vulnerability_detected'] as const)('%s takes no categories', (type) => {
    const checked = checkConfig({ [type]: { parameters: { categories: ['Copyleft'] } } });
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(Object.keys(checked.errors)).toEqual([`${type}.parameters.categories`]);
  });

  it('has no default, and compares as a set', () => {
    expect(effectiveConfig({}, 'license_policy_error')).toEqual({ is_active: false, threshold: 0, parameters: {} });
    const a: PolicyConfig = { license_policy_error: { is_active: true, threshold: 0, parameters: { categories: ['Copyleft', 'Commercial'] } } };
    const b: PolicyConfig = { license_policy_error: { is_active: true, threshold: 0, parameters: { categories: ['Commercial', 'Copyleft'] } } };
    const c: PolicyConfig = { license_policy_error: { is_active: true, threshold: 0, parameters: { categories: ['Copyleft'] } } };
    expect(sameConfig(a, b)).toBe(true);
    expect(sameConfig(a, c)).toBe(false);
    expect(sameConfig(a, { license_policy_error: { is_active: true, threshold: 0, parameters: {} } })).toBe(false);
  });
});

describe('the shipped reference library', async () => {
  const { scancodeLibrary } = await import('../../shared/reference/scancode-licensedb.ts');
  it('has exactly the categories the rules accept', () => {
    expect([...new Set(scancodeLibrary().all.map((license) => license.category))].sort()).toEqual([...REFERENCE_CATEGORIES].sort());
  });
});

describe('expressions as stored before they were canonical (lower-case operators, parentheses without spaces)', () => {
  it.each([
    ['mit or gpl-3.0', 0],
    ['(mit)or(gpl-3.0)', 0],
    ['gpl-3.0 and mit', 1],
    ['gpl-3.0 or agpl-3.0', 1],
  ])('%s → %i', (expression, count) => {
    expect(run('license_policy_error', [aPackage(expression)]).count).toBe(count);
  });
});
