/**
 * Small helpers over the DynamoDB document client that every store uses: paginated queries,
 * batch gets that finish their unprocessed keys, transactions of labelled items, and retries of
 * optimistic-concurrency conflicts.
 */
import {
  BatchGetCommand,
  BatchWriteCommand,
  QueryCommand,
  TransactWriteCommand,
  type DynamoDBDocumentClient,
  type QueryCommandInput,
  type TransactWriteCommandInput,
  type TransactWriteCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException, TransactionCanceledException, TransactionInProgressException, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue as StreamAttributeValue } from 'aws-lambda';
import { setTimeout as sleep } from 'node:timers/promises';
import { ServiceUnavailableError } from '../domain/errors.ts';
import { transactionRequestTimeoutMs } from '../aws/clients.ts';
import { TABLE, type GsiName } from '../table.ts';

export type Item = Record<string, unknown>;

/** An item's image in a record of the table's stream (DynamoDB JSON, as Lambda receives it). */
export type StreamImage = Readonly<Record<string, StreamAttributeValue>>;

/** A stream image as the document client reads items. */
export function itemOfImage(image: StreamImage): Item {
  return unmarshall(image as Record<string, AttributeValue>);
}

/**
 * A stream image as the document client reads items, when it is an image of an item of `entity`
 * (every item stores its entity type); undefined for an image of anything else, or none.
 */
export function imageItem(image: StreamImage | undefined, entity: string): Item | undefined {
  return image?.entity?.S === entity ? itemOfImage(image) : undefined;
}

/** A partition of the table or of an index, optionally narrowed to a sort-key prefix. */
export type PartitionQuery =
  | { readonly PK: string; readonly skPrefix?: string }
  | { readonly index: GsiName; readonly indexPK: string; readonly skPrefix?: string };

export function partitionQueryInput(tableName: string, query: PartitionQuery): QueryCommandInput {
  const [pkName, skName, pkValue] = 'index' in query ? [...indexKeys(query.index), query.indexPK] : ['PK', 'SK', query.PK];
  return {
    TableName: tableName,
    ...('index' in query ? { IndexName: query.index } : {}),
    KeyConditionExpression: query.skPrefix ? '#pk = :pk AND begins_with(#sk, :prefix)' : '#pk = :pk',
    ExpressionAttributeNames: query.skPrefix ? { '#pk': pkName, '#sk': skName } : { '#pk': pkName },
    ExpressionAttributeValues: query.skPrefix ? { ':pk': pkValue, ':prefix': query.skPrefix } : { ':pk': pkValue },
  };
}

/** The partition and sort key attributes of an index. */
export function indexKeys(index: GsiName): [string, string] {
  const definition = TABLE.globalSecondaryIndexes.find((gsi) => gsi.indexName === index)!;
  return [definition.partitionKey, definition.sortKey];
}

