/**
 * The bus's webhook rule → this queue → one delivery per active subscription of the event's
 * dataspace and type, each attempted here (WebhookService.fanOut). Each SQS message holds the
 * EventBridge event; its detail is the envelope. The events of a batch are fanned out at once, so a
 * slow receiver of one does not hold up the others. A message that fails is reported alone (partial
 * batch failure) and retried.
 */
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { lambdaHandler, webhookService, type Dependencies } from '../shared/runtime.ts';
import type { Envelope } from '../shared/events/envelope.ts';
import type { WebhookService } from '../shared/services/webhooks.ts';
import { messageBody, processQueueBatch } from '../shared/aws/partial-batch.ts';
import { logger } from '../shared/observability/logger.ts';
import { instrumented, withCorrelation } from '../shared/observability/invocation.ts';
import { carriedCorrelationId } from '../shared/observability/correlation.ts';
import { countMetric } from '../shared/observability/metrics.ts';

export const makeHandler =
  ({ webhooks }: Pick<Dependencies, 'webhooks'>) =>
    instrumented((event: SQSEvent, context?: Context): Promise<SQSBatchResponse> => fanOut(webhooks, event, context));

export const handler = lambdaHandler((c) => makeHandler({ webhooks: webhookService(c) }));

async function fanOut(webhooks: WebhookService, event: SQSEvent, context?: Context): Promise<SQSBatchResponse> {
  return processQueueBatch('webhookEvents', event, context, async (record: SQSRecord) => {
    const envelope = (messageBody(record) as { detail?: Partial<Envelope> } | undefined)?.detail;
    await withCorrelation(carriedCorrelationId(envelope?.correlation_id), async () => {
      try {
        if (typeof envelope?.id !== 'string' || typeof envelope.type !== 'string') throw new Error('Not an event of the service');
        const result = await webhooks.fanOut(envelope as Envelope);
        // The first attempts are counted like the delivery function's (a hand-over is a failed attempt).
        if (result.delivered > 0) countMetric('WebhookDeliveries', result.delivered, 'delivered');
        if (result.failed + result.handedOver > 0) countMetric('WebhookDeliveries', result.failed + result.handedOver, 'failed');
        if (result.disabled > 0) countMetric('WebhookDeliveries', result.disabled, 'disabled');
        logger.info('Event fanned out', { id: envelope.id, type: envelope.type, deliveries: result.subscriptions, ...result });
      } catch (error) {
        logger.error('Could not fan out an event', { messageId: record.messageId, error: error as Error });
        throw error;
      }
    });
  }, { inParallel: true });
}
