/**
 * Which published advisories affect a package, by its ecosystem's own rules: the package's purl names
 * an OSV ecosystem and package (npm's @scope/name, PyPI's normalised name, Maven's group:artifact, a
 * Go module path, Debian and Alpine with the release their purl's distro names), and its version is
 * compared with each range's events and listed versions in that ecosystem's version order
 * (shared/domain/versions). GIT ranges name commits, not versions: they are not matched. A version
 * the ecosystem cannot read is reported, never guessed. Pure.
 */
import type { AffectedEntry, RangeEvent } from './advisories.ts';
import { versionScheme, type VersionScheme } from './versions/index.ts';

/** The OSV ecosystem of each purl type (the distributions' come with a release: osvCoordinates). */
const ECOSYSTEM_OF_TYPE: Readonly<Record<string, string>> = {
  npm: 'npm',
  pypi: 'PyPI',
  maven: 'Maven',
  golang: 'Go',
  cargo: 'crates.io',
  nuget: 'NuGet',
  gem: 'RubyGems',
  composer: 'Packagist',
  hex: 'Hex',
  pub: 'Pub',
};

const DEBIAN_RELEASES: Readonly<Record<string, string>> = { jessie: '8', stretch: '9', buster: '10', bullseye: '11', bookworm: '12', trixie: '13', forky: '14' };

export interface PackageCoordinates {
  readonly type: string;
  readonly namespace: string;
  readonly name: string;
  readonly version: string;
  readonly qualifiers: Readonly<Record<string, string>>;
}

export type OsvCoordinates = { readonly ok: true; readonly ecosystem: string; readonly name: string; readonly version: string } | { readonly ok: false; readonly reason: string };

/** The OSV ecosystem, package name and version a purl names, or why it names none. */
export function osvCoordinates(pkg: PackageCoordinates): OsvCoordinates {
  if (pkg.version === '') return { ok: false, reason: 'its purl has no version' };
  const joined = pkg.namespace ? `${pkg.namespace}/${pkg.name}` : pkg.name;
  if (pkg.type === 'deb') {
    if (pkg.namespace !== 'debian') return { ok: false, reason: `Debian's advisories name Debian's packages, not ${pkg.namespace || 'unnamed'} ones` };
    const distro = (pkg.qualifiers.distro ?? '').toLowerCase();
    const release = /^debian-(\d+)/.exec(distro)?.[1] ?? DEBIAN_RELEASES[distro];
    if (!release) return { ok: false, reason: distro ? `its distro "${distro}" is no Debian release` : 'its purl names no distro (Debian advisories are per release)' };
    return { ok: true, ecosystem: `Debian:${release}`, name: pkg.name, version: pkg.version };
  }
  if (pkg.type === 'apk') {
    if (pkg.namespace !== 'alpine') return { ok: false, reason: `Alpine's advisories name Alpine's packages, not ${pkg.namespace || 'unnamed'} ones` };
    const release = /^(?:alpine-)?v?(\d+\.\d+)/.exec((pkg.qualifiers.distro ?? '').toLowerCase())?.[1];
    if (!release) return { ok: false, reason: 'its purl names no Alpine release in its distro' };
    return { ok: true, ecosystem: `Alpine:v${release}`, name: pkg.name, version: pkg.version };
  }
  const ecosystem = ECOSYSTEM_OF_TYPE[pkg.type];
  if (!ecosystem || !Object.hasOwn(ECOSYSTEM_OF_TYPE, pkg.type)) return { ok: false, reason: `no advisory database covers ${pkg.type} packages here` };
  return { ok: true, ecosystem, name: pkg.type === 'maven' ? `${pkg.namespace}:${pkg.name}` : joined, version: pkg.version };
}

/**
 * The key one lookup finds every advisory of a package by: the ecosystem as OSV names it, and the
 * package name as the ecosystem compares names (PEP 503 for PyPI; NuGet and Packagist ignore case).
 */
export function osvPackageKey(ecosystem: string, name: string): string {
  const base = ecosystem.split(':')[0];
  let key = name;
  if (base === 'PyPI') key = name.toLowerCase().replace(/[-_.]+/g, '-');
  else if (base === 'NuGet' || base === 'Packagist') key = name.toLowerCase();
  return `${ecosystem}#${key}`;
}

export interface VersionMatch {
  readonly affected: boolean;
  /** The fixed versions above the package's, in the ranges that affect it, oldest first. */
  readonly fixedVersions: readonly string[];
  /** What could not be judged: a version or event the ecosystem cannot read, a range type not matched. */
  readonly problems: readonly string[];
}

type Parsed = { readonly text: string; readonly value: unknown };

const eventKind = (event: RangeEvent) => Object.keys(event)[0] as 'introduced' | 'fixed' | 'last_affected' | 'limit';
const eventVersion = (event: RangeEvent) => Object.values(event)[0] as string;