/** Every item of a query, page after page. */
export async function queryAll(doc: DynamoDBDocumentClient, input: QueryCommandInput): Promise<Item[]> {
  const items: Item[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(new QueryCommand({ ...input, ExclusiveStartKey: startKey }));
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/**
 * A check the service finishes in memory on what a filtered Query returns: the items it keeps, and
 * the attributes it reads (what a count needs to project). Search uses it for items whose copy of
 * their search fields predates the current fields (shared/store/search-filter.ts).
 */
export interface Recheck {
  readonly keep: (item: Item) => boolean;
  readonly attributes: readonly string[];
}

/**
 * Items of a query after skipping `offset` matches, at most `limit` of them: page-number pagination.
 * With a recheck, a match is an item DynamoDB's filter returned and the recheck keeps.
 */
export async function queryOffset(
  doc: DynamoDBDocumentClient,
  input: QueryCommandInput,
  offset: number,
  limit: number,
  recheck?: Recheck,
): Promise<Item[]> {
  const items: Item[] = [];
  let skipped = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const skipping = skipped < offset;
    const wanted = skipping ? offset - skipped : limit - items.length;
    const page = await doc.send(
      new QueryCommand({
        ...input,
        // With a filter (in DynamoDB or in memory), Limit counts items read, not matches: read ahead rather than trickle.
        Limit: input.FilterExpression || recheck ? Math.max(wanted * 3, 60) : wanted,
        ExclusiveStartKey: startKey,
        // While skipping, only the keys travel (a filter still needs its attributes).
        ...(skipping && !input.FilterExpression && !recheck ? { ProjectionExpression: keyProjection(input.IndexName) } : {}),
      }),
    );
    const got = recheck ? (page.Items ?? []).filter(recheck.keep) : (page.Items ?? []);
    if (skipping) {
      // A page ends exactly at `wanted` matches, or earlier (end of partition, or a filter).
      const used = Math.min(got.length, offset - skipped);
      skipped += used;
      if (used < got.length) items.push(...got.slice(used, used + limit));
    } else {
      items.push(...got.slice(0, limit - items.length));
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey && items.length < limit);
  return items;
}

function keyProjection(indexName: string | undefined): string {
  return ['PK', 'SK', ...(indexName ? indexKeys(indexName as GsiName) : [])].join(', ');
}

/**
 * Counts a query's matches without transferring the items; with a recheck, the matches it keeps,
 * transferring only the attributes it reads.
 */
export async function queryCount(doc: DynamoDBDocumentClient, input: QueryCommandInput, recheck?: Recheck): Promise<number> {
  const projection = recheck && projectionOf(input, recheck.attributes);
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new QueryCommand({ ...input, ...(projection ?? { Select: 'COUNT' }), ExclusiveStartKey: startKey }),
    );
    count += recheck ? (page.Items ?? []).filter(recheck.keep).length : (page.Count ?? 0);
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return count;
}

/** A ProjectionExpression of `attributes` (and the names it needs) for a query. */
function projectionOf(input: QueryCommandInput, attributes: readonly string[]): Pick<QueryCommandInput, 'ProjectionExpression' | 'ExpressionAttributeNames'> {
  const names = Object.fromEntries(attributes.map((attribute, i) => [`#projected${i}`, attribute]));
  return {
    ProjectionExpression: Object.keys(names).join(', '),
    ExpressionAttributeNames: { ...input.ExpressionAttributeNames, ...names },
  };
}

/** Chunks of 100 keys read at once by batchGet. */
const BATCH_GET_CONCURRENCY = 4;

/**
 * BatchGetItem of any number of keys (100 per call, a few calls at once), retrying unprocessed keys;
 * order not kept. A key given twice is read once (DynamoDB refuses a batch that repeats a key).
 */
export async function batchGet(
  doc: DynamoDBDocumentClient,
  tableName: string,
  keys: readonly Record<string, unknown>[],
  consistentRead = false,
): Promise<Item[]> {
  const unique = [...new Map(keys.map((key) => [`${String(key.PK)}\u0000${String(key.SK)}`, key])).values()];
  const chunks: Record<string, unknown>[][] = [];
  for (let i = 0; i < unique.length; i += 100) chunks.push(unique.slice(i, i + 100) as Record<string, unknown>[]);
  const items: Item[] = [];
  const worker = async () => {
    for (let chunk = chunks.shift(); chunk; chunk = chunks.shift()) {
      let pending: Record<string, unknown>[] | undefined = chunk;
      for (let attempt = 0; pending && pending.length > 0; attempt++) {
        if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt) * Math.random());
        const result = await doc.send(
          new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending, ConsistentRead: consistentRead } } }),
        );
        items.push(...(result.Responses?.[tableName] ?? []));
        pending = result.UnprocessedKeys?.[tableName]?.Keys as Record<string, unknown>[] | undefined;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(BATCH_GET_CONCURRENCY, chunks.length) }, worker));
  return items;
}

/** A put or a delete of BatchWriteItem. */
export type WriteRequest = { readonly PutRequest: { readonly Item: Item } } | { readonly DeleteRequest: { readonly Key: Record<string, unknown> } };

/**
 * BatchWriteItem of any number of puts and deletes (25 per call, a few calls at once), retrying
 * unprocessed ones; no order kept between calls, so the caller writes what must come first in a call
 * of its own. A key given twice keeps its last request (DynamoDB refuses a batch that repeats a key).
 */
