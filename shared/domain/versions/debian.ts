/**
 * Debian's version order, dpkg's own (lib/dpkg/version.c: parseversion, verrevcmp), which no
 * maintained JavaScript library carries: [epoch:]upstream[-revision]; each part compared as runs of
 * non-digits (letters before other characters, '~' before everything, even the end) and runs of
 * digits compared as numbers. Checked against orderings dpkg produced (test/fixtures/osv/version-order).
 */

export interface DebianVersion {
  readonly epoch: bigint;
  readonly upstream: string;
  readonly revision: string;
}

export function parseDebianVersion(text: string): DebianVersion | undefined {
  const version = text.trim();
  if (version === '' || /\s/.test(version)) return undefined;
  const colon = version.indexOf(':');
  let epoch = 0n;
  if (colon !== -1) {
    const epochText = version.slice(0, colon);
    if (!/^\d+$/.test(epochText)) return undefined;
    epoch = BigInt(epochText);
  }
  const rest = version.slice(colon + 1);
  const hyphen = rest.lastIndexOf('-');
  const upstream = hyphen === -1 ? rest : rest.slice(0, hyphen);
  const revision = hyphen === -1 ? '' : rest.slice(hyphen + 1);
  // dpkg's checks: an upstream version starts with a digit and holds only these characters.
  if (!/^\d[A-Za-z0-9.+~:-]*$/.test(upstream) || (hyphen !== -1 && !/^[A-Za-z0-9.+~]+$/.test(revision))) return undefined;
  return { epoch, upstream, revision };
}

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const isAlpha = (c: string) => /[A-Za-z]/.test(c);

/** dpkg's order of a character in a non-digit run: the end 0, '~' below it, letters, then the rest. */
function order(c: string | undefined): number {
  if (c === undefined || isDigit(c)) return 0;
  if (isAlpha(c)) return c.charCodeAt(0);
  if (c === '~') return -1;
  return c.charCodeAt(0) + 256;
}

function verrevcmp(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    let firstDiff = 0;
    while ((i < a.length && !isDigit(a[i])) || (j < b.length && !isDigit(b[j]))) {
      const ac = order(a[i]);
      const bc = order(b[j]);
      if (ac !== bc) return ac - bc;
      i++;
      j++;
    }
    while (a[i] === '0') i++;
    while (b[j] === '0') j++;
    while (isDigit(a[i]) && isDigit(b[j])) {
      if (firstDiff === 0) firstDiff = a.charCodeAt(i) - b.charCodeAt(j);
      i++;
      j++;
    }
    if (isDigit(a[i])) return 1;
    if (isDigit(b[j])) return -1;
    if (firstDiff !== 0) return firstDiff;
  }
  return 0;
}

export function compareDebianVersions(a: DebianVersion, b: DebianVersion): number {
  if (a.epoch !== b.epoch) return a.epoch < b.epoch ? -1 : 1;
  return Math.sign(verrevcmp(a.upstream, b.upstream)) || Math.sign(verrevcmp(a.revision, b.revision));
}
