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
  /**
   * A license as written that is no key or SPDX id (a name or tag, a URL, a full text), with what else
   * the document says of it: a dataspace mapping first, then ScanCode's rules. The expression is over
   * keys this index finds.
   */
  recognise?(written: string, hint?: LicenseHint): Recognition | undefined;
}

/** What a document says of a license beside the way it names it: CycloneDX `url` and `text`, SPDX `extractedText` and `name`. */
export interface LicenseHint {
  readonly name?: string;
  readonly url?: string;
  readonly text?: string;
}

/** How a license as written was recognised: by a dataspace mapping, or by ScanCode's name, URL or text rules. */
export type RecognisedBy = 'mapping' | 'name' | 'url' | 'text';

export interface Recognition {
  /** An expression over keys. */
  readonly expression: string;
  readonly by: RecognisedBy;
  /** What matched: the ScanCode rule or license file, or the mapping's uuid. */
  readonly rule: string;
}

/** One license as written that was resolved by recognition, not by its key or SPDX id: the answer's `resolved_from`. */
export interface Resolution {
  readonly written: string;
  /** The canonical expression it resolved to. */
  readonly expression: string;
  readonly by: RecognisedBy;
  readonly rule: string;
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
  /** Symbols (or the whole free text, when it is not an expression) kept as unknown, as written. */
  readonly unknown: readonly string[];
  /** The parts that were recognised by name, URL, text or mapping, and what said so. */
  readonly resolvedFrom: readonly Resolution[];
}

const EMPTY: ResolvedExpression = { declared: '', expression: '', spdx: '', keys: [], dataspaceKeys: [], unknown: [], resolvedFrom: [] };

/** SPDX words that mean "no license information" rather than a license. */
const NO_ASSERTION = new Set(['NOASSERTION', 'NONE']);

/** The SPDX id a key is written as when it has none of its own (an idstring: letters, digits, '.', '-'). */
export function spdxRefForKey(key: string): string {
  return `LicenseRef-dejacode-${key.replace(/[^A-Za-z0-9.-]/g, '-')}`;
}

const spdxOf = (license: KnownLicense) => license.spdxKey || spdxRefForKey(license.key);

/** A license hint per symbol or name as written (trimmed). */
export type LicenseHints = ReadonlyMap<string, LicenseHint>;

/** An expression whose leaves are resolved: a known license, or an unknown one as written. */
type Resolved =
  | { readonly kind: 'known'; readonly license: KnownLicense; readonly exception?: KnownLicense }
  | { readonly kind: 'unknown'; readonly written: string }
  /** `A WITH E` where one side is unknown: each side kept as it resolved. */
  | { readonly kind: 'with'; readonly license: Resolved; readonly exception: Resolved }
  /** A part recognised by name, URL, text or mapping: its tree, and what said so (kept only if the part is used). */
  | { readonly kind: 'recognised'; readonly resolution: Resolution; readonly tree: Resolved }
  | { readonly kind: 'and' | 'or'; readonly operands: readonly Resolved[] };

/** At most this many `and`/`or` words are tried as places to split free text (the splits are 2^n). */
const MAX_SPLIT_WORDS = 8;

export function resolveLicenseExpression(text: string, index: LicenseIndex, hints?: LicenseHints): ResolvedExpression {
  const declared = text.trim();
  if (declared === '' || NO_ASSERTION.has(declared.toUpperCase())) return { ...EMPTY, declared };
  const resolver = new Resolver(index, hints);
  const parsed = parseLicenseExpression(declared);
  const tree = parsed.ok ? resolver.tree(parsed.expression) : (resolver.freeText(declared) ?? resolver.joined(declared) ?? { kind: 'unknown', written: declared });
  return render(tree, declared);
}

class Resolver {
  private readonly memo = new Map<string, Resolved | null>();
  constructor(
    private readonly index: LicenseIndex,
    private readonly hints: LicenseHints | undefined,
  ) {}

  /** A parsed expression: each symbol by key or SPDX id, else recognised, else unknown. */
  tree(node: LicenseExpression): Resolved {
    if (node.kind !== 'license') return { kind: node.kind, operands: node.operands.map((operand) => this.tree(operand)) };
    if (node.exception) {
      const license = this.index.find(node.key);
      const exception = this.index.find(node.exception);
      if (!license || !exception) {
        // The unknown side is kept as written; a known one keeps its key.
        return {
          kind: 'with',
          license: license ? { kind: 'known', license } : { kind: 'unknown', written: node.key },
          exception: exception ? { kind: 'known', license: exception } : { kind: 'unknown', written: node.exception },
        };
      }
      return { kind: 'known', license, exception };
    }
    return this.symbol(node.key) ?? { kind: 'unknown', written: node.key };
  }

