/**
 * Each ecosystem's version order against orderings its own tools produced: the files in
 * test/fixtures/osv/version-order (from google/osv-scalibr's semantic test data, Apache-2.0; the
 * "-generated" ones were made by Maven's ComparableVersion, dpkg, apk, PHP's version_compare,
 * Python's packaging and RubyGems themselves; see that folder's README).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { VERSION_SCHEMES, versionScheme } from '../../shared/domain/versions/index.ts';
import { compareAlpineVersions, isAlpineVersion } from '../../shared/domain/versions/alpine.ts';

const FIXTURES = new URL('../fixtures/osv/version-order/', import.meta.url);

interface Pair {
  readonly line: string;
  readonly a: string;
  readonly b: string;
  readonly expected: -1 | 0 | 1;
}

function pairs(file: string): Pair[] {
  return readFileSync(new URL(file, FIXTURES), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#') && !line.startsWith('//'))
    .map((line) => {
      const match = /^(\S+) ([<=>]) (\S+)$/.exec(line);
      if (!match) throw new Error(`Not an ordering: ${line}`);
      return { line, a: match[1]!, b: match[3]!, expected: match[2] === '<' ? -1 : match[2] === '>' ? 1 : 0 };
    });
}

/** The pairs the scheme orders wrongly, and those it cannot parse (each listed). */
function check(ecosystem: string, file: string) {
  const scheme = VERSION_SCHEMES[ecosystem]!;
  const wrong: string[] = [];
  const unparsed: string[] = [];
  const all = pairs(file);
  for (const pair of all) {
    const a = scheme.parse(pair.a);
    const b = scheme.parse(pair.b);
    if (a === undefined || b === undefined) unparsed.push(pair.line);
    else if (Math.sign(scheme.compare(a, b)) !== pair.expected) wrong.push(`${pair.line} (got ${Math.sign(scheme.compare(a, b))})`);
  }
  return { total: all.length, wrong, unparsed };
}

describe('version orders, as the ecosystems order them', () => {
  it.each([
    ['Maven', 'maven-versions-generated.txt', 14_752],
    ['Debian', 'debian-versions-generated.txt', 14_442],
    ['Debian', 'debian-versions.txt', 30],
    ['Alpine', 'alpine-versions-generated.txt', 13_979],
    ['Packagist', 'packagist-versions-generated.txt', 10_630],
    ['Packagist', 'packagist-versions.txt', 95],
    ['RubyGems', 'rubygems-versions-generated.txt', 4_098],
    ['NuGet', 'nuget-versions.txt', 35],
  ])('%s orders every pair of %s as its tool did', (ecosystem, file, count) => {
    const result = check(ecosystem, file);
    expect(result.total).toBe(count);
    expect(result.wrong).toEqual([]);
    expect(result.unparsed).toEqual([]);
  });

  it('Maven: the hand-written orderings too, but one where the Maven 4 spec and ComparableVersion part', () => {
    const result = check('Maven', 'maven-versions.txt');
    // ComparableVersion (Maven 3.x, which built the generated file) keeps "1-ga-1" a sub-list of its own.
    expect(result.wrong).toEqual(['1-1 = 1-ga-1 (got 1)']);
    expect(result.unparsed).toEqual([]);
  });

  it("PyPI: every PEP 440 version as packaging orders it; pre-PEP 440 ('legacy') versions are refused, not guessed", () => {
    for (const file of ['pypi-versions-generated.txt', 'pypi-versions.txt']) {
      const result = check('PyPI', file);
      expect(result.wrong).toEqual([]);
      // packaging dropped LegacyVersion in 22.0: "0.1-bulbasaur" is no version to it either.
      for (const line of result.unparsed) expect(line.split(/ [<=>] /).some((v) => VERSION_SCHEMES.PyPI!.parse(v) === undefined)).toBe(true);
      if (file.includes('generated')) expect(result.unparsed.length).toBeLessThan(result.total / 100);
    }
  });

  it('npm, Pub, Go: SemVer 2.0 (Pub ordering builds after the release); what SemVer refuses is refused', () => {
    for (const [ecosystem, file] of [['npm', 'semver-versions.txt'], ['Pub', 'pub-versions.txt']] as const) {
      const result = check(ecosystem, file);
      expect(result.wrong).toEqual([]);
      // Numbers past 2^53 and five-part versions: no SemVer.
      expect(result.unparsed).toHaveLength(3);
    }
    const go = versionScheme('Go')!;
    const order = ['v0.0.0-20190308221718-c2843e01d9a2', 'v0.0.0-20210428140749-89ef3d95e781', '0.1.0', 'v1.2.3-pre', 'v1.2.3', 'v2.0.0+incompatible', 'v2.0.1'];
    for (let i = 1; i < order.length; i++) expect(go.compare(go.parse(order[i - 1]!), go.parse(order[i]!)), `${order[i - 1]} < ${order[i]}`).toBeLessThan(0);
    expect(go.parse('master')).toBeUndefined();
  });

  it('RubyGems: the hand-written orderings, but numbers past 2^53, which the library compares as equal', () => {
    const result = check('RubyGems', 'rubygems-versions.txt');
    expect(result.wrong.map((line) => line.split(' ')[0]!.length > 20)).toEqual([true, true]);
    // RubyGems itself refuses "1beta" (a letter needs a dot before it).
    expect(result.unparsed).toEqual(['1 > 1beta', '1 > 1gamma']);
  });

  it('Alpine: the hand-written orderings of valid versions (apk 3 and 2 order some invalid ones apart)', () => {
    const valid = pairs('alpine-versions.txt').filter((pair) => isAlpineVersion(pair.a) && isAlpineVersion(pair.b));
    expect(valid.length).toBeGreaterThan(700);
    expect(valid.filter((pair) => Math.sign(compareAlpineVersions(pair.a, pair.b)) !== pair.expected).map((pair) => pair.line)).toEqual([]);
    expect(versionScheme('Alpine:v3.18')!.parse('1.2.0A')).toBeUndefined();
  });

  it('knows an ecosystem by its name, whatever release suffix it carries, and no other', () => {
    expect(versionScheme('Debian:12')).toBe(VERSION_SCHEMES.Debian);
    expect(versionScheme('Alpine:v3.16')).toBe(VERSION_SCHEMES.Alpine);
    expect(versionScheme('GIT')).toBeUndefined();
    expect(versionScheme('constructor')).toBeUndefined();
  });
});
