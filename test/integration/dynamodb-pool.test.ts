/**
 * The test pool of DynamoDB Locals (test/support/dynamodb-pool.ts): a slot keeps its instance while
 * that holds few stream records, and gets a fresh one, the old one stopped, once it holds more.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { BatchWriteItemCommand, CreateTableCommand, DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDbLocalPool, MAX_STREAM_RECORDS } from '../support/dynamodb-pool.ts';

const pool = new DynamoDbLocalPool();
afterAll(() => pool.close());

const client = (endpoint: string) => new DynamoDBClient({ region: 'us-east-1', endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });

async function writeWithStream(endpoint: string, table: string, items: number): Promise<void> {
  const dynamo = client(endpoint);
  await dynamo.send(
    new CreateTableCommand({
      TableName: table,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'PK', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }],
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' },
    }),
  );
  for (let i = 0; i < items; i += 25) {
    await dynamo.send(new BatchWriteItemCommand({ RequestItems: { [table]: Array.from({ length: 25 }, (_, j) => ({ PutRequest: { Item: { PK: { S: `item-${i + j}` } } } })) } }));
  }
  dynamo.destroy();
}

describe('the DynamoDB Local pool of the tests', () => {
  it('keeps a slot on its instance after light use, and moves it to a fresh one after heavy use', { timeout: 120_000 }, async () => {
    const first = await pool.lease('1');
    await writeWithStream(first, 'light', 100);
    expect(await pool.lease('1')).toBe(first);
    // Another slot gets an instance of its own.
    const other = await pool.lease('2');
    expect(other).not.toBe(first);

    await writeWithStream(first, 'heavy', MAX_STREAM_RECORDS);
    const fresh = await pool.lease('1');
    expect(fresh).not.toBe(first);
    expect(fresh).not.toBe(other);
    expect((await client(fresh).send(new ListTablesCommand({}))).TableNames).toEqual(['pool-probe']);
    // The old instance stops.
    await expect.poll(() => client(first).send(new ListTablesCommand({})).then(() => 'up', () => 'stopped'), { timeout: 10_000 }).toBe('stopped');
  });
});
