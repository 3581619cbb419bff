/**
 * The webhook deliveries queue (SQS): one message per delivery the fan-out could not make, sent after
 * its backoff (DelaySeconds), then retried by visibility timeout.
 */
import { ChangeMessageVisibilityCommand, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import * as z from 'zod';
import type { DeliveryMessage, DeliveryQueue } from '../services/webhooks.ts';

/** SQS's longest DelaySeconds; a longer backoff starts after this (the next ones use the visibility timeout). */
const MAX_DELAY_SECONDS = 900;

export const DeliveryMessageSchema = z.object({ webhookUuid: z.string(), deliveryId: z.string(), force: z.boolean().optional(), correlationId: z.string().optional() });

export class SqsDeliveryQueue implements DeliveryQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(messages: readonly DeliveryMessage[]): Promise<void> {
    for (let i = 0; i < messages.length; i += 10) {
      const batch = messages.slice(i, i + 10);
      const result = await this.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: batch.map(({ delaySeconds, ...message }, j) => ({
            Id: String(j),
            MessageBody: JSON.stringify(message),
            ...(delaySeconds ? { DelaySeconds: Math.min(MAX_DELAY_SECONDS, Math.round(delaySeconds)) } : {}),
          })),
        }),
      );
      if (result.Failed?.length) throw new Error(`${result.Failed.length} webhook deliveries could not be queued`);
    }
  }

  /** Puts a received message back after `seconds`: the backoff before its next attempt. */
  async retryAfter(receiptHandle: string, seconds: number): Promise<void> {
    await this.sqs.send(
      new ChangeMessageVisibilityCommand({ QueueUrl: this.queueUrl, ReceiptHandle: receiptHandle, VisibilityTimeout: Math.min(43_200, Math.round(seconds)) }),
    );
  }
}
