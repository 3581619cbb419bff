/**
 * A product as an SPDX 2.3 JSON document: a root package for the product that the document
 * DESCRIBES and that CONTAINS every package, DEPENDS_ON between packages exactly as the product
 * records them, and the extracted licensing info for every LicenseRef used. Pure: the caller passes
 * the clock and the namespace seed in the model. The mapping and its choices are in docs/sbom-export.md.
 */
import type { SbomHashes } from './inventory.ts';
import type { ExportModel, ExportPackage } from './export-model.ts';
import { DocumentLicenses } from './export-licenses.ts';
import { isoSeconds } from '../domain/time.ts';

type Json = Record<string, unknown>;

/** The document: JSON that says it is SPDX 2.3 (what the export route documents). */
export type SpdxDocument = Json & { readonly spdxVersion: 'SPDX-2.3'; readonly SPDXID: string };

const CHECKSUM_ALGORITHMS: readonly (readonly [keyof SbomHashes, string])[] = [
  ['md5', 'MD5'],
  ['sha1', 'SHA1'],
  ['sha256', 'SHA256'],
  ['sha512', 'SHA512'],
];

export function writeSpdx(model: ExportModel): SpdxDocument {
  const licenses = new DocumentLicenses(model.licenseRefs);
  const productId = spdxId('Product', model.product.uuid);
  const ids = new Map(model.packages.map((pkg) => [pkg.uuid, spdxId('Package', pkg.uuid)]));

  const relationships: Json[] = [{ spdxElementId: 'SPDXRef-DOCUMENT', relationshipType: 'DESCRIBES', relatedSpdxElement: productId }];
  for (const pkg of model.packages) relationships.push({ spdxElementId: productId, relationshipType: 'CONTAINS', relatedSpdxElement: ids.get(pkg.uuid) });
  for (const pkg of model.packages) {
    for (const target of new Set(model.dependencies.get(pkg.uuid) ?? [])) {
      const targetId = target === pkg.uuid ? undefined : ids.get(target);
      if (targetId !== undefined) relationships.push({ spdxElementId: ids.get(pkg.uuid), relationshipType: 'DEPENDS_ON', relatedSpdxElement: targetId });
    }
  }

  const packages = [productPackage(model, productId), ...model.packages.map((pkg) => spdxPackage(pkg, ids.get(pkg.uuid)!, licenses))];
  const extracted = licenses.extractedLicenses();
  return {
    spdxVersion: 'SPDX-2.3',
    dataLicense: 'CC0-1.0',
    SPDXID: 'SPDXRef-DOCUMENT',
    name: model.product.version ? `${model.product.name} ${model.product.version}` : model.product.name,
    documentNamespace: `${model.product.apiUrl.replace(/\/+$/, '')}/spdx/${model.documentUuid.toLowerCase()}`,
    creationInfo: {
      created: spdxTimestamp(model.timestamp),
      // Only what the service knows for certain: itself. Who asked for the export is not in the model.
      creators: [`Tool: ${model.tool.name}${model.tool.version ? `-${model.tool.version}` : ''}`],
    },
    // Deprecated by 2.3.1 in favour of the DESCRIBES relationship below, and still what many readers look for.
    documentDescribes: [productId],
    packages,
    relationships,
    ...(extracted.length > 0 ? { hasExtractedLicensingInfos: extracted } : {}),
  };
}

/** `SPDXRef-` ids allow letters, digits, `.` and `-`: uuids already are. */
function spdxId(kind: string, uuid: string): string {
  return `SPDXRef-${kind}-${uuid.replace(/[^A-Za-z0-9.-]/g, '-')}`;
}

/** SPDX 2.3 writes `YYYY-MM-DDThh:mm:ssZ` (no fraction; several readers parse exactly that). */
function spdxTimestamp(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : isoSeconds(date);
}

function productPackage(model: ExportModel, productId: string): Json {
  return {
    name: model.product.name,
    SPDXID: productId,
    ...optional('versionInfo', model.product.version),
    downloadLocation: 'NOASSERTION',
    filesAnalyzed: false,
    licenseConcluded: 'NOASSERTION',
    licenseDeclared: 'NOASSERTION',
    primaryPackagePurpose: 'APPLICATION',
  };
}

function spdxPackage(pkg: ExportPackage, id: string, licenses: DocumentLicenses): Json {
  const checksums = checksumList(pkg.hashes);
  const declared = licenses.license(pkg.declaredLicenseSpdx).expression;
  // Empty concluded means "the declared one applies": no conclusion was recorded, so none is asserted.
  const concluded = licenses.license(pkg.concludedLicenseSpdx).expression;
  return {
    name: pkg.name,
    SPDXID: id,
    ...optional('versionInfo', pkg.version),
    ...optional('packageFileName', pkg.filename),
    supplier: supplier(pkg.supplier),
    downloadLocation: pkg.downloadUrl || 'NOASSERTION',
    filesAnalyzed: false,
    ...(checksums.length > 0 ? { checksums } : {}),
    ...optional('homepage', pkg.homepageUrl),
    licenseConcluded: concluded || 'NOASSERTION',
    licenseDeclared: declared || 'NOASSERTION',
    ...optional('copyrightText', pkg.copyright),
    ...optional('description', pkg.description),
    ...(pkg.purl ? { externalRefs: [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: pkg.purl }] } : {}),
    primaryPackagePurpose: 'LIBRARY',
  };
}

function checksumList(hashes: SbomHashes): Json[] {
  const list: Json[] = [];
  for (const [field, algorithm] of CHECKSUM_ALGORITHMS) {
    const value = hashes[field];
    if (value && /^[0-9a-fA-F]+$/.test(value)) list.push({ algorithm, checksumValue: value.toLowerCase() });
  }
  return list;
}

/** SPDX wants an agent: `Person: …` or `Organization: …`. The catalog keeps a name; an organization is what suppliers mostly are. */
function supplier(name: string): string {
  const text = name.trim();
  if (!text) return 'NOASSERTION';
  return /^(Person|Organization):/.test(text) ? text : `Organization: ${text}`;
}

function optional(key: string, value: string): Json {
  return value ? { [key]: value } : {};
}
