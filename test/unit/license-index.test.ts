import { describe, expect, it } from 'vitest';
import { buildLicenseIndex } from '../../shared/domain/license-index.ts';
import { referenceLibraryOf, type ReferenceLicense } from '../../shared/domain/reference-license.ts';
import { resolveLicenseExpression } from '../../shared/domain/license-resolution.ts';

const aReference = (overrides: Partial<ReferenceLicense> & { key: string }): ReferenceLicense => ({
  shortName: overrides.key,
  name: overrides.key,
  category: 'Permissive',
  spdxLicenseKey: '',
  otherSpdxLicenseKeys: [],
  isException: false,
  isDeprecated: false,
  ...overrides,
});

const library = referenceLibraryOf([
  aReference({ key: 'mit', spdxLicenseKey: 'MIT', shortName: 'MIT License', name: 'MIT License' }),
  aReference({ key: 'gpl-2.0-plus', spdxLicenseKey: 'GPL-2.0-or-later', otherSpdxLicenseKeys: ['GPL-2.0+'], category: 'Copyleft' }),
  aReference({ key: 'gpl-2.0-plus-old', spdxLicenseKey: 'GPL-2.0-or-later', isDeprecated: true }),
  aReference({ key: 'classpath-exception-2.0', spdxLicenseKey: 'Classpath-exception-2.0', isException: true }),
]);

describe('referenceLibraryOf', () => {
  it('finds by key, SPDX id, other SPDX id and name in any case; current licenses before deprecated ones', () => {
    expect(library.byKey('MIT')?.key).toBe('mit');
    expect(library.bySpdxId('gpl-2.0-OR-LATER')?.key).toBe('gpl-2.0-plus');
    expect(library.bySpdxId('gpl-2.0+')?.key).toBe('gpl-2.0-plus');
    expect(library.byName('mit license')?.key).toBe('mit');
    expect(library.byKey('nope')).toBeUndefined();
    expect(library.all.map((l) => l.key)).toEqual(['classpath-exception-2.0', 'gpl-2.0-plus', 'gpl-2.0-plus-old', 'mit']);
  });
});

