/**
 * The migration that gives the catalog's lookup entries (CollectionSpec.lookup: packages by name,
 * licenses by SPDX key) to the objects written before entries existed, then marks the dataspace
 * (CATALOG_LOOKUPS_INDEXED). Until it is marked, its lists filter by walking the dataspace's index as
 * before (CatalogStore.lookupReady), so answers stay exact while the migration runs.
 */
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../keys.ts';
import { markDataspace } from './dataspace-marks.ts';
import { CATALOG_LOOKUPS_INDEXED, CATALOG_SPECS, lookupAttributes, type CollectionSpec, type Stored } from './catalog-store.ts';
import { isConditionFailure, partitionQueryInput, queryAll, type Item } from './dynamo.ts';

/** Lookup entries written at once by the migration. */
const CONCURRENCY = 16;

/**
 * Gives every package and license of the dataspace that lacks it its lookup entry, then marks the
 * dataspace. Each entry is written only if the object is still at the revision read (a write since
 * wrote its own entry). Idempotent; answers how many entries it wrote.
 */
export async function indexCatalogLookups(doc: DynamoDBDocumentClient, tableName: string, dataspace: string): Promise<number> {
  const written = (await indexCollection(doc, tableName, dataspace, CATALOG_SPECS.packages)) + (await indexCollection(doc, tableName, dataspace, CATALOG_SPECS.licenses));
  await markDataspace(doc, tableName, dataspace, CATALOG_LOOKUPS_INDEXED);
  return written;
}

async function indexCollection<T extends Stored>(doc: DynamoDBDocumentClient, tableName: string, dataspace: string, spec: CollectionSpec<T>): Promise<number> {
  const items = await queryAll(doc, partitionQueryInput(tableName, keys.catalogOfDataspace(spec.type, dataspace)));
  return setAtRevision(
    doc,
    tableName,
    items.filter((item) => needsEntry(spec, item)).map((item) => ({ item, attributes: lookupAttributes(spec, spec.fromItem(item)) })),
  );
}

/**
 * The migrations' writes of index entries onto items an earlier version wrote: each item gets its
 * attributes only if it is still at the revision read (a write since wrote its own), a few at once.
 * Answers how many were written.
 */
export async function setAtRevision(doc: DynamoDBDocumentClient, tableName: string, work: { item: Item; attributes: Item }[]): Promise<number> {
  const queue = [...work];
  let written = 0;
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const { item, attributes } = next;
      const names = Object.keys(attributes);
      try {
        await doc.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { PK: item.PK, SK: item.SK },
            UpdateExpression: `SET ${names.map((_, i) => `#a${i} = :a${i}`).join(', ')}`,
            ConditionExpression: item.rev === undefined ? 'attribute_exists(PK) AND attribute_not_exists(#rev)' : 'attribute_exists(PK) AND #rev = :rev',
            ExpressionAttributeNames: { '#rev': 'rev', ...Object.fromEntries(names.map((name, i) => [`#a${i}`, name])) },
            ExpressionAttributeValues: { ...Object.fromEntries(names.map((name, i) => [`:a${i}`, attributes[name]])), ...(item.rev === undefined ? {} : { ':rev': item.rev }) },
          }),
        );
        written++;
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, queue.length) }, worker));
  return written;
}

/** True when the item should carry a lookup entry and does not carry the right one. */
function needsEntry<T extends Stored>(spec: CollectionSpec<T>, item: Item): boolean {
  const entry = lookupAttributes(spec, spec.fromItem(item));
  return entry.GSI10PK !== undefined && (item.GSI10PK !== entry.GSI10PK || item.GSI10SK !== entry.GSI10SK);
}