  /** One license as written: its key or SPDX id, else a name of the reference library, else recognised. */
  private symbol(written: string): Resolved | undefined {
    const found = this.index.find(written);
    if (found) return { kind: 'known', license: found };
    return this.recognised(written);
  }

  private recognised(written: string, exceptionAlone = false): Resolved | undefined {
    // Keyed by the name as the document wrote it; the SBOM reader wraps a name holding "and"/"or" in parentheses.
    const hint = this.hints?.get(written) ?? this.hints?.get(unwrapped(written));
    const named = this.index.findByName?.(written) ?? (hint?.name ? this.index.findByName?.(hint.name) : undefined);
    if (named && !named.isException) {
      return { kind: 'recognised', resolution: { written: unwrapped(written), expression: named.key, by: 'name', rule: 'reference library' }, tree: { kind: 'known', license: named } };
    }
    const recognition = this.index.recognise?.(written, hint);
    if (!recognition) return undefined;
    const parsed = parseLicenseExpression(recognition.expression);
    if (!parsed.ok) return undefined;
    const tree = this.keysOnly(parsed.expression);
    // An exception alone is no license (a URL of the Classpath exception, say): not a resolution.
    if (!tree || (!exceptionAlone && tree.kind === 'known' && tree.license.isException && !tree.exception)) return undefined;
    return { kind: 'recognised', resolution: { written: unwrapped(written), expression: parsed.normalized, by: recognition.by, rule: recognition.rule }, tree };
  }

  /** An expression over keys (a rule's or a mapping's): every key must be found, else nothing. */
  private keysOnly(node: LicenseExpression): Resolved | undefined {
    if (node.kind === 'license') {
      const license = this.index.find(node.key);
      const exception = node.exception === undefined ? undefined : this.index.find(node.exception);
      if (!license || (node.exception !== undefined && !exception)) return undefined;
      return exception ? { kind: 'known', license, exception } : { kind: 'known', license };
    }
    const operands: Resolved[] = [];
    for (const operand of node.operands) {
      const resolved = this.keysOnly(operand);
      if (!resolved) return undefined;
      operands.push(resolved);
    }
    return { kind: node.kind, operands };
  }

  /**
   * Free text that is no expression: the whole as a name, URL or text; else, in parentheses, what they
   * hold; else split at its `and`/`or` words into the fewest parts that each resolve
   * (`MPL 2.0 or EPL 1.0`, `Apache License, Version 2.0 AND MIT`), all joined by the same word. What
   * does not resolve whole is undefined: the caller keeps it as written.
   */
  freeText(text: string, within?: 'and' | 'or'): Resolved | undefined {
    const written = text.trim();
    const memoKey = `${within ?? ''}\u0000${written}`;
    if (this.memo.has(memoKey)) return this.memo.get(memoKey) ?? undefined;
    this.memo.set(memoKey, null);
    const result = this.whole(written) ?? this.inParentheses(written) ?? this.split(written, within) ?? this.withException(written);
    this.memo.set(memoKey, result ?? null);
    return result;
  }

  private whole(written: string): Resolved | undefined {
    const parsed = parseLicenseExpression(written);
    if (parsed.ok) {
      if (parsed.expression.kind === 'license' && !parsed.expression.exception) return this.symbol(parsed.expression.key);
      // An expression inside free text counts only when all of it resolves.
      const tree = this.tree(parsed.expression);
      return hasUnknown(tree) ? undefined : tree;
    }
    return this.recognised(written);
  }

  private inParentheses(written: string): Resolved | undefined {
    return wrapped(written) ? this.freeText(written.slice(1, -1)) : undefined;
  }

  /**
   * Licenses joined by an SPDX operator (`AND`, `OR` in capitals, as an SBOM reader joins a
   * component's several licenses): each part resolved on its own, and the parts that do not resolve
   * kept as unknown, as written. Only when some part resolves; else the text stays unknown whole.
   */
  joined(written: string): Resolved | undefined {
    const words = splitWords(written).filter((word) => word.written === word.kind.toUpperCase());
    const kinds = new Set(words.map((word) => word.kind));
    if (words.length === 0 || kinds.size !== 1) return undefined;
    const parts: string[] = [];
    let from = 0;
    for (const word of words) {
      parts.push(written.slice(from, word.start).trim());
      from = word.end;
    }
    parts.push(written.slice(from).trim());
    if (parts.some((part) => part === '')) return undefined;
    const operands = parts.map((part): Resolved => this.freeText(part) ?? { kind: 'unknown', written: unwrapped(part) });
    return operands.some((operand) => operand.kind !== 'unknown') ? { kind: [...kinds][0]!, operands } : undefined;
  }

