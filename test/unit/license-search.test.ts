import { describe, expect, it } from 'vitest';
import { licenseMatches, searchTerms, searchTextOf, searchWords } from '../../shared/domain/license-search.ts';
import type { License } from '../../shared/domain/catalog.ts';

describe('search words, as DRF splits ?search=', () => {
  it.each([
    ['apache', ['apache']],
    ['  GPL   2.0 ', ['GPL', '2.0']],
    ['gpl,classpath', ['gpl', 'classpath']],
    ['gpl, classpath,', ['gpl', 'classpath']],
    ['"GNU General" public', ['GNU General', 'public']],
    ["'a b'", ['a b']],
    ['"say \\"hi\\""', ['say "hi"']],
    ['"unclosed phrase', ['"unclosed', 'phrase']],
    ['""', []],
    ['nul\u0000l', ['null']],
    ['', []],
  ])('%j → %j', (text, words) => {
    expect(searchWords(text)).toEqual(words);
  });

  it('folds words to lower case in NFC', () => {
    expect(searchTerms('CAFE\u0301 MIT')).toEqual(['caf\u00e9', 'mit']);
  });
});

describe('licenseMatches', () => {
  const license: License = {
    uuid: '00000000-0000-4000-8000-000000000001',
    dataspace: 'acme',
    rev: 1,
    key: 'Acme-1',
    name: 'Acme Public License',
    shortName: 'APL',
    spdxLicenseKey: 'LicenseRef-Acme',
    category: 'Permissive',
    isException: false,
    usagePolicy: null,
  };

  it.each([
    [{}, true],
    [{ key: 'Acme-1' }, true],
    [{ key: 'acme-1' }, false],
    [{ spdxLicenseKey: 'licenseref-ACME' }, true],
    [{ spdxLicenseKey: 'LicenseRef' }, false],
    [{ category: 'Permissive' }, true],
    [{ category: 'permissive' }, false],
    [{ isException: false }, true],
    [{ isException: true }, false],
    [{ terms: searchTerms('public apl') }, true],
    [{ terms: searchTerms('licenseref-acme ACME-1') }, true],
    [{ terms: searchTerms('public gpl') }, false],
    // A word never spans two fields.
    [{ terms: searchTerms('acme-1 acme') }, true],
    [{ terms: searchTerms('licenseapl') }, false],
  ])('%j → %s', (criteria, expected) => {
    expect(licenseMatches(license, criteria)).toBe(expected);
  });

  it('looks into the fields one a line', () => {
    expect(searchTextOf(['A', 'B C'])).toBe('a\nb c');
  });
});
