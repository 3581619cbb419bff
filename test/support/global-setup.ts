/**
 * Starts the real local stand-ins once for a project's run: the SQS emulator, and the pool of DynamoDB
 * Locals that each test file leases one from (dynamodb-pool.ts). Every test file creates its own table
 * and queues, so files never share state.
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
  const pool = new DynamoDbLocalPool();
  const [sqs, poolUrl] = await Promise.all([startFauxqs({ port: 0, logger: false }), pool.listen()]);
  project.provide('dynamodbPool', poolUrl);
  project.provide('sqsEndpoint', `http://127.0.0.1:${sqs.port}`);
  return async () => {
    console.log(`${project.name}: ${pool.started} DynamoDB Local(s) started for its files`);
    await Promise.all([pool.close(), sqs.stop()]);
  };
}
