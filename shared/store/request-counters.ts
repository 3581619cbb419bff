/**
 * The request list's counters, grouped (counters.ts GroupedCounterSpace, grouped by counterGroup of
 * shared/domain/request.ts): per shard, one item for the dataspace's few-valued counters and one per
 * user. Each counter stores `total` and `private` (how many of those requests are private): a public
 * request moves `total` alone, so the dataspace's item keeps one attribute per counter. A count's
 * `public` part is `total - private`.
 *
 * Before grouping, each counter was an item of its own (keys.requestCount); foldLegacyRequestCounters
 * moves those into the groups (shared/store/migrations.ts: `npm start`, the admin CLI's `migrate`, and a
 * trigger after each deployment), one item at a time, each in a transaction that deletes the old item
 * and adds its values to the group. Until a dataspace is folded (its item marked
 * REQUEST_COUNTERS_GROUPED), a count reads both layouts in one TransactGetItems, which no fold can fall
 * between: counts stay exact while the migration runs, however long it takes.
 */
import { GetCommand, TransactGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { counterGroup, counterKeyFromLegacy, legacyCounterKey } from '../domain/request.ts';
import { keys } from '../keys.ts';
import { DATASPACE_MARKS, markDataspace, markIn, markSeen } from './dataspace-marks.ts';
import { COUNTER_SHARDS, groupedAttribute, groupedCounterSeedItems, groupedCounterUpdates, type CounterDeltas, type GroupedCounterSpace } from './counters.ts';
import { batchGet, isConditionFailure, isTransactionConflict, partitionQueryInput, queryAll, retryOnConflict, transact, type Item, type LabelledItem } from './dynamo.ts';

/** The mark of a dataspace's item that says its request counters are all grouped (none of the earlier layout left). */
export const REQUEST_COUNTERS_GROUPED = DATASPACE_MARKS.requestCountersGrouped;

export function requestCounterSpace(dataspace: string): GroupedCounterSpace {
  return { key: (group, shard) => keys.requestCounterGroup(dataspace, group, shard), groupOf: counterGroup, entity: 'RequestCounters' };
}

/** The stored form of the domain's deltas ({total, public}): {total, private}. */
function stored(deltas: CounterDeltas): CounterDeltas {
  return new Map([...deltas].map(([counter, delta]) => [counter, { total: delta.total ?? 0, private: (delta.total ?? 0) - (delta.public ?? 0) }]));
}

/** The transaction items that add a write's counter deltas ({total, public} per counter) to one shard. */
export function requestCounterUpdates(tableName: string, dataspace: string, deltas: CounterDeltas, shard?: number): LabelledItem[] {
  return groupedCounterUpdates(tableName, requestCounterSpace(dataspace), stored(deltas), shard);
}

/**
 * A counter's value: the 16 shards of its group (and the dataspace's item, until it was seen grouped) in
 * one BatchGetItem; for a dataspace not yet folded, its group's shards and its shards of the earlier
 * layout in one TransactGetItems instead (twice the read units, while the migration has not reached it).
 */
export async function readRequestCounter(doc: DynamoDBDocumentClient, tableName: string, dataspace: string, counter: string): Promise<{ total: number; public: number }> {
  const space = requestCounterSpace(dataspace);
  const groupKeys = Array.from({ length: COUNTER_SHARDS }, (_, shard) => space.key(counterGroup(counter), shard));
  const known = markSeen(tableName, dataspace, REQUEST_COUNTERS_GROUPED);
  const items = await batchGet(doc, tableName, known ? groupKeys : [...groupKeys, keys.dataspace(dataspace)], true);
  if (known || markIn(tableName, dataspace, REQUEST_COUNTERS_GROUPED, items.find((item) => item.entity === 'Dataspace'))) return fromGroups(items, counter);
  const legacy = legacyCounterKey(counter);
  const legacyKeys = Array.from({ length: COUNTER_SHARDS }, (_, shard) => keys.requestCount(dataspace, legacy, shard));
  const both = await doc.send(new TransactGetCommand({ TransactItems: [...groupKeys, ...legacyKeys].map((Key) => ({ Get: { TableName: tableName, Key } })) }));
  const read = (both.Responses ?? []).map((response) => response.Item).filter((item): item is Item => item !== undefined);
  const inGroups = fromGroups(read, counter);
  const earlier = read.filter((item) => item.entity === 'RequestCount');
  return {
    total: inGroups.total + earlier.reduce((sum, item) => sum + Number(item.total ?? 0), 0),
    public: inGroups.public + earlier.reduce((sum, item) => sum + Number(item.public ?? 0), 0),
  };
}

function fromGroups(items: readonly Item[], counter: string): { total: number; public: number } {
  let total = 0;
  let privatePart = 0;
  for (const item of items) {
    if (item.entity !== 'RequestCounters') continue;
    total += Number(item[groupedAttribute('total', counter)] ?? 0);
    privatePart += Number(item[groupedAttribute('private', counter)] ?? 0);
  }
  return { total, public: total - privatePart };
}

/** Group items holding a bulk load's counter totals ({total, public} per counter). */
export function requestCounterSeedItems(dataspace: string, totals: CounterDeltas): Item[] {
  return groupedCounterSeedItems(requestCounterSpace(dataspace), stored(totals));
}

/**
 * Folds every counter item of the dataspace written before grouping into its group's item of the same
 * shard, each in a transaction that deletes the old item on the condition that it still holds what was
 * read: a count is never both in the old item and in its group, nor in neither. Idempotent; safe while
 * requests are written (they write groups only). Answers how many items it folded.
 */
export async function foldLegacyRequestCounters(doc: DynamoDBDocumentClient, tableName: string, dataspace: string, usernames: ReadonlySet<string> = new Set()): Promise<number> {
  const perShard = await Promise.all(Array.from({ length: COUNTER_SHARDS }, (_, shard) => foldShard(doc, tableName, dataspace, shard, usernames)));
  // Every item of the earlier layout is folded: counts need read only the groups from now on.
  await markDataspace(doc, tableName, dataspace, REQUEST_COUNTERS_GROUPED);
  return perShard.reduce((sum, n) => sum + n, 0);
}

/** Folds one shard's items of the earlier layout, one after another (the shards run at once). */
async function foldShard(doc: DynamoDBDocumentClient, tableName: string, dataspace: string, shard: number, usernames: ReadonlySet<string>): Promise<number> {
  let folded = 0;
  const items = await queryAll(doc, { ...partitionQueryInput(tableName, keys.legacyRequestCounts(dataspace, shard)), ConsistentRead: true });
  for (const item of items) {
    const key = { PK: item.PK, SK: item.SK };
    if (await retryOnConflict(() => foldOne(doc, tableName, dataspace, shard, key, usernames), (e) => isTransactionConflict(e) || isConditionFailure(e), { budgetMs: 30_000 })) folded++;
  }
  return folded;
}

/** Folds one old counter item as read now; false when it is gone. A condition failure (it changed since read) is a race: read it again. */
async function foldOne(doc: DynamoDBDocumentClient, tableName: string, dataspace: string, shard: number, key: Item, usernames: ReadonlySet<string>): Promise<boolean> {
  const item = (await doc.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }))).Item;
  if (!item) return false;
  const total = Number(item.total ?? 0);
  const publicCount = Number(item.public ?? 0);
  const unchanged = (name: string) => (item[name] === undefined ? `attribute_not_exists(#${name})` : `#${name} = :${name}`);
  const remove: LabelledItem = {
    label: 'legacy',
    item: {
      Delete: {
        TableName: tableName,
        Key: key,
        // Unchanged since read: a write by the code before grouping, still running during a deployment,
        // makes the fold read the item again.
        ConditionExpression: `${unchanged('total')} AND ${unchanged('public')}`,
        ExpressionAttributeNames: { '#total': 'total', '#public': 'public' },
        ...(item.total !== undefined || item.public !== undefined
          ? { ExpressionAttributeValues: { ...(item.total !== undefined ? { ':total': item.total } : {}), ...(item.public !== undefined ? { ':public': item.public } : {}) } }
          : {}),
      },
    },
  };
  const add = requestCounterUpdates(tableName, dataspace, new Map([[counterKeyFromLegacy(String(item.SK), usernames), { total, public: publicCount }]]), shard);
  await transact(doc, [remove, ...add]);
  return true;
}
