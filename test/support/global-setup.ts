/**
 * Starts the real local stand-ins once for the whole test run: the SQS emulator, and a pool that gives
 * every test file a fresh DynamoDB Local (in memory) of its own (dynamodb-pool.ts says why). Every test
 * file creates its own table and queues, so files never share state.
 */
import type { TestProject } from 'vitest/node';
import { startFauxqs } from 'fauxqs';
import { DynamoDbLocalPool } from './dynamodb-pool.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where a file's set-up leases its DynamoDB Local (lease-dynamodb.ts). */
    dynamodbPool: string;
    sqsEndpoint: string;
  }
}

export default async function setup(project: TestProject) {
  // A spare per worker, so that no file waits for Java to start. The process tests start their own
  // stacks (npm start); few of their files use a leased one.
  const pool = new DynamoDbLocalPool(project.name === 'processes' ? 1 : Math.max(1, project.config.maxWorkers));
  const [sqs, poolUrl] = await Promise.all([startFauxqs({ port: 0, logger: false }), pool.listen()]);
  project.provide('dynamodbPool', poolUrl);
  project.provide('sqsEndpoint', `http://127.0.0.1:${sqs.port}`);
  return async () => {
    await Promise.all([pool.close(), sqs.stop()]);
  };
}
