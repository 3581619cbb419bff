/**
 * Packages already in the catalog, resolved again when what recognises licenses changes: a new ScanCode
 * rules index (the migration: once per dataspace and index version, marked on the dataspace's item) or a
 * dataspace's license mappings. Only packages with unknown licenses are read again, and only those whose
 * stored expression came from their declared text (reresolution in shared/domain/license-resolution.ts)
 * are written. Each write is a package MODIFY on the table's stream like any other, so the products that
 * hold the package are evaluated again.
 */
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Package } from '../domain/catalog.ts';
import { buildLicenseIndex } from '../domain/license-index.ts';
import { reresolution, type LicenseIndex } from '../domain/license-resolution.ts';
import { keys } from '../keys.ts';
import { scancodeLibrary } from '../reference/scancode-licensedb.ts';
import { readRulesData, scancodeKnowledge } from '../reference/scancode-rules.ts';
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
  const index = buildLicenseIndex(await catalog.licenses.all(dataspace), scancodeLibrary(), { knowledge: scancodeKnowledge() });
  const written = await reresolvePackages(doc, tableName, dataspace, index);
  await doc.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.dataspace(dataspace),
      UpdateExpression: 'SET #version = :version',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeNames: { '#version': VERSION_ATTRIBUTE },
      ExpressionAttributeValues: { ':version': version },
    }),
  );
  return written;
}
