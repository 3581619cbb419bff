/**
 * The LicenseIndex expressions are resolved with, built from a dataspace's own licenses and the
 * reference library: a dataspace key, then a dataspace SPDX key, then a reference key, then a
 * reference SPDX id, any letter case. A dataspace license shadows the reference license of the same
 * key. Also what a key means once resolved: its SPDX id and its category (licenseSpdxKey,
 * licenseCategory), the dataspace license's own values first.
 */
import type { License } from './catalog.ts';
import type { LicenseKnowledge } from './license-knowledge.ts';
import { normaliseLicenseName } from './license-names.ts';
import { spdxRefForKey, type KnownLicense, type LicenseHint, type LicenseIndex, type Recognition } from './license-resolution.ts';
import type { ReferenceLibrary, ReferenceLicense } from './reference-license.ts';

const fold = (text: string) => text.trim().toLowerCase();

/**
 * What the index reads of a dataspace license. `category` and `isException` are optional: licenses
 * written before they existed have none, and then the reference license of the same key decides.
 */
export type DataspaceLicense = Pick<License, 'key' | 'spdxLicenseKey'> & { readonly isException?: boolean; readonly category?: string };

/** A dataspace license's SPDX key, else the reference license's of the same key, else '' (then written as a LicenseRef). */
export function licenseSpdxKey(key: string, own: DataspaceLicense | undefined, library: ReferenceLibrary): string {
  return own?.spdxLicenseKey || library.byKey(key)?.spdxLicenseKey || '';
}

/**
 * The category of a license key, the one function the policy rules' `categories` parameter reads:
 * the dataspace license's own category when it has one, else the reference license's, else ''.
 */
export function licenseCategory(key: string, own: DataspaceLicense | undefined, library: ReferenceLibrary): string {
  return own?.category || library.byKey(key)?.category || '';
}

/** A LicenseIndex that also tells what a resolved key means now. */
export interface DataspaceLicenseIndex extends LicenseIndex {
  /** The SPDX id of a canonical key ('' when it has none): canonicalToSpdx's `spdxKeyOf`. */
  spdxKeyOf(key: string): string;
  /** The category of a canonical key ('' when unknown). */
  categoryOf(key: string): string;
}

/** A dataspace's curation of a license as written: `text` means `licenseExpression` (license-mappings). */
export interface MappingRule {
  readonly uuid: string;
  readonly text: string;
  readonly licenseExpression: string;
}

/** What recognises licenses that are no key or SPDX id: the dataspace's mappings first, then ScanCode's rules. */
export interface Recognisers {
  readonly knowledge?: LicenseKnowledge;
  readonly mappings?: readonly MappingRule[];
}

/**
 * A license as written, recognised: a mapping of its text (normalised as names are), then ScanCode's
 * rules for the text by its shape (a URL, a full text, else a name), then what the document says
 * beside it: its name (SPDX extracted licenses), its URL, its text.
 */
export function recogniserOf({ knowledge, mappings = [] }: Recognisers): (written: string, hint?: LicenseHint) => Recognition | undefined {
  const mapped = new Map<string, MappingRule>();
  for (const mapping of mappings) if (!mapped.has(normaliseLicenseName(mapping.text))) mapped.set(normaliseLicenseName(mapping.text), mapping);
  const byMapping = (text: string | undefined): Recognition | undefined => {
    const mapping = text ? mapped.get(normaliseLicenseName(text)) : undefined;
    return mapping && { expression: mapping.licenseExpression, by: 'mapping', rule: mapping.uuid };
  };
  return (written, hint) =>
    byMapping(written) ??
    byMapping(hint?.name) ??
    knowledge?.recognise(written) ??
    (hint?.name ? knowledge?.byName(hint.name) : undefined) ??
    (hint?.url ? knowledge?.byUrl(hint.url) : undefined) ??
    (hint?.text ? knowledge?.byText(hint.text) : undefined);
}

