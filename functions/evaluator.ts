/**
 * The evaluation queue → the evaluator: each product of the batch is evaluated once (its latest
 * request), and the messages of a product that failed are reported for retry (partial batch
 * failure); after the queue's maxReceiveCount they move to the dead-letter queue.
 */
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { EvaluationRequestSchema, type EvaluationRequest } from '../shared/aws/evaluation-queue.ts';
import { evaluationService, lambdaHandler, type Dependencies } from '../shared/runtime.ts';
import type { EvaluationOutcome, EvaluationService } from '../shared/services/evaluation.ts';
import { messageBody, processQueueBatch } from '../shared/aws/partial-batch.ts';
import { logger } from '../shared/observability/logger.ts';
import { instrumented, withCorrelation } from '../shared/observability/invocation.ts';
import { countMetric } from '../shared/observability/metrics.ts';
import { VIOLATION_DETECTED, VIOLATION_RESOLVED } from '../shared/events/policy-events.ts';

/** A message that is no evaluation request: failing it sends it to the dead-letter queue after a few receives. */
class MalformedRequestError extends Error {
  constructor(messageId: string) {
    super(`Message ${messageId} is not an evaluation request`);
    this.name = 'MalformedRequestError';
  }
}

export const makeHandler =
  ({ evaluation }: Pick<Dependencies, 'evaluation'>) =>
    instrumented((event: SQSEvent, context?: Context): Promise<SQSBatchResponse> => evaluateBatch(evaluation, event, context));

export const handler = lambdaHandler((c) => makeHandler({ evaluation: evaluationService(c) }));

async function evaluateBatch(evaluation: EvaluationService, event: SQSEvent, context?: Context): Promise<SQSBatchResponse> {
  // Coalescing spans the batch, which a record handler alone cannot see: every message is read first,
  // so that a product is evaluated once, as of its latest request (whose correlation id its events
  // carry). Its messages then share that one evaluation, and all of them fail (and come back) when it fails.
  const requests = new Map<string, EvaluationRequest>();
  const latest = new Map<string, EvaluationRequest>();
  for (const record of event.Records ?? []) {
    const parsed = EvaluationRequestSchema.safeParse(messageBody(record));
    if (!parsed.success) continue;
    requests.set(record.messageId, parsed.data);
    const current = latest.get(parsed.data.product);
    if (current === undefined || parsed.data.requestedAt > current.requestedAt) latest.set(parsed.data.product, parsed.data);
  }
  const evaluations = new Map<string, Promise<EvaluationOutcome>>();
  const evaluateOnce = (product: string): Promise<EvaluationOutcome> => {
    let evaluated = evaluations.get(product);
    if (!evaluated) {
      evaluated = evaluate(evaluation, latest.get(product)!);
      evaluations.set(product, evaluated);
    }
    return evaluated;
  };
  return processQueueBatch('evaluation', event, context, async (record: SQSRecord) => {
    const request = requests.get(record.messageId);
    await withCorrelation(request?.correlationId, async () => {
      if (!request) {
        logger.error('Malformed evaluation request', { messageId: record.messageId });
        throw new MalformedRequestError(record.messageId);
      }
      const outcome = await evaluateOnce(request.product);
      // One line per message, under the message's own correlation id: each path that asked finds the evaluation.
      logger.info('Evaluation request handled', {
        product: request.product,
        outcome: outcome.outcome,
        ...(outcome.outcome === 'evaluated' ? { events: outcome.events.map((event) => event.type) } : { reason: outcome.reason }),
      });
    });
  });
}

/** One evaluation, counted and logged once however many messages asked for it. */
async function evaluate(evaluation: EvaluationService, request: EvaluationRequest): Promise<EvaluationOutcome> {
  // Its writes carry the id too: the outbox publisher reads it from the outbox event's stream record.
  const run = async (correlationId: string): Promise<EvaluationOutcome> => {
    try {
      const outcome = await evaluation.evaluate(request.product, { requestedAt: request.requestedAt, correlationId });
      if (outcome.outcome === 'evaluated') {
        countMetric('Evaluations', 1);
        for (const event of outcome.events) {
          const data = event.data as { count?: number; resolved_count?: number };
          if (event.type === VIOLATION_DETECTED) countMetric('ViolationsDetected', data.count ?? 0);
          if (event.type === VIOLATION_RESOLVED) countMetric('ViolationsResolved', data.resolved_count ?? 0);
        }
      }
      return outcome;
    } catch (error) {
      logger.error('Evaluation failed', { product: request.product, error: error as Error });
      throw error;
    }
  };
  return withCorrelation(request.correlationId, run, { stampWrites: true });
}
