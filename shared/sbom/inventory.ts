/**
 * What an SBOM says, in the service's words: the parsers (CycloneDX JSON 1.2-1.6, SPDX 2.2/2.3 JSON)
 * turn a document into an Inventory, and the import service turns an Inventory into packages,
 * product packages, dependencies, vulnerabilities and analyses. Pure types.
 */
import type { AnalysisResponse, AnalysisState, Justification } from '../domain/catalog.ts';
import type { LicenseHints } from '../domain/license-resolution.ts';

export type SbomFormat = 'cyclonedx' | 'spdx' | 'openvex';

export interface SbomHashes {
  readonly md5?: string;
  readonly sha1?: string;
  readonly sha256?: string;
  readonly sha512?: string;
}

/** One component (CycloneDX) or package (SPDX) that can become a catalog package. */
export interface SbomComponent {
  /** The document's own reference (CycloneDX bom-ref, SPDX SPDXID; the canonical purl when it gives none): what dependencies and VEX `affects` name. Unique within the inventory. */
  readonly ref: string;
  /** The purl parts (from the purl when it has one; else from the component: type `generic`). */
  readonly type: string;
  readonly namespace: string;
  readonly name: string;
  readonly version: string;
  readonly qualifiers: Readonly<Record<string, string>>;
  readonly subpath: string;
  /** Canonical purl (packageurl-js toString of the parts). */
  readonly purl: string;
  /** Whether the document gave a purl (false: matched by type, namespace, name and version). */
  readonly hadPurl: boolean;
  /** License expression as written: CycloneDX licenses (ids and names joined with AND, or the expression), SPDX licenseDeclared. '' when none or NOASSERTION/NONE. */
  readonly declaredLicense: string;
  /** SPDX licenseConcluded, CycloneDX `acknowledgement: concluded`; '' when none or NOASSERTION. */
  readonly concludedLicense: string;
  /**
   * What the document says beside a license it names, by the name or id as written: CycloneDX
   * `license.url` and `license.text`, SPDX extracted licensing info (`name`, `extractedText`). Absent when it says nothing more.
   */
  readonly licenseHints?: LicenseHints;
  readonly hashes: SbomHashes;
  readonly description: string;
  readonly homepageUrl: string;
  /** http(s) only; '' otherwise. */
  readonly downloadUrl: string;
  readonly supplier: string;
  readonly copyright: string;
  readonly filename: string;
}

export interface SbomAnalysis {
  readonly state: AnalysisState | null;
  readonly justification: Justification | null;
  readonly responses: readonly AnalysisResponse[];
  readonly detail: string;
}

export interface SbomVulnerability {
  /** CVE-…, GHSA-…: the document's id. */
  readonly id: string;
  readonly aliases: readonly string[];
  readonly summary: string;
  /** Highest rating score, 0.0-10.0 rounded to one decimal, or null. */
  readonly riskScore: number | null;
  /**
   * Refs of `components`, or canonical purls of packages not in the document (a VEX), or BOM-Links
   * (`urn:cdx:<serial>/<version>#<bom-ref>`) to components of another document, which the import
   * resolves against the product's packages: what the vulnerability affects.
   */
  readonly affects: readonly string[];
  readonly analysis: SbomAnalysis | null;
}

export interface SkippedComponent {
  /** What identifies it in the document: its bom-ref (SPDXID), else its purl or name, else where it sits. */
  readonly component: string;
  /**
   * How a person recognises it, when that is not `component` already: its purl, else its name and
   * version (a bom-ref is often a uuid or a tool's path). Absent when `component` says as much.
   */
  readonly name?: string;
  readonly reason: string;
}

export interface Inventory {
  readonly format: SbomFormat;
  readonly specVersion: string;
  /**
   * The document's serial number as a BOM-Link names it (CycloneDX `serialNumber` without `urn:uuid:`,
   * lower case), when it has one: recorded with the product packages it imports, so that a VEX
   * published apart names them by `urn:cdx:<serial>/<version>#<bom-ref>` (docs/sbom-formats.md).
   */
  readonly serial?: string;
  /** The described product (CycloneDX metadata.component, SPDX documentDescribes), when named. */
  readonly subject: { readonly name: string; readonly version: string } | null;
  readonly components: readonly SbomComponent[];
  readonly skipped: readonly SkippedComponent[];
  /** ref → refs it depends on (only refs of `components`). */
  readonly dependencies: ReadonlyMap<string, readonly string[]>;
  readonly vulnerabilities: readonly SbomVulnerability[];
  /** A VEX-only document: no components section (or an empty one) and vulnerabilities: analyses only, inventory untouched. */
  readonly vexOnly: boolean;
  /**
   * What the reader repaired or left out that is not a component (a producer's harmless schema slip
   * it tolerated, a vulnerability without an id, an `affects` naming nothing): for the import summary
   * or the log. Optional: absent or empty when there is nothing to say.
   */
  readonly warnings?: readonly string[];
}
