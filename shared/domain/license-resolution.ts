/**
 * License expressions as the world writes them: SPDX ids (`Apache-2.0`, deprecated `GPL-2.0+`,
 * `LicenseRef-…`), reference keys and a dataspace's own keys, in any letter case, with WITH
 * exceptions, OR choices, and free text. Each symbol is resolved through a LicenseIndex (dataspace
 * license, then reference key, then SPDX id); what resolves to nothing is kept as an unknown license
 * (ScanCode's `unknown-license-reference`), and the text as written is kept beside the canonical form.
 * Pure: the index is passed in.
 */
import { parseLicenseExpression, type LicenseExpression } from './license-expression.ts';

/** ScanCode's key for a license reference that cannot be resolved ("SEE LICENSE IN …"). */
export const UNKNOWN_LICENSE_KEY = 'unknown-license-reference';
export const UNKNOWN_LICENSE_SPDX = 'LicenseRef-scancode-unknown-license-reference';

/** What resolution needs to know of a license: its canonical key and its SPDX id. */
export interface KnownLicense {
  readonly key: string;
  /** The SPDX id (`MIT`, `LicenseRef-scancode-…`), or '' when it has none. */
  readonly spdxKey: string;
  readonly isException: boolean;
  /** Where the key lives: the dataspace's own licenses, or only the reference library. */
  readonly source: 'dataspace' | 'reference';
}

export interface LicenseIndex {
  /**
   * A symbol of an expression, any letter case: a dataspace license key, then a reference key, then
   * an SPDX id (the dataspace's SPDX keys first, then the reference's current and other SPDX keys).
   */
  find(symbol: string): KnownLicense | undefined;
  /** Free text that is not an expression, matched whole against license names ("MIT License"). */
  findByName?(text: string): KnownLicense | undefined;
}

export interface ResolvedExpression {
  /** The text as written (trimmed). */
  readonly declared: string;
  /** Canonical form over keys ('' for an empty text); unknown symbols become UNKNOWN_LICENSE_KEY. */
  readonly expression: string;
  /** The same expression with SPDX ids. */
  readonly spdx: string;
  /** Distinct keys the canonical expression names, exceptions included, in order of appearance. */
  readonly keys: readonly string[];
  /** The subset of `keys` that are the dataspace's own licenses (the ones its counters track). */
  readonly dataspaceKeys: readonly string[];
  /** Symbols (or the whole text, when it is not an expression) kept as unknown, as written. */
  readonly unknown: readonly string[];
}

const EMPTY: ResolvedExpression = { declared: '', expression: '', spdx: '', keys: [], dataspaceKeys: [], unknown: [] };

/** SPDX words that mean "no license information" rather than a license. */
const NO_ASSERTION = new Set(['NOASSERTION', 'NONE']);

/** The SPDX id a key is written as when it has none of its own (an idstring: letters, digits, '.', '-'). */
export function spdxRefForKey(key: string): string {
  return `LicenseRef-dejacode-${key.replace(/[^A-Za-z0-9.-]/g, '-')}`;
}

const spdxOf = (license: KnownLicense) => license.spdxKey || spdxRefForKey(license.key);

export function resolveLicenseExpression(text: string, index: LicenseIndex): ResolvedExpression {
  const declared = text.trim();
  if (declared === '' || NO_ASSERTION.has(declared.toUpperCase())) return { ...EMPTY, declared };
  const parsed = parseLicenseExpression(declared);
  if (!parsed.ok) {
    const named = index.findByName?.(declared);
    if (named) return fromTree({ kind: 'license', key: declared }, declared, () => named);
    return {
      declared,
      expression: UNKNOWN_LICENSE_KEY,
      spdx: UNKNOWN_LICENSE_SPDX,
      keys: [UNKNOWN_LICENSE_KEY],
      dataspaceKeys: [],
      unknown: [declared],
    };
  }
  return fromTree(parsed.expression, declared, (symbol) => index.find(symbol));
}

function fromTree(
  tree: LicenseExpression,
  declared: string,
  lookup: (symbol: string) => KnownLicense | undefined,
): ResolvedExpression {
  const keys: string[] = [];
  const dataspaceKeys: string[] = [];
  const unknown: string[] = [];
  const resolve = (symbol: string): { key: string; spdx: string } => {
    const found = lookup(symbol);
    if (!found) {
      if (!unknown.includes(symbol)) unknown.push(symbol);
      if (!keys.includes(UNKNOWN_LICENSE_KEY)) keys.push(UNKNOWN_LICENSE_KEY);
      return { key: UNKNOWN_LICENSE_KEY, spdx: UNKNOWN_LICENSE_SPDX };
    }
    if (!keys.includes(found.key)) keys.push(found.key);
    if (found.source === 'dataspace' && !dataspaceKeys.includes(found.key)) dataspaceKeys.push(found.key);
    return { key: found.key, spdx: spdxOf(found) };
  };
  const render = (node: LicenseExpression, top: boolean): { key: string; spdx: string } => {
    if (node.kind === 'license') {
      const license = resolve(node.key);
      if (!node.exception) return license;
      const exception = resolve(node.exception);
      return { key: `${license.key} WITH ${exception.key}`, spdx: `${license.spdx} WITH ${exception.spdx}` };
    }
    const parts = node.operands.map((operand) => render(operand, false));
    const glue = node.kind === 'and' ? ' AND ' : ' OR ';
    const key = parts.map((part) => part.key).join(glue);
    const spdx = parts.map((part) => part.spdx).join(glue);
    return top ? { key, spdx } : { key: `(${key})`, spdx: `(${spdx})` };
  };
  const { key, spdx } = render(tree, true);
  return { declared, expression: key, spdx, keys, dataspaceKeys, unknown };
}

/**
 * How many licenses an expression names, for the limit on what one write may count: its distinct
 * known keys, and each unknown symbol (or the whole free text) as one.
 */
export function namedLicenseCount(resolved: ResolvedExpression): number {
  const known = resolved.keys.filter((key) => key !== UNKNOWN_LICENSE_KEY).length;
  const unknown = Math.max(resolved.unknown.length, resolved.keys.includes(UNKNOWN_LICENSE_KEY) ? 1 : 0);
  return known + unknown;
}

/**
 * The SPDX form of a canonical expression stored earlier, with each key's SPDX id as known now
 * (`spdxKeyOf` answers '' for a key without one, which is then written as a LicenseRef).
 */
export function canonicalToSpdx(expression: string, spdxKeyOf: (key: string) => string): string {
  if (expression === '') return '';
  const parsed = parseLicenseExpression(expression);
  if (!parsed.ok) return UNKNOWN_LICENSE_SPDX;
  const spdx = (key: string) => (key === UNKNOWN_LICENSE_KEY ? UNKNOWN_LICENSE_SPDX : spdxKeyOf(key) || spdxRefForKey(key));
  const render = (node: LicenseExpression, top: boolean): string => {
    if (node.kind === 'license') return node.exception ? `${spdx(node.key)} WITH ${spdx(node.exception)}` : spdx(node.key);
    const text = node.operands.map((operand) => render(operand, false)).join(node.kind === 'and' ? ' AND ' : ' OR ');
    return top ? text : `(${text})`;
  };
  return render(parsed.expression, true);
}
