/**
 * Each test file's set-up (vitest setupFiles): leases the file's DynamoDB Local from the global
 * set-up's pool (dynamodb-pool.ts) before the file runs, and tells the pool when it has ended;
 * environment.ts's dynamodbEndpoint() answers it.
 */
import { afterAll, inject } from 'vitest';

const slot = encodeURIComponent(process.env.VITEST_POOL_ID ?? '1');
const pool = inject('dynamodbPool');
const response = await fetch(`${pool}/lease?slot=${slot}`, { method: 'POST' });
if (!response.ok) throw new Error(`No DynamoDB Local for this file: ${response.status} ${await response.text()}`);
process.env.TEST_DYNAMODB_ENDPOINT = ((await response.json()) as { endpoint: string }).endpoint;

// The file has ended: the pool may stop the instance if the slot's next file does not come soon.
afterAll(async () => {
  await fetch(`${pool}/release?slot=${slot}`, { method: 'POST' }).catch(() => undefined);
});
