/**
 * NuGet's version order (NuGet.Versioning's NuGetVersion and VersionComparer, which no maintained
 * JavaScript library carries): up to four numbers, missing ones 0 ("1.0" = "1.0.0.0", leading zeros
 * allowed); a release sorts after its pre-releases; pre-release labels compare as SemVer 2.0 does
 * (numeric labels numerically and below alphanumeric ones), ignoring case; build metadata is ignored.
 */

export interface NuGetVersion {
  readonly numbers: readonly [bigint, bigint, bigint, bigint];
  readonly prerelease: readonly string[];
}

const FORM = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

export function parseNuGetVersion(text: string): NuGetVersion | undefined {
  const match = FORM.exec(text.trim());
  if (!match) return undefined;
  const number = (part: string | undefined) => BigInt(part ?? '0');
  return {
    numbers: [number(match[1]), number(match[2]), number(match[3]), number(match[4])],
    prerelease: match[5] ? match[5].toLowerCase().split('.') : [],
  };
}

const NUMERIC = /^\d+$/;

function compareLabel(a: string, b: string): number {
  const aNumeric = NUMERIC.test(a);
  const bNumeric = NUMERIC.test(b);
  if (aNumeric && bNumeric) {
    const x = BigInt(a);
    const y = BigInt(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (aNumeric !== bNumeric) return aNumeric ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

export function compareNuGetVersions(a: NuGetVersion, b: NuGetVersion): number {
  for (let i = 0; i < 4; i++) {
    if (a.numbers[i]! !== b.numbers[i]!) return a.numbers[i]! < b.numbers[i]! ? -1 : 1;
  }
  // A release sorts after its pre-releases.
  if (a.prerelease.length === 0 || b.prerelease.length === 0) return Math.sign(b.prerelease.length) - Math.sign(a.prerelease.length);
  for (let i = 0; i < Math.min(a.prerelease.length, b.prerelease.length); i++) {
    const result = compareLabel(a.prerelease[i]!, b.prerelease[i]!);
    if (result !== 0) return result;
  }
  return Math.sign(a.prerelease.length - b.prerelease.length);
}
