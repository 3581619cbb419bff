/**
 * Each test file's set-up (vitest setupFiles): leases the file's DynamoDB Local from the global
 * set-up's pool (dynamodb-pool.ts) before the file runs; environment.ts's dynamodbEndpoint() answers it.
 */
import { inject } from 'vitest';

const slot = process.env.VITEST_POOL_ID ?? '1';
const response = await fetch(`${inject('dynamodbPool')}/lease?slot=${encodeURIComponent(slot)}`, { method: 'POST' });
if (!response.ok) throw new Error(`No DynamoDB Local for this file: ${response.status} ${await response.text()}`);
process.env.TEST_DYNAMODB_ENDPOINT = ((await response.json()) as { endpoint: string }).endpoint;
