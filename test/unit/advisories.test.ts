/**
 * OSV records as the service keeps them, and matching them to packages, on real data: the Go
 * vulnerability database's records for the modules of a real Go service's SBOM (ProtonMail's
 * proton-bridge 1.8.0, made by cyclonedx-gomod in 2021), and the Python Packaging Authority's records
 * for ten popular packages (test/fixtures/osv/README.md says where each comes from).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { advisoryFromOsv, MAX_DETAILS_CHARS, type Advisory, type AffectedEntry } from '../../shared/domain/advisories.ts';
import { advisoriesAffecting, matchVersion } from '../../shared/domain/advisory-matching.ts';
import { advisoryPackageKeys, osvCoordinates, osvPackageKey } from '../../shared/domain/osv-packages.ts';
import { cvssBaseScore } from '../../shared/domain/cvss.ts';
import { purlFromString } from '../../shared/sbom/purl.ts';

const FIXTURES = new URL('../fixtures/', import.meta.url);
const records = (folder: string) =>
  readdirSync(new URL(`osv/${folder}/`, FIXTURES)).map((file) => JSON.parse(readFileSync(new URL(`osv/${folder}/${file}`, FIXTURES), 'utf8')) as Record<string, unknown>);

function advisories(folder: string): Advisory[] {
  return records(folder).map((record) => {
    const result = advisoryFromOsv(record);
    if (!result.ok) throw new Error(`${String(record.id)}: ${result.problems.join('; ')}`);
    return result.advisory;
  });
}

/** Every advisory's entries by package key: what the store's one lookup per package answers. */
function indexOf(list: readonly Advisory[]): Map<string, { advisory: Advisory; entries: AffectedEntry[] }[]> {
  const index = new Map<string, { advisory: Advisory; entries: AffectedEntry[] }[]>();
  for (const advisory of list) {
    for (const key of advisoryPackageKeys(advisory)) {
      const entries = advisory.affected.filter((entry) => osvPackageKey(entry.ecosystem, entry.name) === key);
      index.set(key, [...(index.get(key) ?? []), { advisory, entries }]);
    }
  }
  return index;
}

const GO = advisories('go');
const PYPI = advisories('pypi');

