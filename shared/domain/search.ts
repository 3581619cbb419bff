/**
 * `?search=` as DRF's SearchFilter reads it (DejaCode's lists use it): the value is split into terms
 * (quoted phrases kept whole, other words split on whitespace and commas), and an object matches when
 * every term is contained, ignoring case, in at least one of the list's search fields. Pure: the stores
 * turn the terms into a DynamoDB filter over the folded copy `searchText`, and check them in memory.
 */
import { ValidationError } from './errors.ts';

/**
 * The fields each list searches, as DejaCode's viewsets list them in `search_fields`, where the object
 * has the field (DejaCode's products also search copyright and homepage_url, its requests also
 * serialized_data; its packages filename and project, and here also name, namespace, purl and
 * description).
 * The names are the stored attributes. Adding a field is one line here: items written with another
 * list are checked in memory (their `searchFields` differ) until their next write.
 */
export const SEARCH_FIELDS = {
  products: ['name', 'version'],
  packages: ['name', 'namespace', 'purl', 'filename', 'description'],
  requests: ['title'],
} as const satisfies Record<string, readonly string[]>;

export const MAX_SEARCH_TERMS = 10;
export const MAX_SEARCH_TERM_LENGTH = 100;

/** Between two fields of a search text: fold() turns every control character into a space, so no term holds it. */
const FIELD_SEPARATOR = '\u0001';

/**
 * Text as search compares it: Unicode NFKC (a ligature "ﬁ" is "fi", a full-width "Ａ" is "A"), then
 * full case mapping both ways (upper, then lower: "Ä" is "ä", "ß" is "ss", a final sigma is σ), so
 * "Ärger" and "ÄRGER" match "ärger". Control characters count as spaces.
 */
export function fold(value: string): string {
  return value
    .normalize('NFKC')
    .toUpperCase()
    .toLowerCase()
    .replace(/ς/g, 'σ')
    .normalize('NFKC')
    .replace(/\p{Cc}/gu, ' ');
}

/** The folded copy of an object's search fields that is stored with it (`searchText`). */
export function searchText(values: readonly string[]): string {
  return values.map(fold).join(FIELD_SEPARATOR);
}

/** The search text of an object's (or a stored item's) own fields named `fields`. */
export function searchTextOf(object: object, fields: readonly string[]): string {
  return searchText(fields.map((field) => String((object as Record<string, unknown>)[field] ?? '')));
}

/** True when every (folded) term is contained in one of the fields of the search text. */
export function matchesSearch(text: string, terms: readonly string[]): boolean {
  return terms.every((term) => text.includes(term));
}

/** True when every (folded) term is contained in one of the object's fields named `fields`. */
export function objectMatches(object: object, fields: readonly string[], terms: readonly string[]): boolean {
  return matchesSearch(searchTextOf(object, fields), terms);
}

export type SearchParse = { readonly ok: true; readonly terms: readonly string[] } | { readonly ok: false; readonly error: string };

/**
 * Django's smart_split: words separated by whitespace, where a word may hold quoted parts (with
 * backslash escapes) that keep their whitespace.
 */
const SMART_SPLIT = /((?:[^\s'"]*(?:(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')[^\s'"]*)+)|\S+)/gsu;

/** The terms of a `search` value as DRF 3.16's search_smart_split gives them, unfolded. */
export function splitSearch(value: string): string[] {
  const terms: string[] = [];
  for (const [word] of value.matchAll(SMART_SPLIT)) {
    const term = word.replace(/^,+|,+$/g, '');
    if (term.length >= 2 && (term[0] === '"' || term[0] === "'") && term.at(-1) === term[0]) {
      // A quoted phrase is one term, without its quotes.
      const quote = term[0];
      terms.push(term.slice(1, -1).replaceAll(`\\${quote}`, quote).replaceAll('\\\\', '\\'));
    } else {
      for (const part of term.split(',')) if (part.trim() !== '') terms.push(part.trim());
    }
  }
  // An empty quoted phrase ("") would match everything: it is no term.
  return terms.filter((term) => term !== '');
}

/**
 * The folded terms of a `search` query value; empty or absent is no search (terms = []). A NUL is
 * refused, as DRF's CharField refuses it; so are a term longer than 100 characters and more than 10
 * terms, which no list needs and which bound the filter sent to DynamoDB.
 */
export function parseSearch(value: string | undefined): SearchParse {
  if (value === undefined || value === '') return { ok: true, terms: [] };
  if (value.includes('\u0000')) return { ok: false, error: 'Null characters are not allowed.' };
  const terms = splitSearch(value);
  if (terms.length > MAX_SEARCH_TERMS) return { ok: false, error: `Ensure there are no more than ${MAX_SEARCH_TERMS} search terms.` };
  if (terms.some((term) => [...term].length > MAX_SEARCH_TERM_LENGTH)) {
    return { ok: false, error: `Ensure each search term has no more than ${MAX_SEARCH_TERM_LENGTH} characters.` };
  }
  // The same term twice is one condition.
  return { ok: true, terms: [...new Set(terms.map(fold))] };
}

/** The folded terms of a list's `search` query parameter; a value parseSearch refuses is a 400 on `search`. */
export function searchTerms(query: Readonly<Record<string, string | undefined>>): readonly string[] {
  const parsed = parseSearch(query.search);
  if (!parsed.ok) throw new ValidationError({ search: [parsed.error] });
  return parsed.terms;
}
