/**
 * The catalog the policy rules read: usage policies, licenses, packages and vulnerabilities of a
 * dataspace, and what products hold: product packages and the triage analyses of their
 * vulnerabilities. Pure types and rules.
 */
import type { Caller } from './caller.ts';
import type { Resolution } from './license-resolution.ts';
import type { LicenseCategory } from './reference-license.ts';

export const POLICY_CONTENT_TYPES = ['package', 'license'] as const;
export type PolicyContentType = (typeof POLICY_CONTENT_TYPES)[number];

export const COMPLIANCE_ALERTS = ['', 'warning', 'error'] as const;
export type ComplianceAlert = (typeof COMPLIANCE_ALERTS)[number];

/** Triage states; the terminal ones complete an analysis. */
export const ANALYSIS_STATES = ['resolved', 'resolved_with_pedigree', 'exploitable', 'in_triage', 'false_positive', 'not_affected'] as const;
export type AnalysisState = (typeof ANALYSIS_STATES)[number];
export const TERMINAL_STATES: readonly AnalysisState[] = ['resolved', 'resolved_with_pedigree', 'not_affected'];

/** CycloneDX impact-analysis justifications. */
export const JUSTIFICATIONS = [
  'code_not_present',
  'code_not_reachable',
  'requires_configuration',
  'requires_dependency',
  'requires_environment',
  'protected_by_compiler',
  'protected_at_runtime',
  'protected_at_perimeter',
  'protected_by_mitigating_control',
] as const;
export type Justification = (typeof JUSTIFICATIONS)[number];

/** CycloneDX analysis responses. */
export const RESPONSES = ['can_not_fix', 'rollback', 'update', 'will_not_fix', 'workaround_available'] as const;
export type AnalysisResponse = (typeof RESPONSES)[number];

export interface Stored {
  readonly uuid: string;
  readonly dataspace: string;
  /** Bumped by every write: the optimistic-concurrency token. */
  readonly rev: number;
}

export interface UsagePolicy extends Stored {
  readonly label: string;
  readonly contentType: PolicyContentType;
  readonly complianceAlert: ComplianceAlert;
  readonly description: string;
}

export interface License extends Stored {
  readonly key: string;
  readonly name: string;
  readonly shortName: string;
  readonly spdxLicenseKey: string;
  /** One of the reference library's categories (REFERENCE_CATEGORIES), or '' for none. */
  readonly category: LicenseCategory;
  /** An exception (the right side of WITH), not a license of its own. */
  readonly isException: boolean;
  /** Label of a license usage policy. */
  readonly usagePolicy: string | null;
}

/** What a link made by matching a published advisory adds (shared/services/advisory-links.ts). */
export interface MatchedLink {
  /** The versions that fix the package (the advisory's fixed events above its version), oldest first. */
  readonly fixedVersions?: readonly string[];
  /** The advisory (OSV id) whose match made the link: a sync may take back only the links it made. */
  readonly matchedBy?: string;
}

/** A vulnerability as a package carries it: enough to score and age it without reading it. */
export interface PackageVulnerability extends MatchedLink {
  readonly riskScore: number | null;
  /** When the vulnerability was first known to affect the package (ISO 8601). */
  readonly linkedDate: string;
}