describe('OSV records, kept', () => {
  it('takes every real record of the fixtures, with its aliases, dates and affected entries', () => {
    expect(GO).toHaveLength(78);
    expect(PYPI).toHaveLength(212);
    const record = GO.find((advisory) => advisory.id === 'GO-2022-0236')!;
    expect(record).toMatchObject({
      aliases: ['CVE-2021-31525', 'GHSA-h86h-8ppg-mxmh'],
      published: '2022-07-15T23:04:18Z',
      withdrawn: null,
      affected: [
        { ecosystem: 'Go', name: 'stdlib', ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '1.15.12' }, { introduced: '1.16.0-0' }, { fixed: '1.16.4' }] }] },
        { ecosystem: 'Go', name: 'golang.org/x/net' },
      ],
    });
    // Go's records carry the symbols affected: kept, as small.
    expect(record.affected[0]!.ecosystemSpecific).toMatchObject({ imports: [{ path: 'net/http' }] });
  });

  it('scores CVSS vectors with the maintained calculator, v2 to v4, and takes the highest as the risk score', () => {
    expect(cvssBaseScore('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H')).toBe(9.8);
    expect(cvssBaseScore('CVSS:3.0/AV:N/AC:L/PR:N/UI:R/S:U/C:N/I:N/A:H')).toBe(6.5);
    expect(cvssBaseScore('CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N')).toBe(9.3);
    expect(cvssBaseScore('AV:N/AC:L/Au:N/C:P/I:P/A:P')).toBe(7.5);
    // Half a vector scores nothing: the calculator would fill in what is missing.
    for (const partial of ['CVSS:3.1/AV:N/AC:L', 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:X', 'CVSS:3.1/AV:N/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 'CVSS:5.0/AV:N', 'high', '']) {
      expect(cvssBaseScore(partial), partial).toBeNull();
    }
    const scored = [...GO, ...PYPI].filter((advisory) => advisory.severity.some((entry) => entry.type.startsWith('CVSS_')));
    expect(scored.length).toBe(5);
    for (const advisory of scored) expect(advisory.riskScore).toBe(Math.max(...advisory.severity.map((entry) => entry.baseScore ?? 0)));
  });

  it('bounds the details at a word, and says so', () => {
    const long = { id: 'GO-2099-0001', modified: '2024-01-01T00:00:00Z', details: 'word '.repeat(5_000) };
    const result = advisoryFromOsv(long);
    expect(result.ok && result.advisory.detailsTruncated).toBe(true);
    if (!result.ok) return;
    expect(result.advisory.details.length).toBeLessThanOrEqual(MAX_DETAILS_CHARS + 4);
    expect(result.advisory.details).toMatch(/word \[…\]$/);
  });

  it('refuses a malformed record with every reason a person can act on', () => {
    const refused = (record: unknown) => {
      const result = advisoryFromOsv(record);
      expect(result.ok, JSON.stringify(record)).toBe(false);
      return result.ok ? [] : result.problems;
    };
    expect(refused(null)).toEqual(['record: Invalid input: expected object, received null']);
    expect(refused({ id: 'GO-1', modified: 'yesterday' })).toEqual(['modified: must be an RFC 3339 time, such as 2024-01-31T12:00:00Z']);
    expect(refused({ id: 'a b', modified: '2024-01-01T00:00:00Z' })).toEqual(['id: uses letters, digits and . _ : - only']);
    expect(refused({ id: 'GO-1', modified: '2024-01-01T00:00:00Z', affected: [{ package: { ecosystem: 'Go', name: 'x' }, ranges: [{ type: 'SEMVER', events: [{ introduced: '0', fixed: '1.0.0' }] }] }] })).toEqual([
      'affected.0.ranges.0.events.0: each event has exactly one of introduced, fixed, last_affected, limit',
    ]);
    expect(refused({ id: 'GO-1', modified: '2024-01-01T00:00:00Z', severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N' }] })).toEqual(['severity: "CVSS:3.1/AV:N" is no complete CVSS_V3 vector']);
  });
});

describe('matching, by the ecosystem\'s rules', () => {
  it('names the OSV package of each purl type', () => {
    const coordinates = (purl: string) => {
      const parsed = purlFromString(purl);
      if (!parsed.ok) throw new Error(parsed.reason);
      return osvCoordinates(parsed.parts);
    };
    expect(coordinates('pkg:npm/%40babel/core@7.0.0')).toEqual({ ok: true, ecosystem: 'npm', name: '@babel/core', version: '7.0.0' });
    expect(coordinates('pkg:maven/org.keycloak/keycloak-core@10.0.2')).toEqual({ ok: true, ecosystem: 'Maven', name: 'org.keycloak:keycloak-core', version: '10.0.2' });
    expect(coordinates('pkg:golang/github.com/CloudyKit/jet/v3@v3.0.0')).toEqual({ ok: true, ecosystem: 'Go', name: 'github.com/CloudyKit/jet/v3', version: 'v3.0.0' });
    expect(coordinates('pkg:composer/laravel/framework@v7.12.0')).toMatchObject({ ecosystem: 'Packagist', name: 'laravel/framework' });
    expect(coordinates('pkg:deb/debian/openssl@1.1.1n-0%2Bdeb11u3?distro=debian-11')).toMatchObject({ ecosystem: 'Debian:11', version: '1.1.1n-0+deb11u3' });
    expect(coordinates('pkg:deb/debian/openssl@1.1.1n-0%2Bdeb11u3?distro=bookworm')).toMatchObject({ ecosystem: 'Debian:12' });
    expect(coordinates('pkg:apk/alpine/curl@8.0.1-r0?distro=3.16.2')).toMatchObject({ ecosystem: 'Alpine:v3.16' });
    expect(coordinates('pkg:deb/debian/openssl@1.1.1')).toEqual({ ok: false, reason: 'its purl names no distro (Debian advisories are per release)' });
    expect(coordinates('pkg:deb/ubuntu/openssl@1.1.1?distro=jammy')).toMatchObject({ ok: false });
    expect(coordinates('pkg:generic/openssl@1.1.1')).toEqual({ ok: false, reason: 'no advisory database covers generic packages here' });
    expect(coordinates('pkg:npm/left-pad')).toEqual({ ok: false, reason: 'its purl has no version' });
    // PyPI names compare as PEP 503 has them, NuGet's and Packagist's whatever their case.
    expect(osvPackageKey('PyPI', 'Django_REST.framework')).toBe(osvPackageKey('PyPI', 'django-rest-framework'));
    expect(osvPackageKey('NuGet', 'Newtonsoft.Json')).toBe('NuGet#newtonsoft.json');
    expect(osvPackageKey('Go', 'github.com/BurntSushi/toml')).toBe('Go#github.com/BurntSushi/toml');
  });

  it('PyPI: ranges in PEP 440 order, with the versions that fix each affected one', () => {
    const django = indexOf(PYPI).get('PyPI#django')!.find(({ advisory }) => advisory.id === 'PYSEC-2021-9')!;
    expect(matchVersion(django.entries, '3.1.5')).toEqual({ affected: true, fixedVersions: ['3.1.6'], problems: [] });
    expect(matchVersion(django.entries, '3.1.6')).toEqual({ affected: false, fixedVersions: [], problems: [] });
    expect(matchVersion(django.entries, '2.2.17')).toEqual({ affected: true, fixedVersions: ['2.2.18', '3.0.12', '3.1.6'], problems: [] });
    // 3.1rc1 is before 3.1 in PEP 440: not yet affected by a range introduced at 3.1.
    expect(matchVersion(django.entries, '3.1rc1').affected).toBe(false);
    expect(matchVersion(django.entries, '2.1.99').affected).toBe(false);
    expect(matchVersion(django.entries, 'latest')).toEqual({ affected: false, fixedVersions: [], problems: ['"latest" is not a PyPI version'] });
  });

  it('Go: a real service\'s SBOM against the Go vulnerability database, as an independent evaluation finds it', () => {
    const bom = JSON.parse(readFileSync(new URL('sbom/cyclonedx-gomod-proton-bridge-1.8.0.cdx.json', FIXTURES), 'utf8')) as { components: { purl: string }[] };
    const index = indexOf(GO);
    const found = new Set<string>();
    const fixes = new Map<string, readonly string[]>();
    for (const component of bom.components) {
      const parsed = purlFromString(component.purl);
      if (!parsed.ok) continue;
      const coordinates = osvCoordinates(parsed.parts);
      if (!coordinates.ok) continue;
      const candidates = (index.get(osvPackageKey(coordinates.ecosystem, coordinates.name)) ?? []).map(({ advisory, entries }) => ({ id: advisory.id, withdrawn: advisory.withdrawn, entries }));
      const { matches, problems } = advisoriesAffecting(candidates, coordinates.version);
      expect(problems).toEqual([]);
      for (const { advisory, fixedVersions } of matches) {
        found.add(`${coordinates.name}@${coordinates.version} ${advisory.id}`);
        fixes.set(`${coordinates.name} ${advisory.id}`, fixedVersions);
      }
    }
    // The same question answered another way: each range as [introduced, next fixed) intervals, versions
    // split into numbers and pre-release parts by hand, no library.
    const expected = new Set<string>();
    for (const component of bom.components) {
      const [path, version] = component.purl.slice('pkg:golang/'.length).split('@') as [string, string];
      for (const record of records('go') as { id: string; withdrawn?: string; affected: { package: { name: string }; ranges: { events: Record<string, string>[] }[] }[] }[]) {
        if (record.withdrawn) continue;
        for (const entry of record.affected.filter((affected) => affected.package.name === path)) {
          if (entry.ranges.some((range) => independentlyAffected(version.slice(1), range.events))) expected.add(`${path}@${version} ${record.id}`);
        }
      }
    }
    expect([...found].sort()).toEqual([...expected].sort());
    expect(found.size).toBe(58);
    // go.etcd.io/bbolt's GO-2026-4923 was withdrawn as a false positive: it links nothing.
    expect([...found].some((link) => link.endsWith('GO-2026-4923'))).toBe(false);
    expect(new Set([...found].map((link) => link.split(' ')[0])).size).toBe(14);
    expect(fixes.get('github.com/gin-gonic/gin GO-2020-0001')).toEqual(['1.6.0']);
    expect(fixes.get('github.com/labstack/echo/v4 GO-2021-0051')).toEqual(['4.1.18-0.20201215153152-4422e3b66b9f']);
  });
});

/** SemVer precedence written out by hand (the independent side of the Go check). */
function semverKey(version: string): { numbers: number[]; pre: string[] } {
  const [main, ...rest] = version.split('+')[0]!.split('-');
  return { numbers: main!.split('.').map(Number), pre: rest.length > 0 ? rest.join('-').split('.') : [] };
}
function semverCompare(a: string, b: string): number {
  const x = semverKey(a);
  const y = semverKey(b);
  for (let i = 0; i < 3; i++) if (x.numbers[i] !== y.numbers[i]) return x.numbers[i]! - y.numbers[i]!;
  if (x.pre.length === 0 || y.pre.length === 0) return y.pre.length - x.pre.length;
  for (let i = 0; i < Math.min(x.pre.length, y.pre.length); i++) {
    const [p, q] = [x.pre[i]!, y.pre[i]!];
    if (p === q) continue;
    const [pn, qn] = [/^\d+$/.test(p), /^\d+$/.test(q)];
    if (pn && qn) return Number(p) - Number(q);
    if (pn !== qn) return pn ? -1 : 1;
    return p < q ? -1 : 1;
  }
  return x.pre.length - y.pre.length;
}
function independentlyAffected(version: string, events: Record<string, string>[]): boolean {
  // Go's records list introduced/fixed pairs in order: each introduced opens an interval the next fixed closes.
  for (let i = 0; i < events.length; i++) {
    const start = events[i]!.introduced;
    if (start === undefined) continue;
    const end = events.slice(i + 1).find((event) => event.fixed !== undefined || event.introduced !== undefined);
    const afterStart = start === '0' || semverCompare(version, start) >= 0;
    const beforeEnd = end?.fixed === undefined || semverCompare(version, end.fixed) < 0;
    if (afterStart && beforeEnd) return true;
  }
  return false;
}
