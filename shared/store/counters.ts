/**
 * Exact list counts kept in counter items, sharded. A write that moves counters adds its deltas, in its
 * own transaction, to one shard picked at random, so concurrent writers of one dataspace rarely write the
 * same item (DynamoDB cancels a transaction that meets another on an item: TransactionConflict). A count
 * reads every shard of its counters, strongly consistent, in one BatchGetItem, and adds them up: exact,
 * read-your-writes, and a cost that does not grow with the collection.
 *
 * Shard 0 is the unsuffixed key (shared/keys.ts), so a counter written before sharding keeps counting.
 */
import { createHash } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys, type CountedCollection, type EntityType, type Key } from '../keys.ts';
import { batchGet, type Item, type LabelledItem } from './dynamo.ts';

/**
 * Shards per counter: concurrent writers of one dataspace meet on a counter only when they pick the
 * same shard at the same moment, and a lost race is retried on a new random shard. A count reads this
 * many items per counter (BatchGetItem takes 100 keys: six counters in one call).
 */
export const COUNTER_SHARDS = 16;

/** Where a collection's counters live: a key per counter and shard, and the entity their items carry. */
export interface CounterSpace {
  readonly key: (counter: string, shard: number) => Key;
  readonly entity: EntityType;
}

export function listCounterSpace(dataspace: string, collection: CountedCollection): CounterSpace {
  return { key: (counter, shard) => keys.listCount(dataspace, collection, counter, shard), entity: 'ListCount' };
}

/** Per counter, the amount each of its attributes moves (`total`; requests also `public`). */
export type CounterDeltas = ReadonlyMap<string, Readonly<Record<string, number>>>;

/** Values longer than this are named by their SHA-256 in a counter's key (a sort key holds 1,024 bytes). */
const LONGEST_NAMED_VALUE = 256;

/** The counter of a list's equality filter on `field` = `value` (`name=zlib`). */
export function filterCounter(field: string, value: string): string {
  return Buffer.byteLength(value) <= LONGEST_NAMED_VALUE ? `${field}=${value}` : `${field}#sha256=${createHash('sha256').update(value).digest('hex')}`;
}

export const randomShard = (): number => Math.floor(Math.random() * COUNTER_SHARDS);

/** The transaction items, labelled 'counter', that add `deltas` to one shard. */
export function counterUpdates(tableName: string, space: CounterSpace, deltas: CounterDeltas, shard = randomShard()): LabelledItem[] {
  return [...deltas].map(([counter, delta]) => {
    const attributes = Object.keys(delta);
    return {
      label: 'counter',
      item: {
        Update: {
          TableName: tableName,
          Key: space.key(counter, shard),
          UpdateExpression: `SET entity = :entity ADD ${attributes.map((_, i) => `#a${i} :a${i}`).join(', ')}`,
          ExpressionAttributeNames: Object.fromEntries(attributes.map((name, i) => [`#a${i}`, name])),
          ExpressionAttributeValues: { ':entity': space.entity, ...Object.fromEntries(attributes.map((name, i) => [`:a${i}`, delta[name]])) },
        },
      },
    };
  });
}

/**
 * Counters kept as attributes of a few items per shard rather than an item each: a write that moves
 * several counters of one group updates one item, and a transaction pays per item (2 write units per
 * KB). Counter `c`'s attribute `a` is stored as the attribute `a|c` of its group's item. A group holds
 * only counters whose number stays small, so that its item stays near 1 KB.
 */
export interface GroupedCounterSpace {
  readonly key: (group: string, shard: number) => Key;
  readonly groupOf: (counter: string) => string;
  readonly entity: EntityType;
}

/** The attribute of a group's item that holds counter `counter`'s `attribute`. */
export const groupedAttribute = (attribute: string, counter: string): string => `${attribute}|${counter}`;

/** The transaction items, labelled 'counter', that add `deltas` to one shard: one Update per group; attributes that do not move are left out. */
export function groupedCounterUpdates(tableName: string, space: GroupedCounterSpace, deltas: CounterDeltas, shard = randomShard()): LabelledItem[] {
  const byGroup = new Map<string, [string, number][]>();
  for (const [counter, delta] of deltas) {
    for (const [attribute, value] of Object.entries(delta)) {
      if (value === 0) continue;
      const group = space.groupOf(counter);
      byGroup.set(group, [...(byGroup.get(group) ?? []), [groupedAttribute(attribute, counter), value]]);
    }
  }
  return [...byGroup].map(([group, moves]) => ({
    label: 'counter',
    item: {
      Update: {
        TableName: tableName,
        Key: space.key(group, shard),
        UpdateExpression: `SET entity = :entity ADD ${moves.map((_, i) => `#a${i} :a${i}`).join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries(moves.map(([name], i) => [`#a${i}`, name])),
        ExpressionAttributeValues: { ':entity': space.entity, ...Object.fromEntries(moves.map(([, value], i) => [`:a${i}`, value])) },
      },
    },
  }));
}

