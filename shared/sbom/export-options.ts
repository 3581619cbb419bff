/**
 * The choices of a CycloneDX export, apart from the writer: the route table (in every API function's
 * bundle) names them without pulling in the writer and the CycloneDX library it uses.
 */
export const CYCLONEDX_SPEC_VERSIONS = ['1.4', '1.5', '1.6'] as const;
export type CycloneDxSpecVersion = (typeof CYCLONEDX_SPEC_VERSIONS)[number];
export const CYCLONEDX_CONTENTS = ['sbom', 'vex', 'combined'] as const;
export type CycloneDxContent = (typeof CYCLONEDX_CONTENTS)[number];

export interface CycloneDxOptions {
  readonly specVersion: CycloneDxSpecVersion;
  readonly content: CycloneDxContent;
}