export async function batchWriteAll(doc: DynamoDBDocumentClient, tableName: string, requests: readonly WriteRequest[]): Promise<void> {
  const keyOf = (request: WriteRequest) => {
    const key = 'PutRequest' in request ? request.PutRequest.Item : request.DeleteRequest.Key;
    return `${String(key.PK)}\u0000${String(key.SK)}`;
  };
  const unique = [...new Map(requests.map((request) => [keyOf(request), request])).values()];
  const chunks: WriteRequest[][] = [];
  for (let i = 0; i < unique.length; i += 25) chunks.push(unique.slice(i, i + 25));
  const worker = async () => {
    for (let chunk = chunks.shift(); chunk; chunk = chunks.shift()) {
      let pending: WriteRequest[] = chunk;
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt) * Math.random());
        const result = await doc.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending as WriteRequest[] as never } }));
        pending = (result.UnprocessedItems?.[tableName] ?? []) as WriteRequest[];
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(BATCH_GET_CONCURRENCY, chunks.length) }, worker));
}

/**
 * The condition of a put that replaces `before` (its revision still the one read) or, without it,
 * creates (nothing there yet): optimistic concurrency on the `rev` attribute.
 */
export function revisionCondition(before: { readonly rev: number } | undefined) {
  return before
    ? { ConditionExpression: '#rev = :rev', ExpressionAttributeNames: { '#rev': 'rev' }, ExpressionAttributeValues: { ':rev': before.rev } }
    : { ConditionExpression: 'attribute_not_exists(PK)' };
}

/** True when a write failed on its condition (alone or inside a transaction). */
export function isConditionFailure(error: unknown): boolean {
  if (error instanceof ConditionalCheckFailedException) return true;
  return (
    error instanceof TransactionCanceledException &&
    (error.CancellationReasons ?? []).some((reason) => reason.Code === 'ConditionalCheckFailed')
  );
}

/**
 * True when a transaction lost a race with another one on the same items, or was cancelled because
 * DynamoDB throttled one of its items: both are worth another try, and the SDK retries neither.
 */
export function isTransactionConflict(error: unknown): boolean {
  return (
    (error instanceof TransactionCanceledException &&
      (error.CancellationReasons ?? []).some((reason) => reason.Code === 'TransactionConflict' || reason.Code === 'ThrottlingError')) ||
    // The SDK resent a transaction (same token) whose first send DynamoDB is still applying: try again,
    // and the write finds what the first send did.
    error instanceof TransactionInProgressException
  );
}

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * An item of a transaction with what it stands for (`product`, `name`, `grant`...). A cancelled
 * transaction's reasons come in item order; read by label (failedLabels, cancelledBecause), they keep
 * their meaning when items are added, removed or reordered. Several items may share a label.
 */
export interface LabelledItem {
  readonly label: string;
  readonly item: TransactItem;
}

/** The items, each labelled `label`. */
export function labelled(label: string, items: readonly TransactItem[]): LabelledItem[] {
  return items.map((item) => ({ label, item }));
}

/** The labels of the items of each transaction `transact` saw cancelled, by its error. */
const cancelledLabels = new WeakMap<object, readonly string[]>();

/**
 * Writes the items as one transaction (TransactWriteItems), in the order given. When DynamoDB cancels
 * it, the TransactionCanceledException is thrown as it came, and failedLabels can read it by label.
 */
export async function transact(
  doc: DynamoDBDocumentClient,
  items: readonly LabelledItem[],
  options: Omit<TransactWriteCommandInput, 'TransactItems'> = {},
): Promise<TransactWriteCommandOutput> {
  try {
    return await doc.send(new TransactWriteCommand({ ...options, TransactItems: items.map(({ item }) => item) }), {
      requestTimeout: transactionRequestTimeoutMs(items.length),
    });
  } catch (error) {
    if (error instanceof TransactionCanceledException) cancelledLabels.set(error, items.map(({ label }) => label));
    throw error;
  }
}

/**
 * The labels of the items whose cancellation reason is `code` (by default, a failed condition) in a
 * transaction `transact` wrote; empty for any other error.
 */