/** OSV's evaluation of one range (osv-schema, "Evaluation"): events in version order; introduced "0" is before every version. */
function inRange(scheme: VersionScheme, version: unknown, events: readonly { kind: string; at: Parsed | 'zero' }[]): boolean {
  const order = (event: { at: Parsed | 'zero' }) => event.at;
  const sorted = [...events].sort((a, b) => {
    const x = order(a);
    const y = order(b);
    if (x === 'zero' || y === 'zero') return x === y ? 0 : x === 'zero' ? -1 : 1;
    return scheme.compare(x.value, y.value);
  });
  let affected = false;
  for (const event of sorted) {
    const at = event.at;
    const compared = at === 'zero' ? 1 : scheme.compare(version, at.value);
    if (event.kind === 'introduced' && compared >= 0) affected = true;
    else if (event.kind === 'fixed' && compared >= 0) affected = false;
    else if (event.kind === 'last_affected' && compared > 0) affected = false;
  }
  const limits = events.filter((event) => event.kind === 'limit');
  return affected && (limits.length === 0 || limits.some((limit) => limit.at !== 'zero' && scheme.compare(version, limit.at.value) < 0));
}

/**
 * Whether `version` is affected by the advisory's entries for one package (already found by its key),
 * and which versions fix it.
 */
export function matchVersion(entries: readonly AffectedEntry[], version: string): VersionMatch {
  const problems: string[] = [];
  const fixed = new Map<string, Parsed>();
  let affected = false;
  for (const entry of entries) {
    const scheme = versionScheme(entry.ecosystem);
    // A listed version is affected, whatever order the ecosystem has: the same string is the same version.
    if (entry.versions.includes(version)) affected = true;
    if (!scheme) {
      if (entry.ranges.some((range) => range.type !== 'GIT')) problems.push(`${entry.ecosystem} has no version order here: only its listed versions are matched`);
      continue;
    }
    const parsed = scheme.parse(version);
    if (parsed === undefined) {
      problems.push(`"${version}" is not a ${entry.ecosystem.split(':')[0]} version`);
      continue;
    }
    if (!affected && entry.versions.some((listed) => {
      const other = scheme.parse(listed);
      return other !== undefined && scheme.compare(parsed, other) === 0;
    })) affected = true;
    for (const range of entry.ranges) {
      if (range.type === 'GIT') continue;
      const events: { kind: string; at: Parsed | 'zero' }[] = [];
      let readable = true;
      for (const event of range.events) {
        const kind = eventKind(event);
        const text = eventVersion(event);
        if (kind === 'introduced' && text === '0') {
          events.push({ kind, at: 'zero' });
          continue;
        }
        const value = scheme.parse(text);
        if (value === undefined) {
          problems.push(`the range's ${kind} "${text}" is not a ${entry.ecosystem.split(':')[0]} version`);
          readable = false;
          break;
        }
        events.push({ kind, at: { text, value } });
      }
      if (!readable || !inRange(scheme, parsed, events)) continue;
      affected = true;
      for (const event of events) {
        if (event.kind === 'fixed' && event.at !== 'zero' && scheme.compare(event.at.value, parsed) > 0) fixed.set(event.at.text, event.at);
      }
    }
  }
  // One package's entries share its ecosystem (they were found by its key): one order sorts them.
  const scheme = entries.map((entry) => versionScheme(entry.ecosystem)).find((found) => found !== undefined);
  const fixedVersions = scheme ? [...fixed.values()].sort((a, b) => scheme.compare(a.value, b.value)).map((at) => at.text) : [];
  return { affected, fixedVersions: affected ? fixedVersions : [], problems };
}

/** What matching reads of an advisory: its id, whether it is withdrawn, and its entries for the package. */
export interface MatchableAdvisory {
  readonly id: string;
  readonly withdrawn: string | null;
  readonly entries: readonly AffectedEntry[];
}

export interface AdvisoryMatch<T extends MatchableAdvisory> {
  readonly advisory: T;
  readonly fixedVersions: readonly string[];
}

/**
 * The advisories (of one package, found by its key) that affect `version`, with the versions that fix
 * it; a withdrawn advisory affects nothing. `problems` says what could not be judged, once each.
 */
export function advisoriesAffecting<T extends MatchableAdvisory>(advisories: readonly T[], version: string): { matches: AdvisoryMatch<T>[]; problems: string[] } {
  const matches: AdvisoryMatch<T>[] = [];
  const problems = new Set<string>();
  for (const advisory of advisories) {
    if (advisory.withdrawn !== null) continue;
    const match = matchVersion(advisory.entries, version);
    for (const problem of match.problems) problems.add(`${advisory.id}: ${problem}`);
    if (match.affected) matches.push({ advisory, fixedVersions: match.fixedVersions });
  }
  return { matches, problems: [...problems] };
}
