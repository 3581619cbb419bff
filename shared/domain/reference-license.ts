/**
 * The reference license library: licenses every dataspace can name without adopting them (the
 * ScanCode LicenseDB index ships with the service), looked up by key, SPDX id or name in any letter
 * case. Pure: the data is passed in.
 */

export interface ReferenceLicense {
  /** ScanCode key, lower case: `mit`, `gpl-2.0-plus`, `classpath-exception-2.0`. */
  readonly key: string;
  readonly shortName: string;
  readonly name: string;
  /** Permissive, Copyleft, Copyleft Limited, Public Domain, Proprietary Free, Commercial, … */
  readonly category: string;
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
 * The categories of the reference library (the ScanCode LicenseDB's), which the license policy rules'
 * `categories` parameter names. Kept here, without the data, so the rules (and the web console that
 * checks them in the browser) need not load the library; a unit test holds it equal to the shipped data.
 */
export const LICENSE_CATEGORIES = [
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
