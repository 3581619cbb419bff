/**
 * A test's view of a table's stream: a poller (bin/local/stream-poller.ts, as the local stack runs it)
 * that collects every record of the table into `seen` (the caller's array, or a new one), in order, until stopped.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { startStreamPoller } from '../../bin/local/stream-poller.ts';
import { dynamodbEndpoint } from './environment.ts';

export function collectStreamRecords(tableName: string, seen: DynamoDBRecord[] = [], startingPosition: 'TRIM_HORIZON' | 'LATEST' = 'TRIM_HORIZON') {
  const poller = startStreamPoller({
    dynamodbEndpoint: dynamodbEndpoint(),
    region: 'us-east-1',
    tableName,
    startingPosition,
    batchSize: 100,
    maxRetryAttempts: 0,
    bisectBatchOnError: false,
    pollIntervalMs: 20,
    onError: (error) => console.error('stream poller:', error),
    handler: async (event) => {
      seen.push(...event.Records);
    },
  });
  return { seen, stop: () => poller.stop() };
}
