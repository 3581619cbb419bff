/**
 * Package URLs read from an SBOM, in the catalog's canonical form: the same string that
 * `canonicalPurl` in shared/services/catalog.ts stores (packageurl-js's toString of the parts, each
 * in Unicode NFC), so a component's purl finds the package the API created from the same purl.
 * Kept here, free of the catalog service's store imports, so the SBOM reader stays pure; the unit
 * tests check that both give the same string for every purl of the real fixtures. Never throws: what
 * cannot be a purl the catalog holds (an unpaired surrogate, a control character, once decoded too)
 * is a reason.
 */
import { PackageURL } from 'packageurl-js';
import { printable, storedTextProblem } from '../domain/stored-text.ts';
import { invisibleCharacter } from '../domain/text.ts';

/** A canonical purl is a key of the catalog's reservation item: the catalog refuses longer ones. */
export const MAX_PURL_BYTES = 1_500;

export interface PurlParts {
  readonly type: string;
  readonly namespace: string;
  readonly name: string;
  readonly version: string;
  readonly qualifiers: Readonly<Record<string, string>>;
  readonly subpath: string;
  readonly purl: string;
}

/** The parts and canonical purl, or why the package cannot be one (a reason a person can read). */
export type PurlResult = { readonly ok: true; readonly parts: PurlParts } | { readonly ok: false; readonly reason: string };

/** A purl as a document writes it. */
export function purlFromString(text: string): PurlResult {
  const problem = storedTextProblem(text);
  if (problem) return { ok: false, reason: `its purl holds ${problem}` };
  let parsed: PackageURL;
  try {
    parsed = PackageURL.fromString(text);
  } catch (error) {
    return { ok: false, reason: `invalid purl "${clip(text)}": ${printable(messageOf(error).replace(/^Invalid purl: /, ''))}` };
  }
  return canonical(parsed);
}

/** A purl built from parts (components without one: type `generic`, namespace from the group). */
export function purlFromParts(type: string, namespace: string, name: string, version: string): PurlResult {
  for (const [field, value] of [['type', type], ['group', namespace], ['name', name], ['version', version]] as const) {
    const problem = storedTextProblem(value);
    if (problem) return { ok: false, reason: `its ${field} holds ${problem}` };
  }
  let built: PackageURL;
  try {
    built = new PackageURL(type, namespace || undefined, name, version || undefined, undefined, undefined);
  } catch (error) {
    return { ok: false, reason: `no valid purl can be built from its name: ${printable(messageOf(error).replace(/^Invalid purl: /, ''))}` };
  }
  return canonical(built);
}

function canonical(purl: PackageURL): PurlResult {
  const nfc = (value: string | undefined | null) => (value ? value.normalize('NFC') : undefined);
  const qualifiers = purl.qualifiers
    ? Object.fromEntries(Object.entries(purl.qualifiers).map(([key, value]) => [key.normalize('NFC'), String(value).normalize('NFC')]))
    : undefined;
  let normalized: PackageURL;
  try {
    normalized = new PackageURL(purl.type.normalize('NFC'), nfc(purl.namespace), purl.name.normalize('NFC'), nfc(purl.version), qualifiers, nfc(purl.subpath));
  } catch (error) {
    return { ok: false, reason: `invalid purl: ${printable(messageOf(error).replace(/^Invalid purl: /, ''))}` };
  }
  const parts = [normalized.type, normalized.namespace, normalized.name, normalized.version, normalized.subpath, ...Object.entries(normalized.qualifiers ?? {}).flat()];
  for (const part of parts) {
    if (typeof part !== 'string') continue;
    // Decoded parts: "%07" is a control character, which the catalog refuses in a name as written.
    const problem = storedTextProblem(part);
    if (problem) return { ok: false, reason: `its purl holds ${problem}` };
    const invisible = invisibleCharacter(part);
    // The catalog refuses names that hold characters no one can see (two packages that look the same).
    if (invisible) return { ok: false, reason: `its purl holds the invisible character ${invisible}` };
  }
  let text: string;
  try {
    text = normalized.toString();
  } catch (error) {
    // The parts were checked above; this is the last guard of "never throws" (encodeURIComponent's URIError).
    return { ok: false, reason: `its purl cannot be encoded: ${printable(messageOf(error))}` };
  }
  if (Buffer.byteLength(text) > MAX_PURL_BYTES) return { ok: false, reason: `its purl is longer than ${MAX_PURL_BYTES} bytes` };
  return {
    ok: true,
    parts: {
      type: normalized.type,
      namespace: normalized.namespace ?? '',
      name: normalized.name,
      version: normalized.version ?? '',
      // Own keys as they are ("__proto__" included): fromEntries defines, never assigns.
      qualifiers: Object.fromEntries(Object.entries(normalized.qualifiers ?? {})) as Record<string, string>,
      subpath: normalized.subpath ?? '',
      purl: text,
    },
  };
}

/**
 * A long or hostile value, cut for an error message, never between the two halves of a surrogate
 * pair; unpaired surrogates and control characters are written as escapes (printable), so the
 * message can be stored and shown.
 */
export function clip(value: string, max = 120): string {
  if (value.length <= max) return printable(value);
  const end = /[\ud800-\udbff]/.test(value.charAt(max - 1)) ? max - 1 : max;
  return `${printable(value.slice(0, end))}…`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
