/**
 * Marks on a dataspace's item that say a data migration is done for it (its request counters grouped,
 * its catalog lookups indexed): set once by the migration, never taken back, so a container that saw a
 * mark need not read it again.
 */
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../keys.ts';

/** The migration marks, as attributes of the dataspace's item. New dataspaces are created with every one. */
export const DATASPACE_MARKS = {
  /** Its request counters are all grouped (none of the earlier layout left). */
  requestCountersGrouped: 'requestCountersGrouped',
  /** Every package and license of it carries its lookup entry. */
  catalogLookupsIndexed: 'catalogLookupsIndexed',
  /** Every package of it whose purl names an OSV ecosystem carries its OSV package entry (GSI11). */
  advisoryKeysIndexed: 'advisoryKeysIndexed',
} as const;
export type DataspaceMark = (typeof DATASPACE_MARKS)[keyof typeof DATASPACE_MARKS];

/** Marks seen set, by table, dataspace and mark. */
const seen = new Set<string>();
const seenKey = (tableName: string, dataspace: string, mark: DataspaceMark) => `${tableName}\u0000${dataspace}\u0000${mark}`;

/** True when this container has already seen the mark set. */
export function markSeen(tableName: string, dataspace: string, mark: DataspaceMark): boolean {
  return seen.has(seenKey(tableName, dataspace, mark));
}

/** Whether the dataspace's item (as read) carries the mark; a mark found is remembered. */
export function markIn(tableName: string, dataspace: string, mark: DataspaceMark, item: Readonly<Record<string, unknown>> | undefined): boolean {
  const marked = item?.[mark] === true;
  if (marked) seen.add(seenKey(tableName, dataspace, mark));
  return marked;
}

/** Sets the mark on the dataspace's item (which must exist): the migration's last step for it. */
export async function markDataspace(doc: DynamoDBDocumentClient, tableName: string, dataspace: string, mark: DataspaceMark): Promise<void> {
  await setOnDataspace(doc, tableName, dataspace, mark, true);
}

/**
 * Sets an attribute of the dataspace's item (which must exist) to `value`: a migration mark, or a version
 * a migration step brought the dataspace to (license re-resolution's `licenseResolution`).
 */
export async function setOnDataspace(doc: DynamoDBDocumentClient, tableName: string, dataspace: string, attribute: string, value: unknown): Promise<void> {
  await doc.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.dataspace(dataspace),
      UpdateExpression: 'SET #attribute = :value',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeNames: { '#attribute': attribute },
      ExpressionAttributeValues: { ':value': value },
    }),
  );
}
