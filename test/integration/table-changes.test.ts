/**
 * The test helper that says "a refused write changed nothing" (test/support/table-changes.ts) must see
 * every kind of write, or those tests could never fail: a put, an update, a delete and a transaction
 * each show up, once, in order; reads and a failed conditional write show nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeleteCommand, GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { useTestTable } from '../support/environment.ts';
import { watchTable, type TableWatch } from '../support/table-changes.ts';

let env: Awaited<ReturnType<typeof useTestTable>>;
let watch: TableWatch;

beforeAll(async () => {
  env = await useTestTable();
  // Written before the watch began: never reported.
  await env.doc.send(new PutCommand({ TableName: env.tableName, Item: { PK: 'BEFORE', SK: 'ITEM', n: 0 } }));
  watch = await watchTable(env);
});
afterAll(() => watch?.stop());

describe('watchTable', () => {
  it('reports nothing when nothing was written, reads included', async () => {
    await env.doc.send(new GetCommand({ TableName: env.tableName, Key: { PK: 'BEFORE', SK: 'ITEM' } }));
    expect(await watch.changes()).toEqual([]);
  });

  it('reports a put, an update and a delete, each once and in order, with their keys', async () => {
    const Key = { PK: 'W', SK: '1' };
    await env.doc.send(new PutCommand({ TableName: env.tableName, Item: { ...Key, n: 1 } }));
    await env.doc.send(new UpdateCommand({ TableName: env.tableName, Key, UpdateExpression: 'SET n = :n', ExpressionAttributeValues: { ':n': 2 } }));
    await env.doc.send(new DeleteCommand({ TableName: env.tableName, Key }));
    const changes = await watch.changes();
    expect(changes.map((change) => `${change.event} ${change.key}`)).toEqual(['INSERT W | 1', 'MODIFY W | 1', 'REMOVE W | 1']);
    expect(await watch.changes()).toEqual([]);
  });

  it('reports every item of a transaction, and nothing of a write whose condition failed', async () => {
    await env.doc.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: env.tableName, Item: { PK: 'T', SK: '1' } } },
          { Put: { TableName: env.tableName, Item: { PK: 'T', SK: '2' } } },
        ],
      }),
    );
    await expect(
      env.doc.send(new PutCommand({ TableName: env.tableName, Item: { PK: 'T', SK: '1', x: 1 }, ConditionExpression: 'attribute_not_exists(PK)' })),
    ).rejects.toBeInstanceOf(ConditionalCheckFailedException);
    expect((await watch.changes()).map((change) => `${change.event} ${change.key}`).sort()).toEqual(['INSERT T | 1', 'INSERT T | 2']);
  });
});
