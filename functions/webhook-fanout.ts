/**
 * The bus's webhook rule → this queue → one delivery per active subscription of the event's
 * dataspace and type. Each SQS message holds the EventBridge event; its detail is the envelope.
 * A message that fails is reported alone (partial batch failure) and retried.
 */
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { lambdaHandler, webhookService, type Dependencies } from '../shared/runtime.ts';
import type { Envelope } from '../shared/events/envelope.ts';
import type { WebhookService } from '../shared/services/webhooks.ts';
import { messageBody, processQueueBatch } from '../shared/aws/partial-batch.ts';
import { logger } from '../shared/observability/logger.ts';
import { instrumented, withCorrelation } from '../shared/observability/invocation.ts';
import { carriedCorrelationId } from '../shared/observability/correlation.ts';

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
        const deliveries = await webhooks.fanOut(envelope as Envelope);
        logger.info('Event fanned out', { id: envelope.id, type: envelope.type, deliveries });
      } catch (error) {
        logger.error('Could not fan out an event', { messageId: record.messageId, error: error as Error });
        throw error;
      }
    });
  });
}
