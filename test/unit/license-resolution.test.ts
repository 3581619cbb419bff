import { describe, expect, it } from 'vitest';
import {
  canonicalToSpdx,
  namedLicenseCount,
  resolveLicenseExpression,
  UNKNOWN_LICENSE_KEY,
  UNKNOWN_LICENSE_SPDX,
  type KnownLicense,
  type LicenseIndex,
} from '../../shared/domain/license-resolution.ts';

/** A small index in the shape the service builds: the dataspace's licenses first, then the reference. */
function anIndex(dataspace: Omit<KnownLicense, 'source'>[], reference: (Omit<KnownLicense, 'source'> & { other?: string[]; name?: string })[]): LicenseIndex {
  const lower = (s: string) => s.toLowerCase();
  return {
    find(symbol) {
      const s = lower(symbol);
      const own = dataspace.find((l) => lower(l.key) === s);
      if (own) return { ...own, source: 'dataspace' };
      const ref = reference.find((l) => lower(l.key) === s);
      if (ref) return { key: ref.key, spdxKey: ref.spdxKey, isException: ref.isException, source: 'reference' };
      const ownSpdx = dataspace.find((l) => l.spdxKey !== '' && lower(l.spdxKey) === s);
      if (ownSpdx) return { ...ownSpdx, source: 'dataspace' };
      const refSpdx = reference.find((l) => lower(l.spdxKey) === s || (l.other ?? []).some((o) => lower(o) === s));
      return refSpdx ? { key: refSpdx.key, spdxKey: refSpdx.spdxKey, isException: refSpdx.isException, source: 'reference' } : undefined;
    },
    findByName(text) {
      const ref = reference.find((l) => l.name !== undefined && lower(l.name) === lower(text));
      return ref ? { key: ref.key, spdxKey: ref.spdxKey, isException: ref.isException, source: 'reference' } : undefined;
    },
  };
}

const index = anIndex(
  [
    { key: 'acme-eula', spdxKey: '', isException: false },
    { key: 'mit', spdxKey: 'MIT', isException: false },
  ],
  [
    { key: 'mit', spdxKey: 'MIT', isException: false, name: 'MIT License' },
    { key: 'apache-2.0', spdxKey: 'Apache-2.0', isException: false },
    { key: 'gpl-2.0', spdxKey: 'GPL-2.0-only', isException: false, other: ['GPL-2.0'] },
    { key: 'gpl-2.0-plus', spdxKey: 'GPL-2.0-or-later', isException: false, other: ['GPL-2.0+'] },
    { key: 'gpl-3.0', spdxKey: 'GPL-3.0-only', isException: false, other: ['GPL-3.0'] },
    { key: 'classpath-exception-2.0', spdxKey: 'Classpath-exception-2.0', isException: true },
    { key: 'scancode-foo', spdxKey: 'LicenseRef-scancode-foo', isException: false },
  ],
);

describe('resolveLicenseExpression', () => {
  it.each([
    ['MIT', 'mit', 'MIT', ['mit'], ['mit']],
    ['mit or APACHE-2.0', 'mit OR apache-2.0', 'MIT OR Apache-2.0', ['mit', 'apache-2.0'], ['mit']],
    ['GPL-2.0+', 'gpl-2.0-plus', 'GPL-2.0-or-later', ['gpl-2.0-plus'], []],
    ['GPL-2.0-only WITH Classpath-exception-2.0', 'gpl-2.0 WITH classpath-exception-2.0', 'GPL-2.0-only WITH Classpath-exception-2.0', ['gpl-2.0', 'classpath-exception-2.0'], []],
    ['LicenseRef-scancode-foo AND (MIT OR GPL-3.0)', 'scancode-foo AND (mit OR gpl-3.0)', 'LicenseRef-scancode-foo AND (MIT OR GPL-3.0-only)', ['scancode-foo', 'mit', 'gpl-3.0'], ['mit']],
    ['ACME-EULA', 'acme-eula', 'LicenseRef-dejacode-acme-eula', ['acme-eula'], ['acme-eula']],
  ])('resolves %s', (text, expression, spdx, keys, dataspaceKeys) => {
    const resolved = resolveLicenseExpression(text, index);
    expect(resolved).toEqual({ declared: text, expression, spdx, keys, dataspaceKeys, unknown: [], resolvedFrom: [] });
  });

  it('keeps a symbol it cannot resolve as an unknown license, and the rest of the expression', () => {
    const resolved = resolveLicenseExpression('MIT OR LicenseRef-acme-internal', index);
    expect(resolved.expression).toBe(`mit OR ${UNKNOWN_LICENSE_KEY}`);
    expect(resolved.spdx).toBe(`MIT OR ${UNKNOWN_LICENSE_SPDX}`);
    expect(resolved.unknown).toEqual(['LicenseRef-acme-internal']);
    expect(resolved.keys).toEqual(['mit', UNKNOWN_LICENSE_KEY]);
  });

  it('keeps free text that is not an expression whole, as one unknown license', () => {
    const resolved = resolveLicenseExpression('  SEE LICENSE IN LICENSE.md ', index);
    expect(resolved).toEqual({
      declared: 'SEE LICENSE IN LICENSE.md',
      expression: UNKNOWN_LICENSE_KEY,
      spdx: UNKNOWN_LICENSE_SPDX,
      keys: [UNKNOWN_LICENSE_KEY],
      dataspaceKeys: [],
      unknown: ['SEE LICENSE IN LICENSE.md'],
      resolvedFrom: [],
    });
  });

  it('matches free text against license names before calling it unknown', () => {
    expect(resolveLicenseExpression('mit license', index)).toMatchObject({ expression: 'mit', spdx: 'MIT', unknown: [] });
  });

  it.each(['', '   ', 'NOASSERTION', 'none'])('treats %j as no license information', (text) => {
    expect(resolveLicenseExpression(text, index)).toMatchObject({ expression: '', spdx: '', keys: [], unknown: [] });
  });

  it('lists each unknown symbol once', () => {
    expect(resolveLicenseExpression('Foo AND (Foo OR Bar)', index).unknown).toEqual(['Foo', 'Bar']);
  });
});

describe('namedLicenseCount', () => {
  it.each([
    ['MIT', 1],
    ['MIT OR MIT', 1],
    ['GPL-2.0-only WITH Classpath-exception-2.0', 2],
    ['Foo AND Bar AND mit', 3],
    ['Foo AND Foo', 1],
    ['SEE LICENSE IN LICENSE.md', 1],
    ['', 0],
  ])('%s names %i', (text, count) => {
    expect(namedLicenseCount(resolveLicenseExpression(text, index))).toBe(count);
  });
});

describe('canonicalToSpdx', () => {
  it('renders a stored expression with the SPDX ids known now', () => {
    const spdx = new Map([['mit', 'MIT'], ['gpl-2.0', 'GPL-2.0-only'], ['classpath-exception-2.0', 'Classpath-exception-2.0']]);
    expect(canonicalToSpdx(`(mit OR gpl-2.0 WITH classpath-exception-2.0) AND my_key AND ${UNKNOWN_LICENSE_KEY}`, (key) => spdx.get(key) ?? '')).toBe(
      `(MIT OR GPL-2.0-only WITH Classpath-exception-2.0) AND LicenseRef-dejacode-my-key AND ${UNKNOWN_LICENSE_SPDX}`,
    );
    expect(canonicalToSpdx('', () => '')).toBe('');
  });
});
