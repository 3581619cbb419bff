/**
 * The evaluation queue, spoken in domain words: "evaluate these products". SQS on AWS and on the
 * local stack (the emulator). Each request waits EVALUATION_DELAY_SECONDS, so that a burst of
 * changes to one product is evaluated once, after it.
 */
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import * as z from 'zod';

export const EvaluationRequestSchema = z.object({
  dataspace: z.string(),
  product: z.string(),
  /** When the change was seen: an evaluation that started reading later already covers it. */
  requestedAt: z.string(),
  /** The correlation id of the change's path (shared/observability/correlation.ts). */
  correlationId: z.string().optional(),
});
export type EvaluationRequest = z.infer<typeof EvaluationRequestSchema>;

export interface EvaluationQueue {
  /** Enqueues every request or throws, naming how many failed. */
  send(requests: readonly EvaluationRequest[]): Promise<void>;
}

export class SqsEvaluationQueue implements EvaluationQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
    private readonly delaySeconds: number,
  ) {}

  async send(requests: readonly EvaluationRequest[]): Promise<void> {
    let failed = 0;
    for (let i = 0; i < requests.length; i += 10) {
      const batch = requests.slice(i, i + 10);
      const result = await this.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: batch.map((request, j) => ({ Id: String(j), MessageBody: JSON.stringify(request), DelaySeconds: this.delaySeconds })),
        }),
      );
      failed += result.Failed?.length ?? 0;
    }
    if (failed > 0) throw new Error(`${failed} of ${requests.length} evaluation requests could not be queued`);
  }
}