  /**
   * `<license> with <exception>` in words (`GNU General Public License, version 2 with the Classpath
   * Exception`): when the words before resolve to one license and the words after to one exception.
   */
  private withException(written: string): Resolved | undefined {
    for (const match of written.matchAll(/[\s,]+with\s+/gi)) {
      const before = written.slice(0, match.index).trim();
      const after = written.slice(match.index + match[0].length).trim().replace(/^the\s+/i, '');
      if (before === '' || after === '' || depthAt(written, match.index) !== 0) continue;
      const licensePart = this.freeText(before) ?? this.freeText(before.replace(/\s*\([^()]*\)\s*$/, ''));
      const found = this.index.find(after);
      const exceptionPart: Resolved | undefined = found ? { kind: 'known', license: found } : this.recognised(after, true);
      const license = licensePart && single(licensePart);
      const exception = exceptionPart && single(exceptionPart);
      if (license && !license.isException && exception?.isException) {
        const tree: Resolved = { kind: 'known', license, exception };
        // What recognised each side is kept: the parts are wrapped around the combined license.
        let combined: Resolved = tree;
        for (const part of [licensePart, exceptionPart]) if (part?.kind === 'recognised') combined = { kind: 'recognised', resolution: part.resolution, tree: combined };
        return combined;
      }
    }
    return undefined;
  }

  /**
   * `within`: the word the enclosing split used. A part is split again only by the same word: `A or B
   * and C` mixes the two, and which binds tighter is not guessed at.
   */
  private split(written: string, within?: 'and' | 'or'): Resolved | undefined {
    const words = splitWords(written);
    if (words.length === 0 || words.length > MAX_SPLIT_WORDS) return undefined;
    // Fewest parts first: choose which of the words split, by the number of splits.
    for (let splits = 1; splits <= words.length; splits++) {
      for (const chosen of combinations(words.length, splits)) {
        const kinds = new Set(chosen.map((i) => words[i]!.kind));
        const kind = [...kinds][0]!;
        if (kinds.size !== 1 || (within !== undefined && kind !== within)) continue;
        const operands: Resolved[] = [];
        let from = 0;
        for (const i of [...chosen, -1]) {
          const part = i === -1 ? written.slice(from) : written.slice(from, words[i]!.start);
          const resolved = part.trim() === '' ? undefined : this.freeText(part, kind);
          if (!resolved) break;
          operands.push(resolved);
          if (i !== -1) from = words[i]!.end;
        }
        if (operands.length === chosen.length + 1) return { kind, operands };
      }
    }
    return undefined;
  }
}

const hasUnknown = (tree: Resolved): boolean =>
  tree.kind === 'unknown' ||
  tree.kind === 'with' ||
  (tree.kind === 'recognised' && hasUnknown(tree.tree)) ||
  ((tree.kind === 'and' || tree.kind === 'or') && tree.operands.some(hasUnknown));

/** The one license (without exception) a part resolved to, through what recognised it; else undefined. */
function single(tree: Resolved): KnownLicense | undefined {
  if (tree.kind === 'recognised') return single(tree.tree);
  return tree.kind === 'known' && !tree.exception ? tree.license : undefined;
}

/** The `and` / `or` words of free text outside parentheses, where it may be split. */
function splitWords(text: string): { start: number; end: number; kind: 'and' | 'or'; written: string }[] {
  const words: { start: number; end: number; kind: 'and' | 'or'; written: string }[] = [];
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (depth === 0 && /\s/.test(c!)) {
      const match = /^\s+(and|or)\s+/i.exec(text.slice(i));
      if (match) {
        words.push({ start: i, end: i + match[0].length, kind: match[1]!.toLowerCase() as 'and' | 'or', written: match[1]! });
        i += match[0].length - 2;
      }
    }
  }
  return words;
}

/** The text without the parentheses that wrap all of it (as an SBOM reader joins a license name). */
const unwrapped = (text: string): string => (wrapped(text) ? unwrapped(text.slice(1, -1).trim()) : text);

/** How many parentheses are open at `position`. */
function depthAt(text: string, position: number): number {
  let depth = 0;
  for (let i = 0; i < position; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') depth = Math.max(0, depth - 1);
  }
  return depth;
}

