/**
 * The bus's webhook rule → this queue → one delivery per active subscription of the event's
 * dataspace and type. Each SQS message holds the EventBridge event; its detail is the envelope.
 * A message that fails is reported alone (partial batch failure) and retried.
 */
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { lambdaHandler, webhookService, type Dependencies } from '../shared/runtime.ts';
import type { Envelope } from '../shared/events/envelope.ts';
import type { WebhookService } from '../shared/services/webhooks.ts';
import { processQueueBatch } from '../shared/aws/partial-batch.ts';
import { logger } from '../shared/observability/logger.ts';

export const makeHandler =
  ({ webhooks }: Pick<Dependencies, 'webhooks'>) =>
  (event: SQSEvent, context?: Context): Promise<SQSBatchResponse> =>
    fanOut(webhooks, event, context);

export const handler = lambdaHandler((c) => makeHandler({ webhooks: webhookService(c) }));

async function fanOut(webhooks: WebhookService, event: SQSEvent, context?: Context): Promise<SQSBatchResponse> {
  return processQueueBatch(event, context, async (record: SQSRecord) => {
    try {
      const envelope = (JSON.parse(record.body) as { detail: Envelope }).detail;
      if (typeof envelope?.id !== 'string' || typeof envelope.type !== 'string') throw new Error('Not an event of the service');
      await webhooks.fanOut(envelope);
    } catch (error) {
      logger.error('Could not fan out an event', { messageId: record.messageId, error: error as Error });
      throw error;
    }
  });
}
