/**
 * The test pool of DynamoDB Locals (test/support/dynamodb-pool.ts): a slot keeps its instance while
 * that holds few stream records, and gets a fresh one, the old one stopped, once it holds more. And the
 * indexes that keep DynamoDB Local from slowing down with its stream records.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { BatchWriteItemCommand, CreateTableCommand, DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { DynamoDbLocalPool } from '../support/dynamodb-pool.ts';
import { DATABASE_FILE, startDynamoDbLocal } from '../../bin/local/dynamodb-local.ts';
import { freePort } from '../../bin/local/ports.ts';

/** Low, so that the test writes past it in seconds. */
const MAX_STREAM_RECORDS = 500;
const pool = new DynamoDbLocalPool(MAX_STREAM_RECORDS);
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

describe('the DynamoDB Local pool, when a slot\'s file has ended', () => {
  it('stops the slot\'s instance, and the spare, when no file leases within the idle time; a lease in time keeps it', { timeout: 60_000 }, async () => {
    const idle = new DynamoDbLocalPool(MAX_STREAM_RECORDS, 1_500);
    try {
      const kept = await idle.lease('1');
      idle.release('1');
      expect(await idle.lease('1')).toBe(kept);
      idle.release('1');
      await expect.poll(() => idle.running, { timeout: 20_000 }).toBe(0);
      await expect.poll(() => client(kept).send(new ListTablesCommand({})).then(() => 'up', () => 'stopped'), { timeout: 10_000 }).toBe('stopped');
    } finally {
      await idle.close();
    }
  });
});

describe('DynamoDB Local on a data directory (bin/local/dynamodb-local.ts)', () => {
  it('has its stream records and transaction tokens indexed, again after a restart', { timeout: 60_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dynamodb-local-index-'));
    try {
      for (let start = 0; start < 2; start++) {
        const dynamo = await startDynamoDbLocal({ port: await freePort(), dataDir });
        try {
          const database = new DatabaseSync(join(dataDir, DATABASE_FILE), { readOnly: true });
          const indexes = (database.prepare("SELECT tbl_name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").all() as { tbl_name: string; sql: string }[])
            .filter((index) => index.tbl_name === 'us' || index.tbl_name === 'tr')
            .map((index) => index.sql.replace(/^CREATE INDEX \S+ /, ''))
            .sort();
          database.close();
          expect(indexes).toEqual(['ON tr (CreationDateTime)', 'ON us (CreationDateTime)', 'ON us (ShardID, SequenceNumber)', 'ON us (StreamID)']);
        } finally {
          await dynamo.stop();
        }
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