describe('buildLicenseIndex', () => {
  it('resolves LicenseRef-dejacode-<key>, the SPDX form of a license without an SPDX id, back to that license', () => {
    const withRefs = referenceLibraryOf([...library.all, aReference({ key: 'old_terms+', spdxLicenseKey: '' }), aReference({ key: 'listed', spdxLicenseKey: 'LicenseRef-listed' })]);
    const index = buildLicenseIndex([{ key: 'acme-eula', spdxLicenseKey: '' }, { key: 'Odd_Key+', spdxLicenseKey: '' }], withRefs);
    expect(index.find('LicenseRef-dejacode-acme-eula')).toMatchObject({ key: 'acme-eula', source: 'dataspace' });
    expect(index.find('licenseref-DEJACODE-ACME-EULA')).toMatchObject({ key: 'acme-eula' });
    // Characters an SPDX idstring cannot hold were written as '-'.
    expect(index.find('LicenseRef-dejacode-Odd-Key-')).toMatchObject({ key: 'Odd_Key+' });
    expect(index.find('LicenseRef-dejacode-old-terms-')).toMatchObject({ key: 'old_terms+', source: 'reference' });
    // A reference license with an SPDX id is never written so: the ref is not it.
    expect(index.find('LicenseRef-dejacode-listed')).toBeUndefined();
    expect(index.find('LicenseRef-dejacode-nothing')).toBeUndefined();
    expect(resolveLicenseExpression('MIT OR LicenseRef-dejacode-acme-eula', index)).toMatchObject({ expression: 'mit OR acme-eula', spdx: 'MIT OR LicenseRef-dejacode-acme-eula', unknown: [] });
  });

  it('resolves the dataspace first, then reference keys, then SPDX ids', () => {
    const index = buildLicenseIndex(
      [
        { key: 'MIT', spdxLicenseKey: 'MIT' },
        { key: 'acme', spdxLicenseKey: 'LicenseRef-acme' },
      ],
      library,
    );
    expect(index.find('mit')).toEqual({ key: 'MIT', spdxKey: 'MIT', isException: false, source: 'dataspace' });
    expect(index.find('licenseref-ACME')).toMatchObject({ key: 'acme', source: 'dataspace' });
    expect(index.find('GPL-2.0+')).toMatchObject({ key: 'gpl-2.0-plus', source: 'reference' });
    expect(index.find('classpath-exception-2.0')).toMatchObject({ isException: true, source: 'reference' });
    expect(index.find('unheard-of')).toBeUndefined();
  });

  it('gives an adopted reference license (same key) as the dataspace license', () => {
    const index = buildLicenseIndex([{ key: 'gpl-2.0-plus', spdxLicenseKey: '' }], library);
    expect(index.find('GPL-2.0-or-later')).toMatchObject({ key: 'gpl-2.0-plus', source: 'dataspace' });
    const resolved = resolveLicenseExpression('GPL-2.0+ WITH Classpath-exception-2.0', index);
    expect(resolved).toMatchObject({ expression: 'gpl-2.0-plus WITH classpath-exception-2.0', dataspaceKeys: ['gpl-2.0-plus'] });
  });

  it("takes the dataspace's SPDX key before a reference key of another license (a dataspace that calls MIT `mit-license` means it by MIT)", () => {
    const index = buildLicenseIndex([{ key: 'mit-license', spdxLicenseKey: 'MIT' }], library);
    expect(index.find('MIT')).toMatchObject({ key: 'mit-license', source: 'dataspace' });
    expect(index.find('mit')).toMatchObject({ key: 'mit-license', source: 'dataspace' });
    expect(resolveLicenseExpression('MIT OR GPL-2.0+', index)).toMatchObject({ expression: 'mit-license OR gpl-2.0-plus', dataspaceKeys: ['mit-license'] });
  });

  it("tells a key's SPDX id and category: the dataspace license's own first, else the reference's", () => {
    const index = buildLicenseIndex(
      [
        { key: 'gpl-2.0-plus', spdxLicenseKey: '' },
        { key: 'acme', spdxLicenseKey: '', category: 'Proprietary Free' },
        { key: 'mit', spdxLicenseKey: 'MIT', category: 'Copyleft' },
      ],
      library,
    );
    expect(index.spdxKeyOf('gpl-2.0-plus')).toBe('GPL-2.0-or-later');
    expect(index.spdxKeyOf('acme')).toBe('');
    expect(index.categoryOf('gpl-2.0-plus')).toBe('Copyleft');
    expect(index.categoryOf('acme')).toBe('Proprietary Free');
    expect(index.categoryOf('mit')).toBe('Copyleft');
    expect(index.categoryOf('classpath-exception-2.0')).toBe('Permissive');
    expect(index.categoryOf('nowhere')).toBe('');
    // An adopted license without an SPDX key of its own resolves to its reference's SPDX id.
    expect(resolveLicenseExpression('gpl-2.0-plus', index).spdx).toBe('GPL-2.0-or-later');
  });

  it('prefers the exact key when two dataspace keys differ only in case', () => {
    const index = buildLicenseIndex([{ key: 'Foo', spdxLicenseKey: '' }, { key: 'foo', spdxLicenseKey: '' }], library);
    expect(index.find('foo')?.key).toBe('foo');
    expect(index.find('FOO')?.key).toBe('Foo');
  });
});

describe('the shipped reference library (ScanCode LicenseDB)', async () => {
  const { scancodeLibrary } = await import('../../shared/reference/scancode-licensedb.ts');
  const shipped = scancodeLibrary();

  it('resolves the ids real SBOMs write', () => {
    const index = buildLicenseIndex([], shipped);
    const cases: [string, string][] = [
      ['MIT', 'mit'],
      ['Apache-2.0', 'apache-2.0'],
      ['GPL-2.0+', 'gpl-2.0-plus'],
      ['GPL-2.0-only WITH Classpath-exception-2.0', 'gpl-2.0 WITH classpath-exception-2.0'],
      ['BSD-3-Clause OR isc', 'bsd-new OR isc'],
      ['LicenseRef-scancode-public-domain', 'public-domain'],
    ];
    for (const [text, expression] of cases) expect(resolveLicenseExpression(text, index)).toMatchObject({ expression, unknown: [] });
    expect(shipped.all.length).toBeGreaterThan(2_000);
    expect(shipped.byKey('classpath-exception-2.0')).toMatchObject({ isException: true, category: 'Copyleft Limited' });
  });
});
