/**
 * Packages already in the catalog, resolved again when what recognises licenses changes: a new ScanCode
 * rules index (the migration: once per dataspace and index version, marked on the dataspace's item) or a
 * dataspace's license mappings (applyMapping). Only packages with unknown licenses are read again, and only those whose
 * stored expression came from their declared text (reresolution in shared/domain/license-resolution.ts)
 * are written. Each write is a package MODIFY on the table's stream like any other, so the products that
 * hold the package are evaluated again.
 */
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { setOnDataspace } from './dataspace-marks.ts';
import type { Package } from '../domain/catalog.ts';
import { reresolution, type LicenseIndex } from '../domain/license-resolution.ts';
import { holdsMappedText, type LicenseMapping } from '../domain/license-mapping.ts';
import { keys } from '../keys.ts';
import { readRulesData } from '../reference/scancode-rules.ts';
import { shippedLicenseIndex } from '../reference/shipped-license-index.ts';
import { CatalogStore, isCatalogRace } from './catalog-store.ts';
import { retryOnConflict } from './dynamo.ts';

/**
 * What the migration has re-resolved a dataspace with: the rules index's source commit and the version of
 * the resolution itself (bumped when the resolver learns a new way to read a name). Stored on the
 * dataspace's item as `licenseResolution`.
 */
export const RESOLUTION_VERSION = 1;
export const licenseResolutionVersion = (): string => `${readRulesData().source.commit}/${RESOLUTION_VERSION}`;
const VERSION_ATTRIBUTE = 'licenseResolution';

/**
 * Resolves again the dataspace's packages that have unknown licenses (those `only` accepts, if given)
 * with `index`, writing each that now resolves more. Answers how many were written.
 */
export async function reresolvePackages(
  doc: DynamoDBDocumentClient,
  tableName: string,
  dataspace: string,
  index: LicenseIndex,
  only: (pkg: Package) => boolean = () => true,
): Promise<number> {
  const catalog = new CatalogStore(doc, tableName);
  const candidates = (await catalog.packages.all(dataspace)).filter((pkg) => pkg.unknownLicenses.length > 0 && only(pkg) && reresolution(pkg, index) !== undefined);
  let written = 0;
  for (const candidate of candidates) {
    const changed = await retryOnConflict(async () => {
      // Read again: a write since may have changed or resolved it.
      const before = await catalog.packages.get(candidate.uuid);
      const resolved = before && reresolution(before, index);
      if (!before || !resolved) return false;
      const after: Package = {
        ...before,
        licenseExpression: resolved.expression,
        licenseKeys: [...resolved.keys],
        countedLicenseKeys: [...resolved.dataspaceKeys],
        unknownLicenses: [...resolved.unknown],
        resolvedFrom: [...resolved.resolvedFrom],
      };
      await catalog.packages.write(before, after);
      return true;
    }, isCatalogRace);
    if (changed) written++;
  }
  return written;
}

/**
 * The migration step: re-resolves the dataspace's packages with the shipped rules index, once per index
 * version (a dataspace already at this version reads one item). Idempotent.
 */
export async function reresolveWithRules(doc: DynamoDBDocumentClient, tableName: string, dataspace: string): Promise<number> {
  const version = licenseResolutionVersion();
  const { Item } = await doc.send(new GetCommand({ TableName: tableName, Key: keys.dataspace(dataspace), ConsistentRead: true }));
  if (Item?.[VERSION_ATTRIBUTE] === version) return 0;
  const catalog = new CatalogStore(doc, tableName);
  const index = await dataspaceIndex(catalog, dataspace);
  const written = await reresolvePackages(doc, tableName, dataspace, index);
  await setOnDataspace(doc, tableName, dataspace, VERSION_ATTRIBUTE, version);
  return written;
}

/**
 * A dataspace's license mapping applied to the packages already there (the license re-resolver, queued by
 * the mapping's change on the stream): the dataspace's packages whose unknown licenses may hold its text
 * are resolved again with its licenses and mappings. The mapping is read again, strongly consistent: one
 * deleted since applies to nothing, and one changed since applies as it is now. Idempotent: a package
 * resolved already has nothing left to change. Reads the dataspace's package list once (its cost grows
 * with the dataspace: README, "License mappings").
 */
/**
 * The dataspace's index as re-resolution reads it: its licenses and mappings (one Query each) over the
 * shipped data. `fresh`, a mapping read strongly consistent, comes first and replaces its copy in the
 * list, whose index may not hold the write that queued the work yet.
 */
async function dataspaceIndex(catalog: CatalogStore, dataspace: string, fresh?: LicenseMapping) {
  const [licenses, mappings] = await Promise.all([catalog.licenses.all(dataspace), catalog.licenseMappings.all(dataspace)]);
  return shippedLicenseIndex(licenses, fresh ? [fresh, ...mappings.filter((other) => other.uuid !== fresh.uuid)] : mappings);
}

export type MappingApplier = (dataspace: string, mapping: string) => Promise<{ readonly found: boolean; readonly written: number }>;

export async function applyMapping(doc: DynamoDBDocumentClient, tableName: string, dataspace: string, mappingUuid: string): Promise<{ readonly found: boolean; readonly written: number }> {
  const catalog = new CatalogStore(doc, tableName);
  const mapping = await catalog.licenseMappings.get(mappingUuid);
  if (!mapping || mapping.dataspace !== dataspace) return { found: false, written: 0 };
  const index = await dataspaceIndex(catalog, dataspace, mapping);
  const written = await reresolvePackages(doc, tableName, dataspace, index, (pkg) => holdsMappedText(pkg.unknownLicenses, mapping));
  return { found: true, written };
}
