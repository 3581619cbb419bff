/**
 * The evaluation queue, spoken in domain words: "evaluate these products", and "re-evaluate this
 * dataspace, from this page on". SQS on AWS and on the local stack (the emulator). Each product
 * request waits EVALUATION_DELAY_SECONDS, so that a burst of changes to one product is evaluated
 * once, after it; a dataspace page is handled at once.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { sendInBatches } from './send-batches.ts';
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
    // A page has nothing to coalesce: the next page follows without waiting.
    await sendInBatches(this.sqs, this.queueUrl, messages, 'evaluation messages', (message) => (isFanOutPage(message) ? 0 : this.delaySeconds));
  }

}
