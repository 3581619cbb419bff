/**
 * A dataspace's license mappings, as the domain reads them: what a mapping may say (checkMapping), what
 * it matches (the normalised text), which of its changes call for re-resolving packages, which
 * packages may hold its text, and that it applies before ScanCode's rules, to a package already stored
 * only through re-resolution, and never makes a known license unknown.
 */
import { describe, expect, it } from 'vitest';
import { buildLicenseIndex } from '../../shared/domain/license-index.ts';
import { checkMapping, holdsMappedText, mappingMatchKey, reresolutionTarget, type LicenseMapping } from '../../shared/domain/license-mapping.ts';
import { reresolution, resolveLicenseExpression } from '../../shared/domain/license-resolution.ts';
import { scancodeLibrary } from '../../shared/reference/scancode-licensedb.ts';
import { scancodeKnowledge } from '../../shared/reference/scancode-rules.ts';
import { shippedLicenseIndex } from '../../shared/reference/shipped-license-index.ts';

const library = scancodeLibrary();
const ownLicenses = [{ key: 'acme-eula', spdxLicenseKey: '' }];
const keysOnly = buildLicenseIndex(ownLicenses, library);

const aMapping = (text: string, licenseExpression: string, overrides: Partial<LicenseMapping> = {}): LicenseMapping => ({
  uuid: '7a2b0c4e-0000-4000-8000-000000000001',
  dataspace: 'acme',
  rev: 1,
  text,
  licenseExpression,
  ...overrides,
});

describe('checkMapping', () => {
  it.each([
    // as given → canonical, over keys
    ['MIT', 'mit'],
    ['apache-2.0 OR MIT', 'apache-2.0 OR mit'],
    ['GPL-2.0-only WITH Classpath-exception-2.0', 'gpl-2.0 WITH classpath-exception-2.0'],
    ['ACME-EULA AND BSD-3-Clause', 'acme-eula AND bsd-new'],
  ])('%s is stored as %s', (expression, canonical) => {
    expect(checkMapping('Bouncy Castle Licence', expression, keysOnly)).toEqual({ expression: canonical });
  });

  it.each([
    ['MIT AND', /^Not a license expression: /],
    ['(MIT', /^Not a license expression: /],
    ['Apache License 2.0', /^Not a license expression: /],
    ['MIT OR foo-corp-eula', /^Unknown license keys: foo-corp-eula\./],
    ['NOASSERTION', /names no license/],
    ['none', /names no license/],
  ])('the expression %s is refused', (expression, message) => {
    const checked = checkMapping('Foo Corp License', expression, keysOnly);
    expect(checked).toEqual({ errors: { license_expression: [expect.stringMatching(message)] } });
  });

  it('refuses a text that normalises to nothing, and one the catalog reads already as a key or SPDX id', () => {
    expect(checkMapping('--- ,,, ---', 'mit', keysOnly)).toEqual({ errors: { text: [expect.stringMatching(/^Nothing to match/)] } });
    expect(checkMapping(' Apache-2.0 ', 'mit', keysOnly)).toEqual({ errors: { text: ['"Apache-2.0" is read already as the license key apache-2.0: a mapping of it would never apply.'] } });
    expect(checkMapping('acme-eula', 'mit', keysOnly)).toEqual({ errors: { text: [expect.stringContaining('acme-eula')] } });
  });

  it('reports both fields at once', () => {
    const checked = checkMapping('!!!', 'MIT OR', keysOnly);
    expect(Object.keys('errors' in checked ? checked.errors : {}).sort()).toEqual(['license_expression', 'text']);
  });
});

describe('what a mapping matches', () => {
  it('texts that differ in case, punctuation, "licence" and version spellings are one', () => {
    expect(mappingMatchKey('Bouncy Castle Licence, Version 1.0')).toBe(mappingMatchKey('bouncy castle license v1'));
    expect(mappingMatchKey('Foo License 2.1')).not.toBe(mappingMatchKey('Foo License 2'));
  });

  it('a package whose unknown licenses hold the text as a run of whole words may change; others are left', () => {
    const mapping = aMapping('Foo Corp License', 'mit');
    expect(holdsMappedText(['FOO CORP LICENCE'], mapping)).toBe(true);
    expect(holdsMappedText(['Foo Corp License or Bar EULA'], mapping)).toBe(true);
    expect(holdsMappedText(['Foo Corporate License'], mapping)).toBe(false);
    expect(holdsMappedText([], mapping)).toBe(false);
  });
});

describe('reresolutionTarget', () => {
  const before = aMapping('Foo Corp License', 'mit');
  it.each([
    ['made', undefined, before, true],
    ['its expression changed', before, { ...before, licenseExpression: 'apache-2.0', rev: 2 }, true],
    ['its text changed', before, { ...before, text: 'Foo Corporation License', rev: 2 }, true],
    ['its text respelled only (the same match)', before, { ...before, text: 'foo corp licence', rev: 2 }, false],
    ['deleted', before, undefined, false],
  ] as const)('a mapping %s: %s', (_what, was, is, queued) => {
    expect(reresolutionTarget(was, is)).toEqual(queued ? { dataspace: 'acme', mapping: before.uuid } : undefined);
  });
});

describe('a mapping in the index', () => {
  const knowledge = scancodeKnowledge();
  it('applies before ScanCode: a name ScanCode reads one way is read as the dataspace decided', () => {
    // ScanCode reads `ASF 2.0` as Apache-2.0; this dataspace decided otherwise.
    expect(resolveLicenseExpression('ASF 2.0', shippedLicenseIndex([], [], { knowledge })).expression).toBe('apache-2.0');
    const mapped = shippedLicenseIndex(ownLicenses, [aMapping('asf 2', 'acme-eula')], { knowledge });
    const resolved = resolveLicenseExpression('ASF 2.0', mapped);
    expect(resolved.expression).toBe('acme-eula');
    expect(resolved.resolvedFrom).toEqual([{ written: 'ASF 2.0', expression: 'acme-eula', by: 'mapping', rule: '7a2b0c4e-0000-4000-8000-000000000001' }]);
  });

  it('a stored package with the unknown text is re-resolved with it, and a known license is never made unknown', () => {
    const without = shippedLicenseIndex(ownLicenses, [], { knowledge });
    const stored = resolveLicenseExpression('Foo Corp Licence AND MIT', without);
    expect(stored.unknown).toEqual(['Foo Corp Licence']);
    const asStored = { licenseExpression: stored.expression, declaredLicenseExpression: stored.declared, unknownLicenses: stored.unknown };
    const withMapping = shippedLicenseIndex(ownLicenses, [aMapping('foo corp license', 'acme-eula')], { knowledge });
    expect(reresolution(asStored, withMapping)).toMatchObject({ expression: 'acme-eula AND mit', unknown: [] });
    // A text kept unknown whole, since no split of it resolved then, is split now that a part is mapped.
    const whole = resolveLicenseExpression('Foo Corp Licence and MIT', without);
    expect(whole.unknown).toEqual(['Foo Corp Licence and MIT']);
    expect(reresolution({ licenseExpression: whole.expression, declaredLicenseExpression: whole.declared, unknownLicenses: whole.unknown }, withMapping)).toMatchObject({
      expression: 'acme-eula AND mit',
      unknown: [],
    });
    // A mapping to nothing this dataspace knows (its license deleted since) resolves nothing.
    const gone = shippedLicenseIndex([], [aMapping('foo corp license', 'acme-eula')], { knowledge });
    expect(reresolution(asStored, gone)).toBeUndefined();
  });
});