export interface Package extends Stored {
  readonly type: string;
  readonly namespace: string;
  readonly name: string;
  readonly version: string;
  readonly qualifiers: Readonly<Record<string, string>>;
  readonly subpath: string;
  /** Canonical package URL, built from the parts: unique in the dataspace. */
  readonly purl: string;
  readonly filename: string;
  readonly downloadUrl: string;
  /** Hex digests of the package file, lower case, or '' (DejaCode's md5, sha1, sha256, sha512). */
  readonly md5: string;
  readonly sha1: string;
  readonly sha256: string;
  readonly sha512: string;
  readonly description: string;
  readonly homepageUrl: string;
  /** The copyright statements, as written. */
  readonly copyright: string;
  /** Who supplies the package (CycloneDX supplier, SPDX PackageSupplier), as a name; DejaCode keeps it among its parties. */
  readonly supplier: string;
  /**
   * Canonical, over keys (dataspace keys, reference keys, and `unknown-license-reference` for what
   * resolved to nothing; see shared/domain/license-resolution.ts), or '' for none.
   */
  readonly licenseExpression: string;
  /** Every key the expression names, exceptions, reference keys and the unknown key included. */
  readonly licenseKeys: readonly string[];
  /**
   * The keys of `licenseKeys` that were the dataspace's own licenses when the expression was written:
   * the ones counted on their licenses (usedByPackages). A reference license adopted later is counted
   * from the package's next expression write.
   */
  readonly countedLicenseKeys: readonly string[];
  /** The license text as written (an SPDX expression, keys in any case, or free text); DejaCode's declared_license_expression. */
  readonly declaredLicenseExpression: string;
  /** The symbols, or the whole free text, that resolved to no license, as written. */
  readonly unknownLicenses: readonly string[];
  /**
   * The licenses as written that were recognised by name, URL, text or a dataspace mapping, not by key
   * or SPDX id, and what said so (absent on packages written before recognition: none).
   */
  readonly resolvedFrom?: readonly Resolution[];
  /** Label of a package usage policy. */
  readonly usagePolicy: string | null;
  /** By vulnerability id: kept in step with the vulnerabilities that affect the package. */
  readonly vulnerabilities: Readonly<Record<string, PackageVulnerability>>;
}

export interface AffectedPackage extends MatchedLink {
  readonly packageUuid: string;
  readonly linkedDate: string;
}

/** Where a vulnerability came from: typed in (the API, a load file), an SBOM or VEX document, or a published advisory. */
export const VULNERABILITY_SOURCES = ['manual', 'sbom', 'osv'] as const;
export type VulnerabilitySource = (typeof VULNERABILITY_SOURCES)[number];

export interface Vulnerability extends Stored {
  readonly vulnerabilityId: string;
  readonly aliases: readonly string[];
  readonly summary: string;
  /** 0.0 to 10.0 with one decimal, or null. */
  readonly riskScore: number | null;
  readonly affectedPackages: readonly AffectedPackage[];
  /** Absent on vulnerabilities written before sources were kept: they were typed in or imported, and read as manual. */
  readonly source?: VulnerabilitySource;
}

/** The link a package carries for an affected entry, at the vulnerability's score (what matching added kept). */
export function packageLink(affected: AffectedPackage, riskScore: number | null): PackageVulnerability {
  return {
    riskScore,
    linkedDate: affected.linkedDate,
    ...(affected.fixedVersions ? { fixedVersions: affected.fixedVersions } : {}),
    ...(affected.matchedBy ? { matchedBy: affected.matchedBy } : {}),
  };
}

export interface ProductPackage {
  readonly uuid: string;
  readonly dataspace: string;
  readonly productUuid: string;
  readonly packageUuid: string;
  readonly createdDate: string;
  /** Bumped by every write (1 once created): the entity tag. */
  readonly rev: number;
  /**
   * The license concluded for this product, canonical over keys as a package's; '' means the
   * package's own. Not counted on its licenses (see docs/license-expressions.md).
   */
  readonly licenseExpression: string;
  readonly licenseKeys: readonly string[];
  readonly declaredLicenseExpression: string;
  readonly unknownLicenses: readonly string[];
  /** DejaCode's flags: the package is deployed with the product (default true), and modified (default false). */
  readonly isDeployed: boolean;
  readonly isModified: boolean;
  /** The packages (uuids) this one depends on within the product, sorted: an SBOM's dependency edges. */
  readonly dependsOn: readonly string[];
  /**
   * Where the last CycloneDX document with a serial number that named this package had it: its serial
   * (a uuid, lower case) and the component's bom-ref, when that is not the purl. A VEX published apart
   * names the package by the BOM-Link `urn:cdx:<bomSerial>/<version>#<bomRef>`. Absent otherwise.
   */
  readonly bomSerial?: string;
  readonly bomRef?: string;
}

/** The descriptive fields of a package that an SBOM fills and a new package starts without. */
export const NO_PACKAGE_DETAILS = {
  md5: '',
  sha1: '',
  sha256: '',
  sha512: '',
  description: '',
  homepageUrl: '',
  copyright: '',
  supplier: '',
  declaredLicenseExpression: '',
  unknownLicenses: [] as readonly string[],
} as const satisfies Partial<Package>;

