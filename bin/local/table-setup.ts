/**
 * The one way the service's table is set up outside CDK (npm start, the admin CLI on a local endpoint,
 * every test file): ensureTable creates the table from shared/table.ts, or brings an existing one up
 * to date (missing indexes are added, the stream and TTL switched on), so a DATA_DIR from an older
 * version keeps working.
 *
 * "The table exists" is never an error: a CreateTable that DynamoDB applied but whose answer was lost
 * (the SDK then sends it again), or a second set-up creating the same table at the same time, both end
 * in waiting until the table and its indexes are ACTIVE. Every call goes through the control-plane
 * client of shared/aws/clients.ts (long timeouts), never the API's data-plane client.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  ResourceInUseException,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type DynamoDBClient,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import { setTimeout as sleep } from 'node:timers/promises';
import { TABLE, keyAttributes, projectionOf, type IndexDefinition } from '../../shared/table.ts';
import { createDynamoControlClient, type DynamoEndpoint } from '../../shared/aws/clients.ts';

export interface EnsureTableOptions {
  /** How long the table may take to become ACTIVE (default 120 s: generous, a loaded machine is slow). */
  readonly activeWithinMs?: number;
  /**
   * Whether the table has its stream (default true: the pipeline reads it). False only for a table no
   * stream consumer reads, such as a benchmark's seeded data: DynamoDB Local then keeps no stream records.
   */
  readonly stream?: boolean;
}

/** Creates or updates `tableName` at `target` and resolves once it is ACTIVE with every index, the stream and TTL. */
export async function ensureTable(target: DynamoEndpoint, tableName: string, options: EnsureTableOptions = {}): Promise<TableDescription> {
  const client = createDynamoControlClient(target);
  try {
    return await ensureTableWith(client, tableName, Date.now() + (options.activeWithinMs ?? 120_000), options.stream ?? true);
  } finally {
    client.destroy();
  }
}

async function ensureTableWith(client: DynamoDBClient, tableName: string, deadline: number, stream: boolean): Promise<TableDescription> {
  if (!(await describe(client, tableName))) {
    await alreadyDoneIsFine(() =>
      client.send(
        new CreateTableCommand({
          TableName: tableName,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: keyAttributes().map((name) => ({ AttributeName: name, AttributeType: 'S' })),
          KeySchema: [
            { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
            { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
          ],
          GlobalSecondaryIndexes: TABLE.globalSecondaryIndexes.map(indexDefinition),
          ...(stream ? { StreamSpecification: { StreamEnabled: true, StreamViewType: TABLE.streamViewType } } : {}),
        }),
      ),
    );
  }
  let table = await waitActive(client, tableName, deadline);

  // Bring an older table up to date, one index at a time (DynamoDB takes one index change per call).
  for (;;) {
    const present = new Set((table.GlobalSecondaryIndexes ?? []).map((gsi) => gsi.IndexName));
    const missing = TABLE.globalSecondaryIndexes.find((index) => !present.has(index.indexName));
    if (!missing) break;
    await alreadyDoneIsFine(() =>
      client.send(
        new UpdateTableCommand({
          TableName: tableName,
          AttributeDefinitions: [missing.partitionKey, missing.sortKey].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
          GlobalSecondaryIndexUpdates: [{ Create: indexDefinition(missing) }],
        }),
      ),
    );
    table = await waitActive(client, tableName, deadline, missing.indexName);
  }
  if (stream && !table.StreamSpecification?.StreamEnabled) {
    await alreadyDoneIsFine(() =>
      client.send(
        new UpdateTableCommand({
          TableName: tableName,
          StreamSpecification: { StreamEnabled: true, StreamViewType: TABLE.streamViewType },
        }),
      ),
    );
    table = await waitActive(client, tableName, deadline);
  }
  const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
  const ttlStatus = ttl.TimeToLiveDescription?.TimeToLiveStatus;
  if (ttlStatus !== 'ENABLED' && ttlStatus !== 'ENABLING') {
    await alreadyDoneIsFine(() =>
      client.send(
        new UpdateTimeToLiveCommand({
          TableName: tableName,
          TimeToLiveSpecification: { AttributeName: TABLE.ttlAttribute, Enabled: true },
        }),
      ),
    );
  }
  return table;
}

/**
 * Runs a create or update whose effect may already be there: made by an earlier attempt whose answer
 * was lost, or by another set-up of the same table. Those answers are not errors (the caller waits for
 * ACTIVE next); any other error is.
 */
async function alreadyDoneIsFine(send: () => Promise<unknown>): Promise<void> {
  try {
    await send();
  } catch (error) {
    if (error instanceof ResourceInUseException) return;
    const message = error instanceof Error ? error.message : '';
    if (error instanceof Error && error.name === 'ValidationException' && /already (exists|enabled)/i.test(message)) return;
    throw error;
  }
}

function indexDefinition(gsi: IndexDefinition) {
  return {
    IndexName: gsi.indexName,
    KeySchema: [
      { AttributeName: gsi.partitionKey, KeyType: 'HASH' as const },
      { AttributeName: gsi.sortKey, KeyType: 'RANGE' as const },
    ],
    Projection: projectionOf(gsi),
  };
}

async function describe(client: DynamoDBClient, tableName: string): Promise<TableDescription | undefined> {
  try {
    return (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return undefined;
    throw error;
  }
}

/**
 * Polls until the table and every index on it (and `index`, when named) are ACTIVE. A table just
 * created may still be unknown to DescribeTable for a moment (on AWS): that is waited out too.
 */
async function waitActive(client: DynamoDBClient, tableName: string, deadline: number, index?: string): Promise<TableDescription> {
  for (let pause = 50; ; pause = Math.min(pause * 2, 1_000)) {
    const table = await describe(client, tableName);
    const indexes = table?.GlobalSecondaryIndexes ?? [];
    const indexesActive = indexes.every((gsi) => gsi.IndexStatus === 'ACTIVE') && (!index || indexes.some((gsi) => gsi.IndexName === index));
    if (table?.TableStatus === 'ACTIVE' && indexesActive) return table;
    if (Date.now() > deadline) {
      throw new Error(`Table ${tableName} did not become ACTIVE (status ${table?.TableStatus ?? 'not found'})`);
    }
    await sleep(pause);
  }
}
