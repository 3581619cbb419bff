/**
 * The evaluation queue → the evaluator: each product of the batch is evaluated once (its latest
 * request), and the messages of a product that failed are reported for retry (partial batch
 * failure); after the queue's maxReceiveCount they move to the dead-letter queue.
 *
 * A batch is sized by packages, not messages: once the invocation has evaluated
 * EVALUATION_PACKAGES_PER_INVOCATION packages, or spent half its time, the products it has not
 * started are handed back to the queue (sent again, not failed: a large batch must not use up
 * receives and end in the DLQ). At most one page of a dataspace-wide re-evaluation is handled per
 * invocation (shared/services/evaluation-fan-out.ts); other pages of the batch are handed back too.
 */
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { EvaluationMessageSchema, isFanOutPage, type EvaluationMessage, type EvaluationRequest } from '../shared/aws/evaluation-queue.ts';
import { evaluationFanOut, evaluationQueue, evaluationService, lambdaHandler, type Dependencies } from '../shared/runtime.ts';
import type { EvaluationOutcome, EvaluationService } from '../shared/services/evaluation.ts';
import type { EvaluationFanOut } from '../shared/services/evaluation-fan-out.ts';
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

/** `config`: EVALUATION_PACKAGES_PER_INVOCATION, the packages evaluated before the rest of a batch is handed back. */
type EvaluatorDependencies = Pick<Dependencies, 'evaluation' | 'evaluationQueue' | 'config'> & { readonly evaluationFanOut: Pick<EvaluationFanOut, 'page'> };

export const makeHandler = (deps: EvaluatorDependencies) =>
  instrumented((event: SQSEvent, context?: Context): Promise<SQSBatchResponse> => evaluateBatch(deps, event, context));

export const handler = lambdaHandler((c) =>
  makeHandler({
    evaluation: evaluationService(c),
    // Made when first used (a batch to hand back, a dataspace page): most batches need no queue.
    evaluationQueue: { send: (messages) => evaluationQueue(c).send(messages) },
    evaluationFanOut: { page: (page) => evaluationFanOut(c).page(page) },
    config: c.config,
  }),
);

/** What became of a product's messages: its evaluation, or handed back to the queue for a later invocation. */
type Handled = EvaluationOutcome | { readonly outcome: 'handed back' };

async function evaluateBatch(deps: EvaluatorDependencies, event: SQSEvent, context?: Context): Promise<SQSBatchResponse> {
  const { evaluation, evaluationQueue: queue, evaluationFanOut: fanOut } = deps;
  // Coalescing spans the batch, which a record handler alone cannot see: every message is read first,
  // so that a product is evaluated once, as of its latest request (whose correlation id its events
  // carry). Its messages then share that one evaluation, and all of them fail (and come back) when it fails.
  const messages = new Map<string, EvaluationMessage>();
  const latest = new Map<string, EvaluationRequest>();
  for (const record of event.Records ?? []) {
    const parsed = EvaluationMessageSchema.safeParse(messageBody(record));
    if (!parsed.success) continue;
    messages.set(record.messageId, parsed.data);
    if (isFanOutPage(parsed.data)) continue;
    const current = latest.get(parsed.data.product);
    if (current === undefined || parsed.data.requestedAt > current.requestedAt) latest.set(parsed.data.product, parsed.data);
  }
  // The batch's budget: packages evaluated, and time (half of what the invocation had at its start,
  // so that the product started last, as large as the largest seen, still ends before the timeout).
  let packages = 0;
  const startedWith = context?.getRemainingTimeInMillis();
  const spent = () =>
    packages >= deps.config.EVALUATION_PACKAGES_PER_INVOCATION || (startedWith !== undefined && context!.getRemainingTimeInMillis() < startedWith / 2);
  const handled = new Map<string, Promise<Handled>>();
  const evaluateOnce = (product: string): Promise<Handled> => {
    let done = handled.get(product);
    if (!done) {
      const request = latest.get(product)!;
      done = spent()
        ? queue.send([request]).then(() => ({ outcome: 'handed back' as const }))
        : evaluate(evaluation, request).then((outcome) => {
          if (outcome.outcome === 'evaluated') packages += outcome.packages;
          return outcome;
        });
      handled.set(product, done);
    }
    return done;
  };
  let pageHandled = false;
  return processQueueBatch('evaluation', event, context, async (record: SQSRecord) => {
    const message = messages.get(record.messageId);
    await withCorrelation(message?.correlationId, async () => {
      if (!message) {
        logger.error('Malformed evaluation request', { messageId: record.messageId });
        throw new MalformedRequestError(record.messageId);
      }
      if (isFanOutPage(message)) {
        if (pageHandled) {
          await queue.send([message]);
          logger.info('Dataspace page handed back', { dataspace: message.dataspace });
          return;
        }
        pageHandled = true;
        const page = await fanOut.page(message);
        logger.info('Dataspace page queued', { dataspace: message.dataspace, products: page.queued, next: page.next });
        return;
      }
      const outcome = await evaluateOnce(message.product);
      // One line per message, under the message's own correlation id: each path that asked finds the evaluation.
      logger.info('Evaluation request handled', {
        product: message.product,
        outcome: outcome.outcome,
        ...(outcome.outcome === 'evaluated'
          ? { events: outcome.events.map((event) => event.type), packages: outcome.packages }
          : outcome.outcome === 'skipped'
            ? { reason: outcome.reason }
            : {}),
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
