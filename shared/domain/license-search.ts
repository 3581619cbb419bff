/**
 * `?search=` and the filters of the license lists (a dataspace's licenses, the reference library), as
 * DRF's SearchFilter and django-filter answer them: the text is split into words (quoted phrases kept
 * whole, commas separating too), and a license matches when every word is contained, in any letter
 * case, in one of its key, short name, name or SPDX key. Pure.
 */
import type { License } from './catalog.ts';

/** Words of one `?search=`: each adds a condition to the list's query, so their number is bounded. */
export const MAX_SEARCH_TERMS = 10;

/** How text is compared: in NFC (as names are stored) and lower case. */
export function searchFold(text: string): string {
  return text.normalize('NFC').toLowerCase();
}

// Django's smart_split: runs of non-space characters, where a quoted part may hold spaces.
const WORD = /(?:[^\s'"]*(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')[^\s'"]*)+|\S+/g;

/**
 * The words of a search text as typed (DRF's search_smart_split): a quoted phrase is one word without
 * its quotes; elsewhere commas separate words too; empty words and NUL characters are dropped.
 */
export function searchWords(text: string): string[] {
  const terms: string[] = [];
  for (const [token] of text.replaceAll('\u0000', '').matchAll(WORD)) {
    const term = token.replace(/^,+|,+$/g, '');
    if (term.length >= 2 && (term[0] === '"' || term[0] === "'") && term.at(-1) === term[0]) {
      const phrase = term.slice(1, -1).replace(/\\(.)/g, '$1');
      if (phrase !== '') terms.push(phrase);
    } else {
      for (const part of term.split(',')) if (part.trim() !== '') terms.push(part.trim());
    }
  }
  return terms;
}

/** The words of a search text, folded: what is compared with searchTextOf. */
export function searchTerms(text: string): string[] {
  return searchWords(text).map(searchFold);
}

/** What a search looks into: the fields, folded, one a line (a word never holds a line break, so never spans two). */
export function searchTextOf(fields: readonly string[]): string {
  return fields.map(searchFold).join('\n');
}

export function matchesTerms(searchText: string, terms: readonly string[]): boolean {
  return terms.every((term) => searchText.includes(term));
}

/** The fields `?search=` looks into, in the order DejaCode's license API lists them. */
export const licenseSearchFields = (license: Pick<License, 'key' | 'name' | 'shortName' | 'spdxLicenseKey'>) => [
  license.key,
  license.name,
  license.shortName,
  license.spdxLicenseKey,
];

/** The filters of GET /api/v2/licenses/ and /api/v2/reference_licenses/, parsed; absent ones do not filter. */
export interface LicenseCriteria {
  /** Exact on a dataspace's licenses; any letter case on the reference library. */
  readonly key?: string;
  /** Any letter case. */
  readonly spdxLicenseKey?: string;
  readonly category?: string;
  readonly isException?: boolean;
  /** Folded words, all of which must match (searchTerms). */
  readonly terms?: readonly string[];
}

/** Whether a dataspace license passes the criteria (the store's filter says the same for the items it reads). */
export function licenseMatches(license: License, criteria: LicenseCriteria): boolean {
  if (criteria.key !== undefined && license.key !== criteria.key) return false;
  if (criteria.spdxLicenseKey !== undefined && searchFold(license.spdxLicenseKey) !== searchFold(criteria.spdxLicenseKey)) return false;
  if (criteria.category !== undefined && license.category !== criteria.category) return false;
  if (criteria.isException !== undefined && license.isException !== criteria.isException) return false;
  return criteria.terms === undefined || matchesTerms(searchTextOf(licenseSearchFields(license)), criteria.terms);
}
