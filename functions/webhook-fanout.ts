/**
 * The bus's webhook rule → this queue → one delivery per active subscription of the event's
 * dataspace and type. Each SQS message holds the EventBridge event; its detail is the envelope.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { getWebhookService } from '../shared/runtime.ts';
import type { Envelope } from '../shared/events/envelope.ts';
import { logger } from '../shared/logger.ts';

const webhooks = getWebhookService();

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const failures: { itemIdentifier: string }[] = [];
  for (const record of event.Records) {
    try {
      const envelope = (JSON.parse(record.body) as { detail: Envelope }).detail;
      if (typeof envelope?.id !== 'string' || typeof envelope.type !== 'string') throw new Error('Not an event of the service');
      await webhooks.fanOut(envelope);
    } catch (error) {
      logger.error('Could not fan out an event', { messageId: record.messageId, error: error as Error });
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
}
