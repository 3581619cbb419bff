/**
 * The outbox: an event an evaluation committed (an OutboxEvent item, selected by filter criteria)
 * is put on the event bus with its envelope, whose id stays the same on every retry. A record that
 * fails is reported (partial batch failure) and retried; consumers deduplicate on the id.
 */
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { getEventPublisher } from '../shared/events/eventbridge-publisher.ts';
import { EVENT_SOURCE, type Envelope } from '../shared/events/envelope.ts';
import { getConfig } from '../shared/config.ts';
import { logger } from '../shared/logger.ts';

const config = getConfig();

export async function handler(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const publisher = getEventPublisher(config);
  for (const record of event.Records) {
    if (record.eventName !== 'INSERT' || !record.dynamodb?.NewImage) continue;
    const item = unmarshall(record.dynamodb.NewImage as Record<string, AttributeValue>);
    const envelope = item.envelope as Envelope;
    try {
      await publisher.publish([{ source: EVENT_SOURCE, detailType: envelope.type, detail: { ...envelope }, time: new Date(envelope.timestamp) }]);
    } catch (error) {
      logger.error('Could not publish an event', { eventId: envelope.id, error: error as Error });
      // Stream batches are ordered: Lambda retries from this record (those before it were published).
      return { batchItemFailures: [{ itemIdentifier: record.dynamodb.SequenceNumber! }] };
    }
  }
  return { batchItemFailures: [] };
}
