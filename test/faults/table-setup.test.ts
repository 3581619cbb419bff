/**
 * ensureTable under the faults that broke start-ups and test set-ups: a CreateTable that DynamoDB
 * applied but whose answer never reached the client (so the SDK sent it again and got "Cannot create
 * preexisting table"), and two set-ups creating the same table at once. In every case "the table
 * exists" means ensureTable resolves with the table ACTIVE, with its indexes, stream and TTL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, DescribeTableCommand, DescribeTimeToLiveCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ensureTable } from '../../bin/local/table-setup.ts';
import { createDynamoControlClient } from '../../shared/aws/clients.ts';
import { TABLE } from '../../shared/table.ts';
import { startFaultProxy, type FaultProxy } from './dynamodb-fault-proxy.ts';
import { dynamodbEndpoint } from '../support/environment.ts';

let proxy: FaultProxy;
let direct: DynamoDBClient;
const created: string[] = [];

beforeAll(async () => {
  proxy = await startFaultProxy(dynamodbEndpoint());
  direct = createDynamoControlClient({ region: 'us-east-1', endpoint: dynamodbEndpoint() });
});

afterAll(async () => {
  for (const TableName of created) await direct.send(new DeleteTableCommand({ TableName })).catch(() => undefined);
  direct.destroy();
  await proxy.stop();
});

function newTableName() {
  const name = `setup-${randomUUID().slice(0, 8)}`;
  created.push(name);
  return name;
}

async function expectReady(tableName: string) {
  const table = (await direct.send(new DescribeTableCommand({ TableName: tableName }))).Table!;
  expect(table.TableStatus).toBe('ACTIVE');
  expect((table.GlobalSecondaryIndexes ?? []).map((gsi) => [gsi.IndexName, gsi.IndexStatus]).sort()).toEqual(
    TABLE.globalSecondaryIndexes.map((gsi) => [gsi.indexName, 'ACTIVE']).sort(),
  );
  expect(table.StreamSpecification?.StreamEnabled).toBe(true);
  const ttl = await direct.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
  expect(ttl.TimeToLiveDescription?.TimeToLiveStatus).toBe('ENABLED');
}

describe('ensureTable', () => {
  it('resolves with an ACTIVE table when CreateTable was applied but its answer was lost', async () => {
    const tableName = newTableName();
    proxy.inject('CreateTable', { kind: 'lost-response' }, 1);
    const table = await ensureTable({ region: 'us-east-1', endpoint: proxy.endpoint }, tableName);
    expect(table.TableStatus).toBe('ACTIVE');
    // The SDK sent CreateTable again after the lost answer: DynamoDB saw it twice.
    expect(proxy.calls('CreateTable')).toBeGreaterThanOrEqual(2);
    await expectReady(tableName);
  });

  it('lets two set-ups create the same table at once: both resolve with it ACTIVE', async () => {
    const tableName = newTableName();
    const endpoint = { region: 'us-east-1', endpoint: dynamodbEndpoint() };
    const tables = await Promise.all([ensureTable(endpoint, tableName), ensureTable(endpoint, tableName), ensureTable(endpoint, tableName)]);
    expect(tables.map((table) => table.TableStatus)).toEqual(['ACTIVE', 'ACTIVE', 'ACTIVE']);
    await expectReady(tableName);
  });

  it('brings an existing table up to date and is idempotent', async () => {
    const tableName = newTableName();
    const endpoint = { region: 'us-east-1', endpoint: dynamodbEndpoint() };
    await ensureTable(endpoint, tableName);
    const again = await ensureTable(endpoint, tableName);
    expect(again.TableStatus).toBe('ACTIVE');
    await expectReady(tableName);
  });

  it('makes a table without a stream when asked (seeded benchmark data), and leaves it so on the next call', async () => {
    const tableName = newTableName();
    const endpoint = { region: 'us-east-1', endpoint: dynamodbEndpoint() };
    await ensureTable(endpoint, tableName, { stream: false });
    await ensureTable(endpoint, tableName, { stream: false });
    const table = (await direct.send(new DescribeTableCommand({ TableName: tableName }))).Table!;
    expect(table.TableStatus).toBe('ACTIVE');
    expect(table.StreamSpecification?.StreamEnabled ?? false).toBe(false);
    expect((table.GlobalSecondaryIndexes ?? []).length).toBe(TABLE.globalSecondaryIndexes.length);
  });
});
