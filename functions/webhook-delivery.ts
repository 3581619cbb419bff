/**
 * One webhook delivery attempt per message: the deliveries the fan-out could not make (failed, or no
 * answer within its first-try timeout) and redeliveries. The messages of a batch are attempted at once,
 * each with its own 10 s timeout, so a slow receiver holds up only its own message. A failed attempt
 * puts the message back after the backoff of the retry schedule (by its visibility timeout) and reports
 * it failed; after the queue's maxReceiveCount the message moves to the DLQ, whose alarm tells an operator.
 */
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { DeliveryMessageSchema } from '../shared/aws/delivery-queue.ts';
import { RetryLaterError } from '../shared/services/webhooks.ts';
import { deliveryQueue, lambdaHandler, webhookService, type Dependencies } from '../shared/runtime.ts';
import { messageBody, processQueueBatch } from '../shared/aws/partial-batch.ts';
import { logger } from '../shared/observability/logger.ts';
import { instrumented, withCorrelation } from '../shared/observability/invocation.ts';
import { carriedCorrelationId } from '../shared/observability/correlation.ts';
import { countMetric, type DeliveryOutcome } from '../shared/observability/metrics.ts';

type DeliveryDependencies = Pick<Dependencies, 'webhooks'> & { readonly deliveryQueue: Pick<Dependencies['deliveryQueue'], 'retryAfter'> };

export const makeHandler =
  (deps: DeliveryDependencies) =>
    instrumented((event: SQSEvent, context?: Context): Promise<SQSBatchResponse> => deliver(deps, event, context));

export const handler = lambdaHandler((c) => makeHandler({ webhooks: webhookService(c), deliveryQueue: deliveryQueue(c) }));

async function deliver(deps: DeliveryDependencies, event: SQSEvent, context?: Context): Promise<SQSBatchResponse> {
  const { webhooks } = deps;
  return processQueueBatch('webhookDeliveries', event, context, async (record: SQSRecord) => {
    const parsed = DeliveryMessageSchema.safeParse(messageBody(record));
    await withCorrelation(carriedCorrelationId(parsed.data?.correlationId), async () => {
      if (!parsed.success) {
        logger.error('Malformed delivery message', { messageId: record.messageId });
        throw new Error(`Message ${record.messageId} is not a webhook delivery`);
      }
      const message = parsed.data;
      const attempted = { webhook: message.webhookUuid, delivery: message.deliveryId };
      try {
        const result = await webhooks.attempt(message, Number(record.attributes.ApproximateReceiveCount ?? 1));
        if (result.outcome === 'skipped') return;
        countAttempt(result.outcome, result.attempt);
        logger.info(result.outcome === 'delivered' ? 'Webhook delivered' : 'Webhook failed: subscription switched off', { ...attempted, attempt: result.attempt });
      } catch (error) {
        if (error instanceof RetryLaterError) {
          countAttempt('failed', error.attempt);
          logger.warn('Webhook delivery failed: will retry', { ...attempted, attempt: error.attempt, retryInSeconds: error.delaySeconds });
          await deps.deliveryQueue
            .retryAfter(record.receiptHandle, error.delaySeconds)
            .catch((cause: unknown) => logger.warn('Could not set the retry delay', { error: cause as Error }));
        } else {
          logger.error('Webhook delivery failed', { ...attempted, messageId: record.messageId, error: error as Error });
        }
        throw error;
      }
    });
  }, { inParallel: true });
}

function countAttempt(outcome: DeliveryOutcome, attempt: number): void {
  countMetric('WebhookDeliveries', 1, outcome);
  if (attempt > 1) countMetric('WebhookDeliveryRetries', 1);
}
