/**
 * The LicenseIndex expressions are resolved with, built from a dataspace's own licenses and the
 * reference library: a dataspace key, then a reference key, then an SPDX id (the dataspace's SPDX
 * keys first), any letter case. A dataspace license shadows the reference license of the same key.
 */
import type { License } from './catalog.ts';
import type { KnownLicense, LicenseIndex } from './license-resolution.ts';
import type { ReferenceLibrary, ReferenceLicense } from './reference-license.ts';

const fold = (text: string) => text.trim().toLowerCase();

type DataspaceLicense = Pick<License, 'key' | 'spdxLicenseKey'> & { readonly isException?: boolean };

export function buildLicenseIndex(dataspaceLicenses: readonly DataspaceLicense[], library: ReferenceLibrary): LicenseIndex {
  const own = new Map<string, DataspaceLicense>();
  const ownSpdx = new Map<string, DataspaceLicense>();
  // Exact keys first, so that of two keys differing only in case the one written exactly wins.
  for (const license of dataspaceLicenses) {
    if (!own.has(fold(license.key))) own.set(fold(license.key), license);
    if (license.spdxLicenseKey !== '' && !ownSpdx.has(fold(license.spdxLicenseKey))) ownSpdx.set(fold(license.spdxLicenseKey), license);
  }
  const exact = new Map(dataspaceLicenses.map((license) => [license.key, license]));
  const fromOwn = (license: DataspaceLicense): KnownLicense => ({
    key: license.key,
    spdxKey: license.spdxLicenseKey,
    isException: license.isException ?? library.byKey(license.key)?.isException ?? false,
    source: 'dataspace',
  });
  const fromReference = (license: ReferenceLicense): KnownLicense => {
    // An adopted reference license (same key) is the dataspace's.
    const adopted = own.get(fold(license.key));
    return adopted ? fromOwn(adopted) : { key: license.key, spdxKey: license.spdxLicenseKey, isException: license.isException, source: 'reference' };
  };
  return {
    find(symbol) {
      const mine = exact.get(symbol.trim()) ?? own.get(fold(symbol));
      if (mine) return fromOwn(mine);
      const reference = library.byKey(symbol);
      if (reference) return fromReference(reference);
      const mineBySpdx = ownSpdx.get(fold(symbol));
      if (mineBySpdx) return fromOwn(mineBySpdx);
      const referenceBySpdx = library.bySpdxId(symbol);
      return referenceBySpdx ? fromReference(referenceBySpdx) : undefined;
    },
    findByName(text) {
      const reference = library.byName(text);
      return reference ? fromReference(reference) : undefined;
    },
  };
}