/** The k-element subsets of 0..n-1, in increasing order. */
function* combinations(n: number, k: number, from = 0, chosen: number[] = []): Generator<number[]> {
  if (chosen.length === k) {
    yield chosen;
    return;
  }
  for (let i = from; i <= n - (k - chosen.length); i++) yield* combinations(n, k, i + 1, [...chosen, i]);
}

/** Whether the whole text is one parenthesized group: "(A OR B)", not "(A) OR (B)". */
export function wrapped(text: string): boolean {
  if (!text.startsWith('(') || !text.endsWith(')')) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') {
      depth--;
      if (depth === 0 && i < text.length - 1) return false;
    }
  }
  return true;
}

function render(tree: Resolved, declared: string): ResolvedExpression {
  const resolvedFrom: Resolution[] = [];
  const keys: string[] = [];
  const dataspaceKeys: string[] = [];
  const unknown: string[] = [];
  const known = (license: KnownLicense) => {
    if (!keys.includes(license.key)) keys.push(license.key);
    if (license.source === 'dataspace' && !dataspaceKeys.includes(license.key)) dataspaceKeys.push(license.key);
    return { key: license.key, spdx: spdxOf(license) };
  };
  const missing = (written: string) => {
    if (!unknown.includes(written)) unknown.push(written);
    if (!keys.includes(UNKNOWN_LICENSE_KEY)) keys.push(UNKNOWN_LICENSE_KEY);
    return { key: UNKNOWN_LICENSE_KEY, spdx: UNKNOWN_LICENSE_SPDX };
  };
  const walk = (node: Resolved, top: boolean): { key: string; spdx: string } => {
    if (node.kind === 'known') {
      const license = known(node.license);
      if (!node.exception) return license;
      const exception = known(node.exception);
      return { key: `${license.key} WITH ${exception.key}`, spdx: `${license.spdx} WITH ${exception.spdx}` };
    }
    if (node.kind === 'unknown') return missing(node.written);
    if (node.kind === 'recognised') {
      if (!resolvedFrom.some((r) => r.written === node.resolution.written && r.expression === node.resolution.expression)) resolvedFrom.push(node.resolution);
      return walk(node.tree, top);
    }
    if (node.kind === 'with') {
      const license = walk(node.license, false);
      const exception = walk(node.exception, false);
      return { key: `${license.key} WITH ${exception.key}`, spdx: `${license.spdx} WITH ${exception.spdx}` };
    }
    const parts = node.operands.map((operand) => walk(operand, false));
    const glue = node.kind === 'and' ? ' AND ' : ' OR ';
    const key = parts.map((part) => part.key).join(glue);
    const spdx = parts.map((part) => part.spdx).join(glue);
    return top ? { key, spdx } : { key: `(${key})`, spdx: `(${spdx})` };
  };
  const { key, spdx } = walk(tree, true);
  return { declared, expression: key, spdx, keys, dataspaceKeys, unknown, resolvedFrom };
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

/** What a package stores of its license, as re-resolution reads it. */
export interface StoredLicense {
  readonly licenseExpression: string;
  readonly declaredLicenseExpression: string;
  readonly unknownLicenses: readonly string[];
}

/**
 * A stored license resolved again with what the index knows now (ScanCode's rules of a newer data file,
 * a dataspace's new mapping), or undefined when nothing is to change. Only a license whose expression is
 * what its declared text gives with its unknown parts left unknown is re-resolved (it came from that
 * text, not from an expression written beside it, nor from a URL or text the SBOM gave beside a name);
 * and only to fewer unknown licenses: re-resolution never makes a known license unknown.
 */
export function reresolution(stored: StoredLicense, index: LicenseIndex): ResolvedExpression | undefined {
  const declared = stored.declaredLicenseExpression.trim();
  if (stored.unknownLicenses.length === 0 || declared === '') return undefined;
  const unknown = new Set(stored.unknownLicenses);
  // A part of an unknown text is unknown too: when the resolver kept a whole text (`Foo License and MIT`), no
  // split of it resolved then, so none of its parts was recognised.
  const isUnknown = (written: string) => {
    const text = written.trim();
    return unknown.has(text) || unknown.has(unwrapped(text)) || [...unknown].some((whole) => whole.includes(text));
  };
  const asStored: LicenseIndex = {
    find: (symbol) => index.find(symbol),
    findByName: (text) => (isUnknown(text) ? undefined : index.findByName?.(text)),
    recognise: (written, hint) => (isUnknown(written) ? undefined : index.recognise?.(written, hint)),
  };
  if (resolveLicenseExpression(declared, asStored).expression !== stored.licenseExpression) return undefined;
  const now = resolveLicenseExpression(declared, index);
  return now.unknown.length < stored.unknownLicenses.length ? now : undefined;
}
