/**
 * Seeding helpers of the policy scenarios (not a scenario): the items the catalog and product-package
 * stores write, built the same way, so that large products can be loaded with BatchWriteItem
 * (lib/seed.ts writeAll) instead of one transaction per object. Keep in step with
 * Collection.writeItems and CatalogStore's toAttributes (shared/store/catalog-store.ts), and with
 * ProductPackageStore.add / writeAnalysis (shared/store/product-package-store.ts).
 */
import { keys, type CatalogType } from '../../shared/keys.ts';
import type { Analysis, License, Package, ProductPackage, UsagePolicy, Vulnerability } from '../../shared/domain/catalog.ts';

type Item = Record<string, unknown>;

/** The object item (with its dataspace index keys) and its unique-value reservation. */
function catalogItems(type: CatalogType, entity: string, object: { uuid: string; dataspace: string; rev: number }, unique: string, attributes: Item): Item[] {
  return [
    {
      ...keys.catalogObject(type, object.uuid),
      ...keys.catalogInDataspace(type, object.dataspace, unique, object.uuid),
      entity,
      uuid: object.uuid,
      dataspace: object.dataspace,
      ...attributes,
      rev: object.rev + 1,
    },
    { ...keys.catalogUnique(type, object.dataspace, unique), entity: 'CatalogUnique', uuid: object.uuid },
  ];
}

export function usagePolicyItems(p: UsagePolicy): Item[] {
  return catalogItems('USAGEPOLICY', 'UsagePolicy', p, p.label, {
    label: p.label,
    contentType: p.contentType,
    complianceAlert: p.complianceAlert,
    description: p.description,
  });
}

export function licenseItems(l: License): Item[] {
  return catalogItems('LICENSE', 'License', l, l.key, {
    key: l.key,
    name: l.name,
    shortName: l.shortName,
    spdxLicenseKey: l.spdxLicenseKey,
    usagePolicy: l.usagePolicy,
  });
}

export function packageItems(p: Package): Item[] {
  return catalogItems('PACKAGE', 'Package', p, p.purl, {
    type: p.type,
    namespace: p.namespace,
    name: p.name,
    version: p.version,
    qualifiers: p.qualifiers,
    subpath: p.subpath,
    purl: p.purl,
    filename: p.filename,
    downloadUrl: p.downloadUrl,
    licenseExpression: p.licenseExpression,
    licenseKeys: [...p.licenseKeys],
    usagePolicy: p.usagePolicy,
    vulnerabilities: p.vulnerabilities,
  });
}

export function vulnerabilityItems(v: Vulnerability): Item[] {
  return catalogItems('VULNERABILITY', 'Vulnerability', v, v.vulnerabilityId, {
    vulnerabilityId: v.vulnerabilityId,
    aliases: [...v.aliases],
    summary: v.summary,
    riskScore: v.riskScore,
    affectedPackages: v.affectedPackages.map((a) => ({ packageUuid: a.packageUuid, linkedDate: a.linkedDate })),
  });
}

/** The product-package item in the product's partition and its pointer, as ProductPackageStore.add writes them. */
export function productPackageItems(pp: ProductPackage): Item[] {
  return [
    {
      ...keys.productPackage(pp.productUuid, pp.packageUuid),
      ...keys.productPackageInDataspace(pp.dataspace, pp.createdDate, pp.uuid),
      ...keys.productHoldingPackage(pp.packageUuid, pp.productUuid),
      entity: 'ProductPackage',
      uuid: pp.uuid,
      dataspace: pp.dataspace,
      productUuid: pp.productUuid,
      packageUuid: pp.packageUuid,
      createdDate: pp.createdDate,
    },
    { ...keys.pointer('PRODUCTPACKAGE', pp.uuid), entity: 'Pointer', productUuid: pp.productUuid, packageUuid: pp.packageUuid },
  ];
}

/** An analysis item and its pointer, as ProductPackageStore.writeAnalysis creates them. */
export function analysisItems(a: Analysis): Item[] {
  return [
    {
      ...keys.analysis(a.productUuid, a.packageUuid, a.vulnerabilityId),
      ...keys.analysisInDataspace(a.dataspace, a.createdDate, a.uuid),
      entity: 'Analysis',
      uuid: a.uuid,
      dataspace: a.dataspace,
      productUuid: a.productUuid,
      productPackageUuid: a.productPackageUuid,
      packageUuid: a.packageUuid,
      vulnerabilityId: a.vulnerabilityId,
      state: a.state,
      justification: a.justification,
      responses: [...a.responses],
      detail: a.detail,
      createdDate: a.createdDate,
      lastModifiedDate: a.lastModifiedDate,
      rev: a.rev + 1,
    },
    {
      ...keys.pointer('ANALYSIS', a.uuid),
      entity: 'Pointer',
      productUuid: a.productUuid,
      packageUuid: a.packageUuid,
      vulnerabilityId: a.vulnerabilityId,
    },
  ];
}

/** A package with defaults for what the policy scenarios do not vary. */
export function benchPackage(
  fields: Pick<Package, 'uuid' | 'dataspace' | 'name'> & Partial<Pick<Package, 'licenseExpression' | 'licenseKeys' | 'usagePolicy' | 'vulnerabilities'>>,
): Package {
  const version = '1.0.0';
  return {
    uuid: fields.uuid,
    dataspace: fields.dataspace,
    rev: 0,
    type: 'npm',
    namespace: '',
    name: fields.name,
    version,
    qualifiers: {},
    subpath: '',
    purl: `pkg:npm/${fields.name}@${version}`,
    filename: '',
    downloadUrl: '',
    licenseExpression: fields.licenseExpression ?? '',
    licenseKeys: fields.licenseKeys ?? [],
    usagePolicy: fields.usagePolicy ?? null,
    vulnerabilities: fields.vulnerabilities ?? {},
  };
}

/** Polls `check` every `everyMs` until it returns a value other than undefined, or throws after `timeoutMs`. */
export async function pollUntil<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number, everyMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((resolveWait) => setTimeout(resolveWait, everyMs));
  }
}
