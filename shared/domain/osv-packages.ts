/**
 * The OSV package a purl names, and the key one lookup finds a package's advisories by: npm's
 * @scope/name, PyPI's normalised name, Maven's group:artifact, a Go module path, Debian and Alpine
 * with the release their purl's distro names. Kept apart from the version orders
 * (shared/domain/advisory-matching.ts), so that every function writing packages can index them
 * without carrying the ecosystems' version libraries. Pure.
 */

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


/** The (ecosystem, package) keys an advisory names: one lookup each finds it. */
export function advisoryPackageKeys(advisory: { readonly affected: readonly { readonly ecosystem: string; readonly name: string }[] }): string[] {
  return [...new Set(advisory.affected.map((entry) => osvPackageKey(entry.ecosystem, entry.name)))];
}
