/**
 * Maven's version order, as org.apache.maven.artifact.versioning.ComparableVersion defines it (no
 * maintained JavaScript library carries it): a version is a list of numbers and qualifiers split at
 * '.', '-' and digit/letter transitions; '-' and transitions open a sub-list; trailing zeros and
 * release qualifiers ("", ga, final, release) are dropped; qualifiers order
 * alpha < beta < milestone < rc < snapshot < (release) < sp < any other, the others alphabetically.
 * Checked against the orderings Maven itself produced (test/fixtures/osv/version-order).
 */

type Item = { kind: 'int'; value: bigint } | { kind: 'string'; value: string } | { kind: 'list'; items: Item[] };

const QUALIFIERS = ['alpha', 'beta', 'milestone', 'rc', 'snapshot', '', 'sp'];
const ALIASES: Readonly<Record<string, string>> = { ga: '', final: '', release: '', cr: 'rc' };
const RELEASE_INDEX = String(QUALIFIERS.indexOf(''));

function stringItem(value: string, followedByDigit: boolean): Item {
  let text = value;
  if (followedByDigit && text.length === 1) text = ({ a: 'alpha', b: 'beta', m: 'milestone' } as Record<string, string>)[text] ?? text;
  return { kind: 'string', value: ALIASES[text] ?? text };
}

function parseItem(text: string, isDigit: boolean): Item {
  return isDigit ? { kind: 'int', value: BigInt(text) } : stringItem(text, false);
}

/** Sorts unknown qualifiers after the known ones, alphabetically among themselves. */
function comparableQualifier(qualifier: string): string {
  const index = QUALIFIERS.indexOf(qualifier);
  return index === -1 ? `${QUALIFIERS.length}-${qualifier}` : String(index);
}

function isNull(item: Item): boolean {
  if (item.kind === 'int') return item.value === 0n;
  if (item.kind === 'string') return item.value === '';
  return item.items.length === 0;
}

function normalize(list: Item[]): void {
  for (let i = list.length - 1; i >= 0; i--) {
    const last = list[i]!;
    if (isNull(last)) list.splice(i, 1);
    else if (last.kind !== 'list') break;
  }
}


function compareItem(left: Item, right: Item | undefined): number {
  switch (left.kind) {
    case 'int':
      if (right === undefined) return left.value === 0n ? 0 : 1;
      if (right.kind === 'int') return left.value < right.value ? -1 : left.value > right.value ? 1 : 0;
      return 1;
    case 'string':
      // 1-rc < 1, 1-sp > 1
      if (right === undefined) return compareStrings(comparableQualifier(left.value), RELEASE_INDEX);
      if (right.kind === 'int' || right.kind === 'list') return -1;
      return compareStrings(comparableQualifier(left.value), comparableQualifier(right.value));
    case 'list': {
      if (right === undefined) {
        for (const item of left.items) {
          const result = compareItem(item, undefined);
          if (result !== 0) return result;
        }
        return 0;
      }
      if (right.kind === 'int') return -1;
      if (right.kind === 'string') return 1;
      const length = Math.max(left.items.length, right.items.length);
      for (let i = 0; i < length; i++) {
        const l = left.items[i];
        const r = right.items[i];
        const result = l === undefined ? (r === undefined ? 0 : -compareItem(r, l)) : compareItem(l, r);
        if (result !== 0) return result;
      }
      return 0;
    }
  }
}

/** Java's String.compareTo: by UTF-16 code unit. */
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export type MavenVersion = { readonly kind: 'list'; readonly items: Item[] };

export function parseMavenVersion(text: string): MavenVersion | undefined {
  const version = text.trim().toLowerCase();
  if (version === '' || /\s/.test(version)) return undefined;
  const root: Item[] = [];
  let list = root;
  const stack: Item[][] = [root];
  let isDigit = false;
  let start = 0;
  const open = () => {
    const sub: Item[] = [];
    list.push({ kind: 'list', items: sub });
    list = sub;
    stack.push(sub);
  };
  for (let i = 0; i < version.length; i++) {
    const c = version[i]!;
    if (c === '.' || c === '-') {
      list.push(i === start ? { kind: 'int', value: 0n } : parseItem(version.slice(start, i), isDigit));
      start = i + 1;
      if (c === '-') open();
    } else if (c >= '0' && c <= '9') {
      if (!isDigit && i > start) {
        // A letter run followed by a digit: "rc1" is rc, then 1, in a sub-list.
        list.push(stringItem(version.slice(start, i), true));
        start = i;
        open();
      }
      isDigit = true;
    } else {
      if (isDigit && i > start) {
        list.push(parseItem(version.slice(start, i), true));
        start = i;
        open();
      }
      isDigit = false;
    }
  }
  if (version.length > start) list.push(parseItem(version.slice(start), isDigit));
  while (stack.length > 0) normalize(stack.pop()!);
  return { kind: 'list', items: root };
}

export function compareMavenVersions(a: MavenVersion, b: MavenVersion): number {
  return compareItem(a, b);
}
