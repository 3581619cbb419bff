import { describe, expect, it } from 'vitest';
import { filterReferenceLicenses } from '../../shared/domain/reference-license.ts';
import { searchTerms } from '../../shared/domain/license-search.ts';
import { scancodeLibrary } from '../../shared/reference/scancode-licensedb.ts';

const search = (text: string) => filterReferenceLicenses(scancodeLibrary(), { terms: searchTerms(text) });

describe('reference library search, ranked as a person looks', () => {
  it('puts the license whose key is the text first (gpl-3.0 was ninth), then keys that start with it', () => {
    const found = search('gpl-3.0');
    expect(found[0]!.key).toBe('gpl-3.0');
    expect(found.length).toBeGreaterThan(5);
    const firstOther = found.findIndex((license) => !license.key.startsWith('gpl-3.0') && license.spdxLicenseKey.toLowerCase() !== 'gpl-3.0');
    expect(found.slice(0, firstOther).every((license) => license.key.startsWith('gpl-3.0') || license.spdxLicenseKey.toLowerCase().startsWith('gpl-3.0'))).toBe(true);
  });

  it('finds by SPDX id as well, in any case, and puts deprecated licenses after current ones of the same closeness', () => {
    expect(search('Apache-2.0')[0]!.key).toBe('apache-2.0');
    expect(search('mit')[0]!.key).toBe('mit');
    const found = search('gpl');
    // Within the matches that merely contain the text (the last group), no current one after a deprecated one.
    const contained = found.filter((license) => ![license.key, license.spdxLicenseKey].some((id) => id.toLowerCase().startsWith('gpl')));
    const firstDeprecated = contained.findIndex((license) => license.isDeprecated);
    expect(firstDeprecated === -1 || contained.slice(firstDeprecated).every((license) => license.isDeprecated)).toBe(true);
  });
});
