/**
 * What an SBOM export says about a product, gathered by the export service and rendered by the
 * CycloneDX and SPDX writers. Licenses arrive already in SPDX form (the resolver's `spdx`). Pure types.
 */
import type { SbomAnalysis, SbomHashes } from './inventory.ts';

export interface ExportPackage {
  readonly uuid: string;
  readonly purl: string;
  readonly type: string;
  readonly namespace: string;
  readonly name: string;
  readonly version: string;
  /** The package's own expression, SPDX form ('' none). */
  readonly declaredLicenseSpdx: string;
  /** The product's concluded expression, SPDX form ('' none: the declared one applies). */
  readonly concludedLicenseSpdx: string;
  readonly hashes: SbomHashes;
  readonly description: string;
  readonly homepageUrl: string;
  readonly downloadUrl: string;
  readonly supplier: string;
  readonly copyright: string;
  readonly filename: string;
  readonly isModified: boolean;
  readonly isDeployed: boolean;
}

export interface ExportVulnerability {
  readonly id: string;
  readonly aliases: readonly string[];
  readonly summary: string;
  readonly riskScore: number | null;
  /**
   * Each affected package of the product (by package uuid) with the product's analysis, if any, and the
   * versions that fix it (from the published advisory that matched it; empty when none is known).
   */
  readonly affects: readonly { readonly packageUuid: string; readonly analysis: SbomAnalysis | null; readonly fixedVersions?: readonly string[] }[];
}

export interface ExportModel {
  readonly product: { readonly uuid: string; readonly name: string; readonly version: string; readonly apiUrl: string };
  readonly packages: readonly ExportPackage[];
  /** package uuid → package uuids it depends on (within the product). */
  readonly dependencies: ReadonlyMap<string, readonly string[]>;
  readonly vulnerabilities: readonly ExportVulnerability[];
  /** ISO 8601 instant of the export (passed in: the writers read no clock). */
  readonly timestamp: string;
  /** A stable serial/namespace seed (uuid) for the document. */
  readonly documentUuid: string;
  readonly tool: { readonly name: string; readonly version: string };
  /**
   * What the service knows of each `LicenseRef-…` the expressions name, by that ref: a reference
   * license's name and text (or a pointer to it), an unknown license's verbatim text. SPDX requires a
   * name and an extracted text for every ref a document uses; a ref missing here is written with the
   * name the ref itself gives and the text NOASSERTION (a ScanCode ref: a pointer to its LicenseDB page).
   */
  readonly licenseRefs?: ReadonlyMap<string, { readonly name: string; readonly text: string }>;
}
