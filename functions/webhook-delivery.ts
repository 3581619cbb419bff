/**
 * One webhook delivery attempt per message. A failed attempt puts the message back after the
 * backoff of the retry schedule (by its visibility timeout) and reports it failed; after the queue's
 * maxReceiveCount the message moves to the DLQ, whose alarm tells an operator.
 */
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { DeliveryMessageSchema } from '../shared/aws/delivery-queue.ts';
import { RetryLaterError } from '../shared/services/webhooks.ts';
import { getDeliveryQueue, getWebhookService } from '../shared/runtime.ts';
import { processQueueBatch } from '../shared/aws/partial-batch.ts';
import { logger } from '../shared/logger.ts';

const webhooks = getWebhookService();

export async function handler(event: SQSEvent, context?: Context): Promise<SQSBatchResponse> {
  return processQueueBatch(event, context, async (record: SQSRecord) => {
    try {
      const message = DeliveryMessageSchema.parse(JSON.parse(record.body));
      await webhooks.attempt(message, Number(record.attributes.ApproximateReceiveCount ?? 1));
    } catch (error) {
      if (error instanceof RetryLaterError) {
        await getDeliveryQueue()
          .retryAfter(record.receiptHandle, error.delaySeconds)
          .catch((cause: unknown) => logger.warn('Could not set the retry delay', { error: cause as Error }));
      } else {
        logger.error('Webhook delivery failed', { messageId: record.messageId, error: error as Error });
      }
      throw error;
    }
  });
}
