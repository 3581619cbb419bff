/**
 * Packagist's version order: PHP's version_compare (ext/standard/versioning.c), which Composer and
 * OSV's Packagist records follow, with Composer's leading "v" dropped. No maintained JavaScript
 * library carries it. A version is canonicalised (-, _ and + become '.', a '.' goes between digits
 * and letters), then compared part by part: numbers numerically, words by their special form
 * (dev < alpha = a < beta = b < RC = rc < a number < pl = p; any other word below dev). Checked
 * against orderings PHP produced (test/fixtures/osv/version-order).
 */

export type PackagistVersion = readonly string[];

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

function canonicalize(version: string): string {
  let out = version[0]!;
  let previous = version[0]!;
  const dot = () => {
    if (out[out.length - 1] !== '.') out += '.';
  };
  for (const c of version.slice(1)) {
    const isNumber = isDigit(c);
    const wasNumber = isDigit(previous);
    if (c === '-' || c === '_' || c === '+') dot();
    else if ((previous !== '.' && !wasNumber && isNumber) || (wasNumber && c !== '.' && !isNumber)) {
      dot();
      out += c;
    } else out += c;
    previous = c;
  }
  return out;
}

export function parsePackagistVersion(text: string): PackagistVersion | undefined {
  let version = text.trim();
  if (/^[vV]\d/.test(version)) version = version.slice(1);
  if (version === '' || /\s/.test(version)) return undefined;
  return canonicalize(version).split('.');
}

const FORMS: readonly (readonly [string, number])[] = [
  ['dev', 0], ['alpha', 1], ['a', 1], ['beta', 2], ['b', 2], ['RC', 3], ['rc', 3], ['#', 4], ['pl', 5], ['p', 5],
];

/** PHP matches a part against each form's name as a prefix of the part ("abc" is "a", "patch" is "p"). */
function specialForm(part: string): number {
  return FORMS.find(([name]) => part.startsWith(name))?.[1] ?? -1;
}

function compareForms(a: string, b: string): number {
  return Math.sign(specialForm(a) - specialForm(b));
}

const NUMBER = '#N#';

function compareParts(a: readonly string[], b: readonly string[]): number {
  let compare = 0;
  let i = 0;
  for (; i < a.length && i < b.length && compare === 0; i++) {
    const p1 = a[i]!;
    const p2 = b[i]!;
    if (isDigit(p1[0]) && isDigit(p2[0])) {
      const l1 = BigInt(/^\d+/.exec(p1)![0]);
      const l2 = BigInt(/^\d+/.exec(p2)![0]);
      compare = l1 < l2 ? -1 : l1 > l2 ? 1 : 0;
    } else if (!isDigit(p1[0]) && !isDigit(p2[0])) {
      compare = compareForms(p1, p2);
    } else {
      compare = isDigit(p1[0]) ? compareForms(NUMBER, p2) : compareForms(p1, NUMBER);
    }
  }
  if (compare !== 0) return compare;
  // What is left of the longer one decides: a number makes it newer, a word is weighed against a number.
  if (i < a.length) return isDigit(a[i]![0]) ? 1 : compareParts(a.slice(i), [NUMBER]);
  if (i < b.length) return isDigit(b[i]![0]) ? -1 : compareParts([NUMBER], b.slice(i));
  return 0;
}

export function comparePackagistVersions(a: PackagistVersion, b: PackagistVersion): number {
  return compareParts(a, b);
}
