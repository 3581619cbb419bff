/**
 * A dataspace's license mappings: curation done once. A mapping says that a license as written (a name,
 * a tag, a URL an SBOM gives where a license id belongs) means a license expression of the catalog. It is
 * matched after the same normalisation as ScanCode's names (case, punctuation, "licence", version
 * spellings: license-names.ts), before ScanCode's rules, in every later write and import
 * (license-index.ts recogniserOf), and applied to the packages already there by re-resolution. Pure.
 */
import type { Stored } from './catalog.ts';
import type { FieldErrors } from './errors.ts';
import { licenseKeys, parseLicenseExpression } from './license-expression.ts';
import type { MappingRule } from './license-index.ts';
import { normaliseLicenseName } from './license-names.ts';
import { resolveLicenseExpression, type LicenseIndex } from './license-resolution.ts';

export interface LicenseMapping extends Stored {
  /** The license as written, as the superuser gave it (trimmed). */
  readonly text: string;
  /** What it means: a canonical expression over license keys (the dataspace's or the reference library's). */
  readonly licenseExpression: string;
}

/** What a mapping's text is matched by, and unique by in its dataspace: its normalised form. */
export const mappingMatchKey = (text: string): string => normaliseLicenseName(text);

/** The license keys a mapping's (canonical) expression names. */
export function mappingKeys(mapping: Pick<LicenseMapping, 'licenseExpression'>): string[] {
  const parsed = parseLicenseExpression(mapping.licenseExpression);
  return parsed.ok ? licenseKeys(parsed.expression) : [];
}

/** The mapping as the resolver applies it. */
export const mappingRule = (mapping: LicenseMapping): MappingRule => ({ uuid: mapping.uuid, text: mapping.text, licenseExpression: mapping.licenseExpression });

/**
 * Checks a mapping's text and expression against the dataspace's licenses and the reference library
 * (`keys`: an index that finds keys and SPDX ids only, no recognisers), and answers the canonical
 * expression, or every field error at once. The text must leave something to match once normalised
 * (letters a-z or digits), and must not be what the catalog reads already as a key or SPDX id (a
 * mapping of it would never apply). The expression must parse and name only licenses the catalog knows:
 * a mapping to an unknown license would resolve nothing.
 */
export function checkMapping(text: string, expression: string, keys: LicenseIndex): { readonly expression: string } | { readonly errors: FieldErrors } {
  const errors: FieldErrors = {};
  if (mappingMatchKey(text) === '') {
    errors.text = ['Nothing to match in this text once case, punctuation and version spellings are set aside: give a name with letters (a-z) or digits.'];
  } else {
    const known = keys.find(text.trim());
    if (known) errors.text = [`"${text.trim()}" is read already as the license key ${known.key}: a mapping of it would never apply.`];
  }
  const parsed = parseLicenseExpression(expression);
  let canonical = '';
  if (!parsed.ok) {
    errors.license_expression = [`Not a license expression: ${parsed.error}`];
  } else {
    const resolved = resolveLicenseExpression(expression, keys);
    if (resolved.unknown.length > 0) {
      errors.license_expression = [`Unknown license keys: ${resolved.unknown.join(', ')}. Use keys or SPDX ids of this dataspace's licenses or of the reference library.`];
    } else if (resolved.expression === '') {
      // NOASSERTION and NONE say there is no license information: nothing a license as written can mean.
      errors.license_expression = [`"${expression.trim()}" names no license: a mapping must say which license the text means.`];
    }
    canonical = resolved.expression;
  }
  return Object.keys(errors).length > 0 ? { errors } : { expression: canonical };
}

/**
 * Whether a change of a mapping (the stream's images, before and after) calls for re-resolving the
 * packages of its dataspace: a mapping made, or one whose text or expression changed. A deleted one
 * does not: the packages it resolved keep their expressions (they are the catalog's now).
 */
export function reresolutionTarget(before: LicenseMapping | undefined, after: LicenseMapping | undefined): { readonly dataspace: string; readonly mapping: string } | undefined {
  if (!after) return undefined;
  if (before && mappingMatchKey(before.text) === mappingMatchKey(after.text) && before.licenseExpression === after.licenseExpression) return undefined;
  return { dataspace: after.dataspace, mapping: after.uuid };
}

/**
 * Whether a package's unknown licenses (as written) may hold the mapping's text, compared as mappings
 * match: one of them is it, or holds it as a run of whole words (`Foo License or MIT`, kept whole when no
 * split of it resolved). Re-resolution then decides; this only spares it the packages that cannot change.
 */
export function holdsMappedText(unknownLicenses: readonly string[], mapping: Pick<LicenseMapping, 'text'>): boolean {
  const key = ` ${mappingMatchKey(mapping.text)} `;
  return unknownLicenses.some((written) => ` ${mappingMatchKey(written)} `.includes(key));
}
