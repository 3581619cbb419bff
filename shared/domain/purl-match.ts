/**
 * Which packages a VEX's purl speaks of. A purl with a version names that package; one without names
 * every version of it (OpenVEX and CycloneDX VEX publishers write `pkg:rpm/suse/glibc` for "glibc,
 * whatever version you ship"), with its qualifiers, when given, among the package's own and its
 * subpath, when given, the package's. Works on canonical purls (packageurl-js's form: the namespace's
 * `@` encoded, qualifiers sorted), so plain string work suffices. Pure.
 */

interface PurlParts {
  readonly base: string;
  readonly version: string;
  readonly qualifiers: readonly string[];
  readonly subpath: string;
}

function parts(purl: string): PurlParts {
  const hash = purl.indexOf('#');
  const subpath = hash >= 0 ? purl.slice(hash + 1) : '';
  let rest = hash >= 0 ? purl.slice(0, hash) : purl;
  const question = rest.indexOf('?');
  const qualifiers = question >= 0 ? rest.slice(question + 1).split('&').filter((pair) => pair !== '') : [];
  rest = question >= 0 ? rest.slice(0, question) : rest;
  // In the canonical form the first `@` is the version's: a namespace's or name's is encoded (%40).
  const at = rest.indexOf('@');
  return { base: at >= 0 ? rest.slice(0, at) : rest, version: at >= 0 ? rest.slice(at + 1) : '', qualifiers, subpath };
}

/** Whether `reference` (a canonical purl) has no version, and so may name several packages. */
export function isVersionless(reference: string): boolean {
  return reference.startsWith('pkg:') && parts(reference).version === '';
}

/** Whether the versionless canonical purl `reference` names the package of canonical purl `candidate`. */
export function versionlessCovers(reference: string, candidate: string): boolean {
  const wanted = parts(reference);
  const held = parts(candidate);
  if (wanted.version !== '' || wanted.base !== held.base) return false;
  if (wanted.subpath !== '' && wanted.subpath !== held.subpath) return false;
  return wanted.qualifiers.every((pair) => held.qualifiers.includes(pair));
}
