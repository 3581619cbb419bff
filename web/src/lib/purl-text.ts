/** A purl shown to people (the API answers it percent-encoded, as the package's SBOM spelled it). */

/** A purl as people read it: its percent-encoded parts (%40 in a scope, %2B in a version) decoded. */
export function readablePurl(purl: string): string {
  try {
    return decodeURIComponent(purl);
  } catch {
    return purl;
  }
}
