/**
 * The choices of a CycloneDX export, apart from the writer: the route table (in every API function's
 * bundle) names them without pulling in the writer and the CycloneDX library it uses.
 */
export const CYCLONEDX_SPEC_VERSIONS = ['1.4', '1.5', '1.6'] as const;
export type CycloneDxSpecVersion = (typeof CYCLONEDX_SPEC_VERSIONS)[number];
export const CYCLONEDX_CONTENTS = ['sbom', 'vex', 'combined'] as const;
/** The CycloneDX export's encodings: JSON (the default) or XML. */
export const CYCLONEDX_FORMATS = ['json', 'xml'] as const;
export type CycloneDxFormat = (typeof CYCLONEDX_FORMATS)[number];
/** The SPDX export's versions: 2.3 JSON (the default) or 3.0 JSON-LD. */
export const SPDX_SPEC_VERSIONS = ['2.3', '3.0'] as const;
export type SpdxSpecVersion = (typeof SPDX_SPEC_VERSIONS)[number];
export type CycloneDxContent = (typeof CYCLONEDX_CONTENTS)[number];

export interface CycloneDxOptions {
  readonly specVersion: CycloneDxSpecVersion;
  readonly content: CycloneDxContent;
}
