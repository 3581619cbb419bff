/**
 * ScanCode's knowledge of how licenses are written, as the service ships it: license names and tags,
 * URLs and full texts, each with the license expression ScanCode's rules give it, and the rule that
 * says so (shared/reference/scancode-license-rules.json, built by bin/build-license-rules.ts). Looked
 * up after the normalisation of shared/domain/license-names.ts. Pure: the data is passed in.
 */
import { isLicenseUrl, licenseTextDigest, MIN_LICENSE_TEXT_LENGTH, normaliseLicenseName, normaliseLicenseUrl } from './license-names.ts';

/** The data file: expressions once, and [normalised value, expression index, rule] rows. */
export interface RulesData {
  readonly source: { readonly repository: string; readonly path: string; readonly commit: string; readonly licence: string };
  readonly expressions: readonly string[];
  readonly names: readonly (readonly [string, number, string])[];
  readonly urls: readonly (readonly [string, number, string])[];
  readonly texts: readonly (readonly [string, number, string])[];
}

/** How a written license was recognised. */
export type RecognisedBy = 'name' | 'url' | 'text';

export interface KnowledgeMatch {
  /** The expression over reference keys (`apache-2.0`, `cddl-1.0 OR gpl-2.0-plus`). */
  readonly expression: string;
  readonly by: RecognisedBy;
  /** The ScanCode rule or license file that says so (`apache-2.0_1308.RULE`). */
  readonly rule: string;
}

export interface LicenseKnowledge {
  byName(text: string): KnowledgeMatch | undefined;
  byUrl(url: string): KnowledgeMatch | undefined;
  /** A full license text (≥ MIN_LICENSE_TEXT_LENGTH characters) by its normalised digest. */
  byText(text: string): KnowledgeMatch | undefined;
  /** Any of the three, as the written text looks: a URL, a text, else a name. */
  recognise(text: string): KnowledgeMatch | undefined;
}

export function licenseKnowledgeOf(data: RulesData): LicenseKnowledge {
  const table = (rows: RulesData['names'], by: RecognisedBy) =>
    new Map(rows.map(([value, at, rule]) => [value, { expression: data.expressions[at] ?? '', by, rule } satisfies KnowledgeMatch]));
  const names = table(data.names, 'name');
  const urls = table(data.urls, 'url');
  const texts = table(data.texts, 'text');
  const byName = (text: string) => names.get(normaliseLicenseName(text));
  const byUrl = (url: string) => {
    const normal = normaliseLicenseUrl(url);
    return normal === '' ? undefined : urls.get(normal);
  };
  const byText = (text: string) => (text.trim().length < MIN_LICENSE_TEXT_LENGTH ? undefined : texts.get(licenseTextDigest(text)));
  return {
    byName,
    byUrl,
    byText,
    recognise: (text) => (isLicenseUrl(text) ? byUrl(text) : text.trim().length >= MIN_LICENSE_TEXT_LENGTH ? (byText(text) ?? byName(text)) : byName(text)),
  };
}
