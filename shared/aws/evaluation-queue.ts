/**
 * The evaluation queue, spoken in domain words: "evaluate these products", and "re-evaluate this
 * dataspace, from this page on". SQS on AWS and on the local stack (the emulator). Each product
 * request waits EVALUATION_DELAY_SECONDS, so that a burst of changes to one product is evaluated
 * once, after it; a dataspace page is handled at once.
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

/**
 * One page of a dataspace-wide re-evaluation (a license, usage policy or rule configuration changed):
 * the evaluator queues the products of the page, then the next page, so that no invocation iterates
 * every product of a large dataspace. `cursor` is where the page starts (none: the first page).
 */
export const FanOutPageSchema = z.object({
  fanOut: z.literal('dataspace'),
  dataspace: z.string(),
  requestedAt: z.string(),
  correlationId: z.string().optional(),
  cursor: z.string().optional(),
});
export type FanOutPage = z.infer<typeof FanOutPageSchema>;

export const EvaluationMessageSchema = z.union([FanOutPageSchema, EvaluationRequestSchema]);
export type EvaluationMessage = EvaluationRequest | FanOutPage;

export const isFanOutPage = (message: EvaluationMessage): message is FanOutPage => 'fanOut' in message;

export interface EvaluationQueue {
  /** Enqueues every message or throws, naming how many failed. */
  send(messages: readonly EvaluationMessage[]): Promise<void>;
}

export class SqsEvaluationQueue implements EvaluationQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
    private readonly delaySeconds: number,
  ) {}

  async send(messages: readonly EvaluationMessage[]): Promise<void> {
    let failed = 0;
    for (let i = 0; i < messages.length; i += 10) {
      const batch = messages.slice(i, i + 10);
      const result = await this.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: batch.map((message, j) => ({
            Id: String(j),
            MessageBody: JSON.stringify(message),
            // A page has nothing to coalesce: the next page follows without waiting.
            DelaySeconds: isFanOutPage(message) ? 0 : this.delaySeconds,
          })),
        }),
      );
      failed += result.Failed?.length ?? 0;
    }
    if (failed > 0) throw new Error(`${failed} of ${messages.length} evaluation messages could not be queued`);
  }
}