export function buildLicenseIndex(dataspaceLicenses: readonly DataspaceLicense[], library: ReferenceLibrary, recognisers: Recognisers = {}): DataspaceLicenseIndex {
  const own = new Map<string, DataspaceLicense>();
  const ownSpdx = new Map<string, DataspaceLicense>();
  // Exact keys first, so that of two keys differing only in case the one written exactly wins.
  for (const license of dataspaceLicenses) {
    if (!own.has(fold(license.key))) own.set(fold(license.key), license);
    if (license.spdxLicenseKey !== '' && !ownSpdx.has(fold(license.spdxLicenseKey))) ownSpdx.set(fold(license.spdxLicenseKey), license);
  }
  const exact = new Map(dataspaceLicenses.map((license) => [license.key, license]));
  // The SPDX form the service writes for a dataspace license without an SPDX key (spdxRefForKey:
  // LicenseRef-dejacode-<key>, other characters turned into '-'): an exported SBOM names the license
  // so, and importing that document must find the license again, not an unknown one.
  const ownRef = new Map<string, DataspaceLicense>();
  for (const license of dataspaceLicenses) if (!ownRef.has(fold(spdxRefForKey(license.key)))) ownRef.set(fold(spdxRefForKey(license.key)), license);
  const fromOwn = (license: DataspaceLicense): KnownLicense => ({
    key: license.key,
    // Without an SPDX key of its own, an adopted license is written as its reference's (as answers show it).
    spdxKey: licenseSpdxKey(license.key, license, library),
    isException: license.isException ?? library.byKey(license.key)?.isException ?? false,
    source: 'dataspace',
  });
  const fromReference = (license: ReferenceLicense): KnownLicense => {
    // An adopted reference license (same key) is the dataspace's.
    const adopted = own.get(fold(license.key));
    return adopted ? fromOwn(adopted) : { key: license.key, spdxKey: license.spdxLicenseKey, isException: license.isException, source: 'reference' };
  };
  // Reference licenses without an SPDX id (about 130, some keys with '+' or '_'), by the ref they are written as; built when first needed.
  let referenceRefCache: Map<string, ReferenceLicense> | undefined;
  const referenceRefs = () =>
    (referenceRefCache ??= new Map(library.all.filter((license) => license.spdxLicenseKey === '').map((license) => [fold(spdxRefForKey(license.key)), license])));
  /** `LicenseRef-dejacode-<key>`: the dataspace license written so, else a reference license without an SPDX id (also written so). */
  const fromDejacodeRef = (symbol: string): KnownLicense | undefined => {
    const match = /^LicenseRef-dejacode-(.+)$/i.exec(symbol.trim());
    if (!match) return undefined;
    const mine = ownRef.get(fold(symbol));
    if (mine) return fromOwn(mine);
    const reference = library.byKey(match[1]!) ?? referenceRefs().get(fold(symbol));
    return reference && reference.spdxLicenseKey === '' ? fromReference(reference) : undefined;
  };
  return {
    find(symbol) {
      const mine = exact.get(symbol.trim()) ?? own.get(fold(symbol));
      if (mine) return fromOwn(mine);
      // The dataspace's SPDX keys before reference keys: a dataspace whose license `mit-license` has the
      // SPDX key MIT means it by `MIT`, not the reference license `mit` it never adopted.
      const mineBySpdx = ownSpdx.get(fold(symbol));
      if (mineBySpdx) return fromOwn(mineBySpdx);
      const reference = library.byKey(symbol);
      if (reference) return fromReference(reference);
      const referenceBySpdx = library.bySpdxId(symbol);
      if (referenceBySpdx) return fromReference(referenceBySpdx);
      return fromDejacodeRef(symbol);
    },
    findByName(text) {
      const reference = library.byName(text);
      return reference ? fromReference(reference) : undefined;
    },
    recognise: recogniserOf(recognisers),
    spdxKeyOf: (key) => licenseSpdxKey(key, exact.get(key), library),
    categoryOf: (key) => licenseCategory(key, exact.get(key), library),
  };
}
