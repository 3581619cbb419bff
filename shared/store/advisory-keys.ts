/**
 * The migration that gives the packages written before advisories were matched their OSV package entry
 * (CollectionSpec.advisoryKey: GSI11 and `osvKey`), then marks the dataspace (ADVISORY_KEYS_INDEXED,
 * which new dataspaces carry from their creation, so the migration reads nothing of theirs). Each entry is
 * a package MODIFY on the table's stream: the stream router sends it to the advisory linker, so an
 * existing catalog is matched against the advisories loaded, as a new package is.
 */
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../keys.ts';
import { DATASPACE_MARKS, markDataspace, markIn } from './dataspace-marks.ts';
import { advisoryKeyAttributes, CATALOG_SPECS } from './catalog-store.ts';
import { partitionQueryInput, queryAll } from './dynamo.ts';
import { setAtRevision } from './catalog-lookups.ts';

export const ADVISORY_KEYS_INDEXED = DATASPACE_MARKS.advisoryKeysIndexed;

/**
 * Gives every package of the dataspace that lacks it its OSV package entry (only if the package is still
 * at the revision read: a write since wrote its own), then marks the dataspace. Idempotent; answers how
 * many entries it wrote (none for a dataspace marked already).
 */
export async function indexAdvisoryKeys(doc: DynamoDBDocumentClient, tableName: string, dataspace: string): Promise<number> {
  const { Item } = await doc.send(new GetCommand({ TableName: tableName, Key: keys.dataspace(dataspace), ConsistentRead: true }));
  if (markIn(tableName, dataspace, ADVISORY_KEYS_INDEXED, Item)) return 0;
  const spec = CATALOG_SPECS.packages;
  const items = await queryAll(doc, partitionQueryInput(tableName, keys.catalogOfDataspace(spec.type, dataspace)));
  const work = items
    .map((item) => ({ item, attributes: advisoryKeyAttributes(spec, spec.fromItem(item)) }))
    .filter(({ item, attributes }) => attributes.GSI11PK !== undefined && (item.GSI11PK !== attributes.GSI11PK || item.GSI11SK !== attributes.GSI11SK));
  const written = await setAtRevision(doc, tableName, work);
  await markDataspace(doc, tableName, dataspace, ADVISORY_KEYS_INDEXED);
  return written;
}
