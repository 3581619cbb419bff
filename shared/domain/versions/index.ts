/**
 * Each OSV ecosystem's own version order (what "1.10 > 1.9", "1.0rc1 < 1.0" or "1:0.9 > 2.0" mean
 * there), behind one interface: parse a version as its ecosystem writes it, compare two parsed ones.
 * Maintained libraries where one exists (semver for npm, Go, crates.io, Hex and Pub;
 * @renovatebot/pep440 for PyPI; @renovatebot/ruby-semver for RubyGems); for Maven, NuGet, Packagist,
 * Debian and Alpine, none does, and the modules beside this one follow the ecosystem's reference
 * implementation, checked against orderings the real tools produced.
 */
import semver from 'semver';
import * as pep440 from '@renovatebot/pep440';
import * as rubySemver from '@renovatebot/ruby-semver';
import { compareMavenVersions, parseMavenVersion } from './maven.ts';
import { compareNuGetVersions, parseNuGetVersion } from './nuget.ts';
import { comparePackagistVersions, parsePackagistVersion } from './packagist.ts';
import { compareDebianVersions, parseDebianVersion } from './debian.ts';
import { compareAlpineVersions, parseAlpineVersion } from './alpine.ts';

export interface VersionScheme<T = unknown> {
  /** The ecosystem's version, or undefined when the ecosystem would not take it as one. */
  parse(text: string): T | undefined;
  /** Negative, zero or positive, as a is older, the same as, or newer than b. */
  compare(a: T, b: T): number;
}

const scheme = <T>(parse: (text: string) => T | undefined, compare: (a: T, b: T) => number): VersionScheme => ({
  parse,
  compare: compare as (a: unknown, b: unknown) => number,
});

/** SemVer 2.0, strict (npm publishes nothing else); build metadata ignored. */
const SEMVER = scheme((text) => semver.parse(text.trim()) ?? undefined, (a, b) => semver.compare(a, b));

/** Go's modules: SemVer with a 'v' (dropped, as OSV's Go records drop it), pseudo-versions as pre-releases, +incompatible as build metadata. */
const GO = scheme((text) => {
  const version = text.trim().replace(/^v(?=\d)/, '');
  return /^\d+\.\d+\.\d+/.test(version) ? (semver.parse(version) ?? undefined) : undefined;
}, (a, b) => semver.compare(a, b));

/** Pub: SemVer, but a build sorts after the same version without one (Dart's pub_semver). */
const PUB = scheme((text) => semver.parse(text.trim()) ?? undefined, (a, b) => semver.compareBuild(a, b));

const PYPI = scheme((text) => (pep440.valid(text.trim()) === null ? undefined : text.trim()), (a: string, b: string) => pep440.compare(a, b));

const RUBYGEMS = scheme(
  (text) => (rubySemver.valid(text.trim()) ? text.trim() : undefined),
  (a: string, b: string) => (rubySemver.lt(a, b) ? -1 : rubySemver.gt(a, b) ? 1 : 0),
);

/**
 * By OSV ecosystem name, without its release suffix ("Debian:12" is Debian's order). Ecosystems not
 * here are not matched: their records are stored, and reported as not matched by version.
 */
export const VERSION_SCHEMES: Readonly<Record<string, VersionScheme>> = {
  npm: SEMVER,
  'crates.io': SEMVER,
  Hex: SEMVER,
  Go: GO,
  Pub: PUB,
  PyPI: PYPI,
  RubyGems: RUBYGEMS,
  Maven: scheme(parseMavenVersion, compareMavenVersions),
  NuGet: scheme(parseNuGetVersion, compareNuGetVersions),
  Packagist: scheme(parsePackagistVersion, comparePackagistVersions),
  Debian: scheme(parseDebianVersion, compareDebianVersions),
  Alpine: scheme(parseAlpineVersion, compareAlpineVersions),
};

/** The version order of an OSV ecosystem ("Debian:12" → Debian's), or undefined when it has none here. */
export function versionScheme(ecosystem: string): VersionScheme | undefined {
  const base = ecosystem.split(':')[0]!;
  return Object.hasOwn(VERSION_SCHEMES, base) ? VERSION_SCHEMES[base] : undefined;
}
