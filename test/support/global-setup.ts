/**
 * Starts the real local stand-ins once for the whole test run: one DynamoDB Local (in memory) per
 * worker, and the SQS emulator. Every test file creates its own table and queues, so files never share
 * state; each file talks to its worker's DynamoDB Local (environment.ts), because one DynamoDB Local
 * mostly serves one request at a time: two workers on one took 1.3 to 1.6 times as long as one alone
 * for the same work each, on two they took as long as one.
 */
import type { TestProject } from 'vitest/node';
import { startFauxqs } from 'fauxqs';
import { startDynamoDbLocal } from '../../bin/local/dynamodb-local.ts';
import { freePort } from '../../bin/local/ports.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** One per worker (VITEST_POOL_ID 1 is the first). */
    dynamodbEndpoints: string[];
    sqsEndpoint: string;
  }
}

export default async function setup(project: TestProject) {
  // The process tests start their own stacks (npm start); only one of their files uses this. The
  // contention, volume and imports projects have one file each (vitest.config.ts).
  const workers = ['processes', 'contention', 'volume', 'imports'].includes(project.name) ? 1 : Math.max(1, project.globalConfig.maxWorkers);
  const [sqs, ...dynamos] = await Promise.all([
    startFauxqs({ port: 0, logger: false }),
    ...Array.from({ length: workers }, () => freePort().then((port) => startDynamoDbLocal({ port }))),
  ]);
  project.provide('dynamodbEndpoints', dynamos.map((dynamo) => dynamo.endpoint));
  project.provide('sqsEndpoint', `http://127.0.0.1:${sqs.port}`);
  return async () => {
    await Promise.all([...dynamos.map((dynamo) => dynamo.stop()), sqs.stop()]);
  };
}
