/**
 * The DynamoDB client's time limits: three attempts of 2.5 s end well inside an API function's 10 s.
 */
import { describe, expect, it } from 'vitest';
import { DYNAMODB_REQUEST_TIMEOUT_MS, createDynamoClient } from '../../shared/aws/clients.ts';

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