export function failedLabels(error: unknown, code = 'ConditionalCheckFailed'): ReadonlySet<string> {
  const labels = error instanceof TransactionCanceledException ? cancelledLabels.get(error) : undefined;
  if (!labels) return new Set();
  const reasons = (error as TransactionCanceledException).CancellationReasons ?? [];
  return new Set(labels.filter((_, i) => reasons[i]?.Code === code));
}

/** True when the transaction was cancelled because an item labelled `label` failed its condition. */
export function cancelledBecause(error: unknown, label: string): boolean {
  return failedLabels(error).has(label);
}

/**
 * How long a write keeps retrying lost races. An API function has 10 s; the last try starts before
 * 6 s have passed, which leaves it room for a few DynamoDB calls (2.5 s timeout each) and the answer.
 * The backoff is "full jitter" (a random wait between 0 and an exponentially growing, capped bound):
 * many writers of one item spread out instead of colliding again in step, and with one winner per
 * round, 50 writers need about 50 rounds: the time budget, not a count of tries, ends the retries.
 */
export interface ConflictRetryPolicy {
  /** No new try starts after this many milliseconds from the first. */
  readonly budgetMs: number;
  /** The bound of the first wait; it doubles at each lost race, up to `capMs`. */
  readonly baseMs: number;
  readonly capMs: number;
  /** At most this many tries (a test, or a consumer whose own retry is cheaper). */
  readonly maxTries?: number;
  /**
   * The object written (e.g. `request#<uuid>`): tries of writes of one object made by this process
   * run one at a time, so writers served by one process (the local gateway, a container that serves
   * requests concurrently) queue instead of losing races to each other; other processes' writes are
   * still caught by the revision condition and retried. The wait counts against the budget.
   */
  readonly key?: string;
}

export const CONFLICT_RETRY: ConflictRetryPolicy = { budgetMs: 6_000, baseMs: 10, capMs: 250 };

/**
 * Runs a read-modify-write `attempt` again when it lost an optimistic-concurrency race (its condition
 * on the revision it read failed, or its transaction conflicted), with jittered backoff, within the
 * policy's time budget. A write that loses every try is contention, not a bug: ServiceUnavailableError
 * (503, Retry-After), the lost race as its cause. Nothing was written by any try.
 */
export async function retryOnConflict<T>(
  attempt: () => Promise<T>,
  isRace: (error: unknown) => boolean,
  policy: Partial<ConflictRetryPolicy> = {},
): Promise<T> {
  const { budgetMs, baseMs, capMs, maxTries, key } = { ...CONFLICT_RETRY, ...policy };
  const deadline = Date.now() + budgetMs;
  for (let i = 1; ; i++) {
    try {
      return await (key === undefined ? attempt() : oneAtATime(key, attempt, deadline));
    } catch (error) {
      if (!isRace(error)) throw error;
      const wait = Math.random() * Math.min(capMs, baseMs * 2 ** i);
      if ((maxTries !== undefined && i >= maxTries) || Date.now() + wait >= deadline) {
        throw new ServiceUnavailableError(1, { cause: error });
      }
      await sleep(wait);
    }
  }
}

/** The last queued write of each object this process is writing (see ConflictRetryPolicy.key). */
const writing = new Map<string, Promise<void>>();

/**
 * Runs `run` once the writes of `key` queued before it are done. A write still waiting at `deadline`
 * gives up, busy (503), before it writes anything: better than being cut off by the function's timeout
 * after the client was told it failed, and writing anyway.
 */
async function oneAtATime<T>(key: string, run: () => Promise<T>, deadline: number): Promise<T> {
  const previous = writing.get(key);
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  const tail = previous ? previous.then(() => done) : done;
  writing.set(key, tail);
  try {
    if (previous) {
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<'expired'>((resolve) => (timer = setTimeout(() => resolve('expired'), Math.max(0, deadline - Date.now()))));
      const turn = await Promise.race([previous.then(() => 'turn' as const), expired]).finally(() => clearTimeout(timer));
      if (turn === 'expired') throw new ServiceUnavailableError(1);
    }
    return await run();
  } finally {
    release();
    if (writing.get(key) === tail) writing.delete(key);
  }
}
