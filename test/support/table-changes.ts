/**
 * "Changed nothing", read from the table's own stream instead of a Scan of the whole table: every
 * write DynamoDB applies (a put, an update or a delete that changes an item) adds a record to the
 * stream, and nothing else does. A watch starts at the stream's end and answers the records written
 * since its last look, in a few calls whatever the table's size (a Scan reads every item, every time).
 * Time-to-live deletions (DynamoDB's own, not a request's) are left out, and so is the authentication's
 * bookkeeping: an update of an API key that changes nothing but its `lastUsedAt` (and drops its `actor`) (any request of the key,
 * a refused one too, may set it, at most once a minute: shared/store/api-key-store.ts).
 */
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';

export interface TableChange {
  readonly event: string;
  /** "PK | SK" of the item written. */
  readonly key: string;
  readonly before?: unknown;
  readonly after?: unknown;
}

export interface TableWatch {
  /** The writes since the watch began or since the last call, in stream order. */
  changes(): Promise<TableChange[]>;
  stop(): void;
}

/**
 * True for a record of an API key's `lastUsedAt` written, and nothing else of the key changed (but its
 * `actor`: a write outside an API request's handler removes it, shared/observability/write-stamps.ts).
 */
const isLastUseOnly = (record: StreamRecord): boolean => {
  const { OldImage: before, NewImage: after } = record.dynamodb ?? {};
  if (record.eventName !== 'MODIFY' || before?.entity?.S !== 'ApiKey' || !after) return false;
  const rest = (image: NonNullable<typeof before>) => JSON.stringify(Object.entries(image).filter(([name]) => name !== 'lastUsedAt' && name !== 'actor').sort(([a], [b]) => a.localeCompare(b)));
  return rest(before) === rest(after);
};

const describeChange = (record: StreamRecord): TableChange => {
  const keys = record.dynamodb?.Keys ?? {};
  return {
    event: record.eventName ?? 'UNKNOWN',
    key: `${keys.PK?.S ?? '?'} | ${keys.SK?.S ?? '?'}`,
    ...(record.dynamodb?.OldImage ? { before: record.dynamodb.OldImage } : {}),
    ...(record.dynamodb?.NewImage ? { after: record.dynamodb.NewImage } : {}),
  };
};

export async function watchTable(env: { client: DynamoDBClient; tableName: string }): Promise<TableWatch> {
  const config = env.client.config;
  const streams = new DynamoDBStreamsClient({ region: await config.region(), endpoint: await config.endpoint!(), credentials: await config.credentials() });
  const table = await env.client.send(new DescribeTableCommand({ TableName: env.tableName }));
  const streamArn = table.Table?.LatestStreamArn;
  if (!streamArn) throw new Error(`Table ${env.tableName} has no stream to watch`);
  /** The next read position of every shard known, or null once a shard is closed and read to its end. */
  const iterators = new Map<string, string | null>();

  const shards = async () => {
    const found = [];
    let start: string | undefined;
    do {
      const page = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: start }));
      found.push(...(page.StreamDescription?.Shards ?? []));
      start = page.StreamDescription?.LastEvaluatedShardId;
    } while (start);
    return found;
  };
  const open = async (shardId: string, position: 'LATEST' | 'TRIM_HORIZON') =>
    (await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: position }))).ShardIterator ?? null;

  // Every shard there is now starts at its end; a shard that appears later was made after the watch began.
  for (const shard of await shards()) iterators.set(shard.ShardId!, await open(shard.ShardId!, 'LATEST'));

  return {
    async changes() {
      for (const shard of await shards()) if (!iterators.has(shard.ShardId!)) iterators.set(shard.ShardId!, await open(shard.ShardId!, 'TRIM_HORIZON'));
      const changes: TableChange[] = [];
      for (const [shardId, start] of iterators) {
        let iterator = start;
        while (iterator) {
          const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
          const records = page.Records ?? [];
          changes.push(...records.filter((record) => record.userIdentity?.Type !== 'Service' && !isLastUseOnly(record)).map(describeChange));
          iterator = page.NextShardIterator ?? null;
          if (records.length === 0) break;
        }
        iterators.set(shardId, iterator);
      }
      return changes;
    },
    stop: () => streams.destroy(),
  };
}
