/**
 * The DynamoDB client's time limits: three attempts of 2.5 s end well inside an API function's 10 s;
 * a large transaction's attempt gets more time, in proportion to its items.
 */
import { describe, expect, it } from 'vitest';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DYNAMODB_REQUEST_TIMEOUT_MS, createDynamoClient, transactionRequestTimeoutMs } from '../../shared/aws/clients.ts';
import { transact } from '../../shared/store/dynamo.ts';

async function limits(client: ReturnType<typeof createDynamoClient>) {
  const handler = client.config.requestHandler as unknown as { configProvider: Promise<{ requestTimeout?: number; throwOnRequestTimeout?: boolean }> };
  const { requestTimeout, throwOnRequestTimeout } = await handler.configProvider;
  return { requestTimeout, throwOnRequestTimeout, maxAttempts: await client.config.maxAttempts() };
}

describe('createDynamoClient', () => {
  it('on AWS: three attempts of 2.5 s, within the API functions\' 10 s', async () => {
    const client = createDynamoClient({ region: 'us-east-1' });
    expect(await limits(client)).toEqual({ requestTimeout: DYNAMODB_REQUEST_TIMEOUT_MS, throwOnRequestTimeout: true, maxAttempts: 3 });
    expect(3 * DYNAMODB_REQUEST_TIMEOUT_MS).toBeLessThan(10_000);
  });

  it('the same against a local endpoint (DynamoDB Local)', async () => {
    const client = createDynamoClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:1' });
    expect(await limits(client)).toEqual({ requestTimeout: DYNAMODB_REQUEST_TIMEOUT_MS, throwOnRequestTimeout: true, maxAttempts: 3 });
  });
});

describe('a transaction attempt', () => {
  const sent = async (count: number) => {
    let options: unknown;
    const doc = { send: async (_command: unknown, given: unknown) => ((options = given), {}) } as unknown as DynamoDBDocumentClient;
    await transact(doc, Array.from({ length: count }, (_, i) => ({ label: 'item', item: { Put: { TableName: 't', Item: { PK: String(i), SK: 'x' } } } })));
    return options;
  };

  it('of up to 25 items has the 2.5 s of any call; beyond, 40 ms more an item (100 items: 5.5 s)', async () => {
    expect(await sent(1)).toEqual({ requestTimeout: DYNAMODB_REQUEST_TIMEOUT_MS });
    expect(await sent(25)).toEqual({ requestTimeout: DYNAMODB_REQUEST_TIMEOUT_MS });
    expect(await sent(100)).toEqual({ requestTimeout: 5_500 });
    expect(transactionRequestTimeoutMs(26)).toBe(DYNAMODB_REQUEST_TIMEOUT_MS + 40);
  });
});
