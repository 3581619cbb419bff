/**
 * Starts the real local stand-ins once for the whole test run: DynamoDB Local (in memory) and the
 * SQS emulator. Every test file creates its own table and queues, so files never share state.
 */
import type { TestProject } from 'vitest/node';
import { startFauxqs } from 'fauxqs';
import { startDynamoDbLocal } from '../../bin/local/dynamodb-local.ts';
import { freePort } from '../../bin/local/ports.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    sqsEndpoint: string;
  }
}

export default async function setup(project: TestProject) {
  const [dynamo, sqs] = await Promise.all([
    freePort().then((port) => startDynamoDbLocal({ port })),
    startFauxqs({ port: 0, logger: false }),
  ]);
  project.provide('dynamodbEndpoint', dynamo.endpoint);
  project.provide('sqsEndpoint', `http://127.0.0.1:${sqs.port}`);
  return async () => {
    await Promise.all([dynamo.stop(), sqs.stop()]);
  };
}
