/**
 * Creates the service table on DynamoDB Local from shared/table.ts, or brings an existing one up to
 * date (missing indexes are added, the stream and TTL switched on), so a DATA_DIR from an older
 * version keeps working.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type DynamoDBClient,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import { setTimeout as sleep } from 'node:timers/promises';
import { TABLE, keyAttributes, type IndexDefinition } from '../../shared/table.ts';

export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<TableDescription> {
  let table = await describe(client, tableName);
  if (!table) {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: keyAttributes().map((name) => ({ AttributeName: name, AttributeType: 'S' })),
        KeySchema: [
          { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
          { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: TABLE.globalSecondaryIndexes.map(indexDefinition),
        StreamSpecification: { StreamEnabled: true, StreamViewType: TABLE.streamViewType },
      }),
    );
  } else {
    const present = new Set((table.GlobalSecondaryIndexes ?? []).map((gsi) => gsi.IndexName));
    for (const gsi of TABLE.globalSecondaryIndexes.filter((index) => !present.has(index.indexName))) {
      await client.send(
        new UpdateTableCommand({
          TableName: tableName,
          AttributeDefinitions: [gsi.partitionKey, gsi.sortKey].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
          GlobalSecondaryIndexUpdates: [
            {
              Create: indexDefinition(gsi),
            },
          ],
        }),
      );
      await waitActive(client, tableName);
    }
    if (!table.StreamSpecification?.StreamEnabled) {
      await client.send(
        new UpdateTableCommand({
          TableName: tableName,
          StreamSpecification: { StreamEnabled: true, StreamViewType: TABLE.streamViewType },
        }),
      );
    }
  }
  table = await waitActive(client, tableName);
  const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
  if (ttl.TimeToLiveDescription?.TimeToLiveStatus !== 'ENABLED') {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: TABLE.ttlAttribute, Enabled: true },
      }),
    );
  }
  return table;
}

function indexDefinition(gsi: IndexDefinition) {
  return {
    IndexName: gsi.indexName,
    KeySchema: [
      { AttributeName: gsi.partitionKey, KeyType: 'HASH' as const },
      { AttributeName: gsi.sortKey, KeyType: 'RANGE' as const },
    ],
    Projection: { ProjectionType: gsi.projection },
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

async function waitActive(client: DynamoDBClient, tableName: string): Promise<TableDescription> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const table = await describe(client, tableName);
    const indexesActive = (table?.GlobalSecondaryIndexes ?? []).every((gsi) => gsi.IndexStatus === 'ACTIVE');
    if (table?.TableStatus === 'ACTIVE' && indexesActive) return table;
    await sleep(50);
  }
  throw new Error(`Table ${tableName} did not become active`);
}
