/**
 * The request list's counters, grouped (counters.ts GroupedCounterSpace, grouped by counterGroup of
 * shared/domain/request.ts): per shard, one item for the dataspace's few-valued counters and one per
 * user. Each counter stores `total` and `private` (how many of those requests are private): a public
 * request moves `total` alone, so the dataspace's item keeps one attribute per counter. A count's
 * `public` part is `total - private`.
 *
 * Before grouping, each counter was an item of its own (keys.requestCount); foldLegacyRequestCounters
 * moves those into the groups (the admin CLI's `migrate`, run by `npm start` at every start).
 */
import { GetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { counterGroup, counterKeyFromLegacy } from '../domain/request.ts';
import { keys } from '../keys.ts';
import { COUNTER_SHARDS, groupedCounterSeedItems, groupedCounterUpdates, readGroupedCounters, type CounterDeltas, type GroupedCounterSpace } from './counters.ts';
import { isConditionFailure, isTransactionConflict, retryOnConflict, transact, type Item, type LabelledItem } from './dynamo.ts';

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

export async function readRequestCounter(doc: DynamoDBDocumentClient, tableName: string, dataspace: string, counter: string): Promise<{ total: number; public: number }> {
  const value = (await readGroupedCounters(doc, tableName, requestCounterSpace(dataspace), [counter], ['total', 'private'])).get(counter)!;
  return { total: value.total, public: value.total - value.private };
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
export async function foldLegacyRequestCounters(doc: DynamoDBDocumentClient, tableName: string, dataspace: string): Promise<number> {
  let folded = 0;
  for (let shard = 0; shard < COUNTER_SHARDS; shard++) {
    const partition = keys.legacyRequestCounts(dataspace, shard);
    let start: Record<string, unknown> | undefined;
    do {
      const page = await doc.send(
        new QueryCommand({ TableName: tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': partition.PK }, ConsistentRead: true, ExclusiveStartKey: start }),
      );
      for (const item of page.Items ?? []) {
        const key = { PK: item.PK, SK: item.SK };
        if (await retryOnConflict(() => foldOne(doc, tableName, dataspace, shard, key), (e) => isTransactionConflict(e) || isConditionFailure(e), { budgetMs: 30_000 })) folded++;
      }
      start = page.LastEvaluatedKey;
    } while (start);
  }
  return folded;
}

/** Folds one old counter item as read now; false when it is gone. A condition failure (it changed since read) is a race: read it again. */
async function foldOne(doc: DynamoDBDocumentClient, tableName: string, dataspace: string, shard: number, key: Item): Promise<boolean> {
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
  const add = requestCounterUpdates(tableName, dataspace, new Map([[counterKeyFromLegacy(String(item.SK)), { total, public: publicCount }]]), shard);
  await transact(doc, [remove, ...add]);
  return true;
}
