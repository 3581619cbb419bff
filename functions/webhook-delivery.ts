/**
 * One webhook delivery attempt per message. A failed attempt puts the message back after the
 * backoff of the retry schedule (by its visibility timeout) and reports it failed; after the queue's
 * maxReceiveCount the message moves to the DLQ, whose alarm tells an operator.
 */
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { DeliveryMessageSchema } from '../shared/aws/delivery-queue.ts';
import { RetryLaterError } from '../shared/services/webhooks.ts';
import { deliveryQueue, lambdaHandler, webhookService, type Dependencies } from '../shared/runtime.ts';
import { processQueueBatch } from '../shared/aws/partial-batch.ts';
import { logger } from '../shared/observability/logger.ts';

type DeliveryDependencies = Pick<Dependencies, 'webhooks'> & { readonly deliveryQueue: Pick<Dependencies['deliveryQueue'], 'retryAfter'> };

export const makeHandler =
  (deps: DeliveryDependencies) =>
  (event: SQSEvent, context?: Context): Promise<SQSBatchResponse> =>
    deliver(deps, event, context);

export const handler = lambdaHandler((c) => makeHandler({ webhooks: webhookService(c), deliveryQueue: deliveryQueue(c) }));

async function deliver(deps: DeliveryDependencies, event: SQSEvent, context?: Context): Promise<SQSBatchResponse> {
  const { webhooks } = deps;
  return processQueueBatch(event, context, async (record: SQSRecord) => {
    try {
      const message = DeliveryMessageSchema.parse(JSON.parse(record.body));
      await webhooks.attempt(message, Number(record.attributes.ApproximateReceiveCount ?? 1));
    } catch (error) {
      if (error instanceof RetryLaterError) {
        await deps.deliveryQueue
          .retryAfter(record.receiptHandle, error.delaySeconds)
          .catch((cause: unknown) => logger.warn('Could not set the retry delay', { error: cause as Error }));
      } else {
        logger.error('Webhook delivery failed', { messageId: record.messageId, error: error as Error });
      }
      throw error;
    }
  });
}