/** The hash fields of a package and the length of each hex digest. */
export const HASH_LENGTHS = { md5: 32, sha1: 40, sha256: 64, sha512: 128 } as const;
export type HashField = keyof typeof HASH_LENGTHS;

/** The digest in lower case when it is `field`'s length of hex digits; undefined otherwise. */
export function normalizedHash(field: HashField, value: string): string | undefined {
  const trimmed = value.trim().toLowerCase();
  return new RegExp(`^[0-9a-f]{${HASH_LENGTHS[field]}}$`).test(trimmed) ? trimmed : undefined;
}

/** A product package's own fields as added without them: the package's license, deployed, not modified. */
export const PRODUCT_PACKAGE_DEFAULTS = {
  rev: 1,
  licenseExpression: '',
  licenseKeys: [],
  declaredLicenseExpression: '',
  unknownLicenses: [],
  isDeployed: true,
  isModified: false,
  dependsOn: [],
} as const satisfies Partial<ProductPackage>;

export interface Analysis extends Stored {
  readonly productUuid: string;
  readonly productPackageUuid: string;
  readonly packageUuid: string;
  readonly vulnerabilityId: string;
  readonly state: AnalysisState | null;
  readonly justification: Justification | null;
  readonly responses: readonly AnalysisResponse[];
  readonly detail: string;
  readonly createdDate: string;
  readonly lastModifiedDate: string;
}

/** An analysis is complete when its state is terminal (false_positive is not). */
export function isCompleteAnalysis(analysis: Pick<Analysis, 'state'>): boolean {
  return analysis.state !== null && TERMINAL_STATES.includes(analysis.state);
}

/** Catalog objects are read by everyone of their dataspace and written by its superusers. */
export function catalogAccess(caller: Caller, object: { dataspace: string }, write: boolean): 'not-found' | 'forbidden' | 'allowed' {
  if (object.dataspace !== caller.dataspace) return 'not-found';
  return write && !caller.isSuperuser ? 'forbidden' : 'allowed';
}

/** The highest risk score of the package's vulnerabilities, or null when none is scored. */
export function packageRiskScore(pkg: Pick<Package, 'vulnerabilities'>): number | null {
  const scores = Object.values(pkg.vulnerabilities)
    .map((vulnerability) => vulnerability.riskScore)
    .filter((score): score is number => score !== null);
  return scores.length > 0 ? Math.max(...scores) : null;
}

/**
 * What each package of a vulnerability write must become: the link (with the new score) on every
 * package it affects now, and no link on those it no longer affects.
 */
export function vulnerabilityLinks(
  before: Vulnerability | undefined,
  after: Vulnerability | undefined,
): { set: Map<string, PackageVulnerability>; remove: string[] } {
  const set = new Map<string, PackageVulnerability>();
  const kept = new Set<string>();
  const was = new Map((before?.affectedPackages ?? []).map((affected) => [affected.packageUuid, JSON.stringify(packageLink(affected, before!.riskScore))]));
  for (const affected of after?.affectedPackages ?? []) {
    kept.add(affected.packageUuid);
    const link = packageLink(affected, after!.riskScore);
    // A package whose link is already this one keeps it unwritten (a vulnerability linked to thousands
    // gains one package without writing the others); the same vulnerability id, so the same map key.
    if (before?.vulnerabilityId === after!.vulnerabilityId && was.get(affected.packageUuid) === JSON.stringify(link)) continue;
    set.set(affected.packageUuid, link);
  }
  const remove = (before?.affectedPackages ?? []).map((a) => a.packageUuid).filter((uuid) => !kept.has(uuid));
  return { set, remove };
}

/** How many catalog objects name a license or usage policy, by kind. */
export interface Uses {
  readonly packages: number;
  readonly licenses: number;
}

/** "This license is still used by 3 objects: 2 packages and 1 license." */
export function inUseMessage(what: 'license' | 'usage policy', uses: Uses): string {
  const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
  const parts = [uses.packages > 0 ? count(uses.packages, 'package') : '', uses.licenses > 0 ? count(uses.licenses, 'license') : ''].filter(Boolean);
  return `This ${what} is still used by ${count(uses.packages + uses.licenses, 'object')}: ${parts.join(' and ')}.`;
}
