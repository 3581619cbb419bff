/**
 * The reference license library: licenses every dataspace can name without adopting them (the
 * ScanCode LicenseDB index ships with the service), looked up by key, SPDX id or name in any letter
 * case. Pure: the data is passed in.
 */
import { licenseSearchFields, matchesTerms, searchFold, searchTextOf, type LicenseCriteria } from './license-search.ts';

export interface ReferenceLicense {
  /** ScanCode key, lower case: `mit`, `gpl-2.0-plus`, `classpath-exception-2.0`. */
  readonly key: string;
  readonly shortName: string;
  readonly name: string;
  /** Permissive, Copyleft, Copyleft Limited, Public Domain, Proprietary Free, Commercial, … */
  readonly category: ReferenceCategory;
  /** The current SPDX id, or a `LicenseRef-scancode-…` one. */
  readonly spdxLicenseKey: string;
  /** Older or alternative SPDX ids (`GPL-2.0+`, `LicenseRef-…`). */
  readonly otherSpdxLicenseKeys: readonly string[];
  readonly isException: boolean;
  readonly isDeprecated: boolean;
}

export interface ReferenceLibrary {
  /** Every reference license, in key order. */
  readonly all: readonly ReferenceLicense[];
  byKey(key: string): ReferenceLicense | undefined;
  /** Current SPDX ids first, then other SPDX ids; deprecated licenses only when nothing current matches. */
  bySpdxId(id: string): ReferenceLicense | undefined;
  /** By short name or name, whole. */
  byName(text: string): ReferenceLicense | undefined;
}

/**
 * The categories of the reference library, which a dataspace license's `category` is one of (or '').
 * Kept here, not read from the data, so the schemas (and so every function's bundle) need not load the
 * data to know them; test/unit/reference-licenses-data.test.ts checks that they are exactly the data's,
 * and the refresh script says so when a refresh brings a new one.
 */
export const REFERENCE_CATEGORIES = [
  'CLA',
  'Commercial',
  'Copyleft',
  'Copyleft Limited',
  'Free Restricted',
  'Patent License',
  'Permissive',
  'Proprietary Free',
  'Public Domain',
  'Source-available',
  'Unstated License',
] as const;
export type ReferenceCategory = (typeof REFERENCE_CATEGORIES)[number];
/** A dataspace license's category: one of the reference library's, or '' for none. */
export type LicenseCategory = ReferenceCategory | '';

const fold = (text: string) => text.trim().toLowerCase();

export function referenceLibraryOf(licenses: readonly ReferenceLicense[]): ReferenceLibrary {
  const all = [...licenses].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const byKey = new Map<string, ReferenceLicense>();
  const bySpdx = new Map<string, ReferenceLicense>();
  const byOtherSpdx = new Map<string, ReferenceLicense>();
  const byName = new Map<string, ReferenceLicense>();
  // Current licenses claim ids and names before deprecated ones; the first in key order wins a tie.
  const ordered = [...all.filter((l) => !l.isDeprecated), ...all.filter((l) => l.isDeprecated)];
  const claim = (map: Map<string, ReferenceLicense>, id: string, license: ReferenceLicense) => {
    if (id !== '' && !map.has(fold(id))) map.set(fold(id), license);
  };
  for (const license of ordered) {
    claim(byKey, license.key, license);
    claim(bySpdx, license.spdxLicenseKey, license);
    for (const other of license.otherSpdxLicenseKeys) claim(byOtherSpdx, other, license);
    claim(byName, license.shortName, license);
    claim(byName, license.name, license);
  }
  return {
    all,
    byKey: (key) => byKey.get(fold(key)),
    bySpdxId: (id) => bySpdx.get(fold(id)) ?? byOtherSpdx.get(fold(id)),
    byName: (text) => byName.get(fold(text)),
  };
}

const searchTexts = new WeakMap<ReferenceLicense, string>();

/**
 * The reference licenses that pass the criteria, in key order: `key` and `spdxLicenseKey` in any
 * letter case, `spdxLicenseKey` also among the other SPDX ids (so a deprecated id such as `GPL-2.0+`
 * finds the license it now names), `?search=` words on key, name, short name and SPDX key.
 */
export function filterReferenceLicenses(library: ReferenceLibrary, criteria: LicenseCriteria): readonly ReferenceLicense[] {
  const key = criteria.key === undefined ? undefined : searchFold(criteria.key);
  const spdx = criteria.spdxLicenseKey === undefined ? undefined : searchFold(criteria.spdxLicenseKey);
  const found = library.all.filter((license) => {
    if (key !== undefined && searchFold(license.key) !== key) return false;
    if (spdx !== undefined && ![license.spdxLicenseKey, ...license.otherSpdxLicenseKeys].some((id) => searchFold(id) === spdx)) return false;
    if (criteria.category !== undefined && license.category !== criteria.category) return false;
    if (criteria.isException !== undefined && license.isException !== criteria.isException) return false;
    if (criteria.terms === undefined) return true;
    let text = searchTexts.get(license);
    if (text === undefined) searchTexts.set(license, (text = searchTextOf(licenseSearchFields(license))));
    return matchesTerms(text, criteria.terms);
  });
  return criteria.terms === undefined ? found : rankedForSearch(found, criteria.terms);
}

/**
 * A search's matches as a person looks for them: the license whose key or SPDX id is the text searched
 * first (`gpl-3.0` before the 40 licenses whose names hold it), then those whose key or id starts with it,
 * then the rest; deprecated licenses after the current ones; by key within each (a stable sort).
 */
function rankedForSearch(found: readonly ReferenceLicense[], terms: readonly string[]): ReferenceLicense[] {
  const text = terms.join(' ');
  const ids = (license: ReferenceLicense) => [license.key, license.spdxLicenseKey, ...license.otherSpdxLicenseKeys].filter((id) => id !== '').map(searchFold);
  const rank = (license: ReferenceLicense) => {
    const own = ids(license);
    const closeness = own.includes(text) ? 0 : own.some((id) => id.startsWith(text)) ? 1 : 2;
    return closeness * 2 + (license.isDeprecated ? 1 : 0);
  };
  return found
    .map((license) => ({ license, rank: rank(license) }))
    .sort((a, b) => a.rank - b.rank)
    .map(({ license }) => license);
}
