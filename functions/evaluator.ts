/**
 * The evaluation queue → the evaluator: each product of the batch is evaluated once (its latest
 * request), and the messages of a product that failed are reported for retry (partial batch
 * failure); after the queue's maxReceiveCount they move to the dead-letter queue.
 */
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { EvaluationRequestSchema, type EvaluationRequest } from '../shared/aws/evaluation-queue.ts';
import { evaluationService, lambdaHandler, type Dependencies } from '../shared/runtime.ts';
import type { EvaluationService } from '../shared/services/evaluation.ts';
import { processQueueBatch } from '../shared/aws/partial-batch.ts';
import { logger } from '../shared/observability/logger.ts';

/** A message that is no evaluation request: failing it sends it to the dead-letter queue after a few receives. */
class MalformedRequestError extends Error {
  constructor(messageId: string) {
    super(`Message ${messageId} is not an evaluation request`);
    this.name = 'MalformedRequestError';
  }
}

export const makeHandler =
  ({ evaluation }: Pick<Dependencies, 'evaluation'>) =>
  (event: SQSEvent, context?: Context): Promise<SQSBatchResponse> =>
    evaluateBatch(evaluation, event, context);

export const handler = lambdaHandler((c) => makeHandler({ evaluation: evaluationService(c) }));

async function evaluateBatch(evaluation: EvaluationService, event: SQSEvent, context?: Context): Promise<SQSBatchResponse> {
  // Coalescing spans the batch, which a record handler alone cannot see: every message is read first,
  // so that a product is evaluated once, as of its latest request. Its messages then share that one
  // evaluation, and all of them fail (and come back) when it fails.
  const requests = new Map<string, EvaluationRequest>();
  const latest = new Map<string, string>();
  for (const record of event.Records ?? []) {
    const parsed = EvaluationRequestSchema.safeParse(safeJson(record.body));
    if (!parsed.success) continue;
    requests.set(record.messageId, parsed.data);
    const { product, requestedAt } = parsed.data;
    const current = latest.get(product);
    if (current === undefined || requestedAt > current) latest.set(product, requestedAt);
  }
  const evaluations = new Map<string, Promise<void>>();
  const evaluateOnce = (product: string): Promise<void> => {
    let evaluated = evaluations.get(product);
    if (!evaluated) {
      evaluated = evaluate(evaluation, product, latest.get(product)!);
      evaluations.set(product, evaluated);
    }
    return evaluated;
  };
  return processQueueBatch(event, context, async (record: SQSRecord) => {
    const request = requests.get(record.messageId);
    if (!request) {
      logger.error('Malformed evaluation request', { messageId: record.messageId });
      throw new MalformedRequestError(record.messageId);
    }
    await evaluateOnce(request.product);
  });
}

/** One evaluation, logged once however many messages asked for it. */
async function evaluate(evaluation: EvaluationService, product: string, requestedAt: string): Promise<void> {
  try {
    const outcome = await evaluation.evaluate(product, { requestedAt });
    logger.debug('Evaluated', { product, outcome: outcome.outcome });
  } catch (error) {
    logger.error('Evaluation failed', { product, error: error as Error });
    throw error;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
