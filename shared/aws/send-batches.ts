/**
 * SendMessageBatch of any number of JSON messages, ten a call (SQS's limit), for the queues the service
 * writes to in domain words (shared/aws/evaluation-queue.ts, advisory-link-queue.ts).
 */
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';

/** Sends every message; throws naming how many of how many `what` could not be queued. */
export async function sendInBatches<T>(sqs: SQSClient, queueUrl: string, messages: readonly T[], what: string, delaySeconds?: (message: T) => number): Promise<void> {
  let failed = 0;
  for (let i = 0; i < messages.length; i += 10) {
    const batch = messages.slice(i, i + 10);
    const result = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: batch.map((message, j) => ({
          Id: String(j),
          MessageBody: JSON.stringify(message),
          ...(delaySeconds ? { DelaySeconds: delaySeconds(message) } : {}),
        })),
      }),
    );
    failed += result.Failed?.length ?? 0;
  }
  if (failed > 0) throw new Error(`${failed} of ${messages.length} ${what} could not be queued`);
}