/** Group items holding `totals` (in shard 0), for bulk loads (benchmark seeding). */
export function groupedCounterSeedItems(space: GroupedCounterSpace, totals: CounterDeltas): Item[] {
  const byGroup = new Map<string, Item>();
  for (const [counter, values] of totals) {
    const group = space.groupOf(counter);
    const item = byGroup.get(group) ?? { ...space.key(group, 0), entity: space.entity };
    for (const [attribute, value] of Object.entries(values)) if (value !== 0) item[groupedAttribute(attribute, counter)] = value;
    byGroup.set(group, item);
  }
  return [...byGroup.values()];
}

/** The value of each counter's `attributes`: every shard read strongly consistent, summed; absent is 0. */
export async function readCounters<A extends string>(
  doc: DynamoDBDocumentClient,
  tableName: string,
  space: CounterSpace,
  counters: readonly string[],
  attributes: readonly A[],
): Promise<Map<string, Record<A, number>>> {
  const shardKeys = counters.flatMap((counter) => Array.from({ length: COUNTER_SHARDS }, (_, shard) => space.key(counter, shard)));
  const items = await batchGet(doc, tableName, shardKeys, true);
  const zero = () => Object.fromEntries(attributes.map((a) => [a, 0])) as Record<A, number>;
  const totals = new Map(counters.map((counter) => [counter, zero()]));
  for (const item of items) {
    const sum = totals.get(String(item.SK));
    if (!sum) continue;
    for (const a of attributes) sum[a] += Number(item[a] ?? 0);
  }
  return totals;
}

/** Counter items holding `totals` (in shard 0), for bulk loads (benchmark seeding). */
export function counterSeedItems(space: CounterSpace, totals: CounterDeltas): Item[] {
  return [...totals].map(([counter, values]) => ({ ...space.key(counter, 0), entity: space.entity, ...values }));
}

/**
 * What a write changes in each counter, from the counters the object adds to before and after it
 * (create: no `before`; delete: no `after`). Counters that do not move are left out.
 */
export function counterChanges<T>(
  countersOf: (object: T) => ReadonlyMap<string, Readonly<Record<string, number>>>,
  before: T | undefined,
  after: T | undefined,
): Map<string, Record<string, number>> {
  const deltas = new Map<string, Record<string, number>>();
  const add = (object: T, sign: 1 | -1) => {
    for (const [counter, values] of countersOf(object)) {
      const delta = deltas.get(counter) ?? {};
      for (const [attribute, value] of Object.entries(values)) delta[attribute] = (delta[attribute] ?? 0) + sign * value;
      deltas.set(counter, delta);
    }
  };
  if (before) add(before, -1);
  if (after) add(after, 1);
  for (const [counter, delta] of deltas) if (Object.values(delta).every((v) => v === 0)) deltas.delete(counter);
  return deltas;
}

/** Totals of many objects' counters (a bulk load's). */
export function counterTotals<T>(countersOf: (object: T) => ReadonlyMap<string, Readonly<Record<string, number>>>, objects: Iterable<T>): Map<string, Record<string, number>> {
  const totals = new Map<string, Record<string, number>>();
  for (const object of objects) {
    for (const [counter, values] of countersOf(object)) {
      const sum = totals.get(counter) ?? {};
      for (const [attribute, value] of Object.entries(values)) sum[attribute] = (sum[attribute] ?? 0) + value;
      totals.set(counter, sum);
    }
  }
  return totals;
}

/**
 * The product package list's counters one product package adds to: the dataspace's, and its product's
 * (the `product` filter). Here rather than in the product package store because deleting a product
 * (product-store.ts) counts down the product packages it deletes.
 */
export function productPackageCounters(productUuid: string): Map<string, { total: number }> {
  return new Map([
    ['all', { total: 1 }],
    [filterCounter('product', productUuid), { total: 1 }],
  ]);
}

/** Whether an item (or an object read from one) was counted in its list's counters when written. */
export function isListCounted(stored: object | undefined): boolean {
  return (stored as { listCounted?: unknown } | undefined)?.listCounted === true;
}
