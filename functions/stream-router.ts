/**
 * The table's stream → the evaluation queue: each change record that can change an evaluation
 * (filter criteria select them) is mapped to the products it affects, and each product is queued
 * once per batch and correlation id, with that id. The first record that fails stops the batch: it and the records after it are
 * reported (partial batch failure), and Lambda retries from it.
 */
import { randomUUID } from 'node:crypto';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { changeTargets } from '../shared/domain/change-records.ts';
import { changeRecordOf } from '../shared/store/change-targets.ts';
import { changeTargetResolver, evaluationQueue, lambdaHandler, type Dependencies } from '../shared/runtime.ts';
import { isoWithOffset } from '../shared/domain/time.ts';
import { processStreamBatch } from '../shared/aws/partial-batch.ts';
import { logger } from '../shared/observability/logger.ts';
import { instrumented, withCorrelation } from '../shared/observability/invocation.ts';
import { streamCorrelationId } from '../shared/observability/correlation.ts';

type RouterDependencies = Pick<Dependencies, 'changeTargetResolver' | 'evaluationQueue'>;

export const makeHandler =
  (deps: RouterDependencies) =>
    instrumented((event: DynamoDBStreamEvent, context?: Context): Promise<DynamoDBBatchResponse> => route(deps, event, context));

export const handler = lambdaHandler((c) => makeHandler({ changeTargetResolver: changeTargetResolver(c), evaluationQueue: evaluationQueue(c) }));

async function route(deps: RouterDependencies, event: DynamoDBStreamEvent, context?: Context): Promise<DynamoDBBatchResponse> {
  const resolver = deps.changeTargetResolver;
  const queue = deps.evaluationQueue;
  // Coalescing spans the batch, which a record handler alone cannot see: a product already queued by an
  // earlier record of this invocation, with the same correlation id, is not queued again. (A product
  // queued under two ids gets two messages, which the evaluator still evaluates once: each path finds
  // the evaluation in the logs under its own id.) Records that carry no id (deletes, writes made outside
  // the API) share one for the batch, so that they coalesce as before.
  const queued = new Set<string>();
  const batchCorrelationId = randomUUID();
  return processStreamBatch(event, context, (record: DynamoDBRecord) =>
    withCorrelation(streamCorrelationId(record) ?? batchCorrelationId, async (correlationId) => {
      try {
        const products = await resolver.products(changeTargets(changeRecordOf(record)));
        const fresh = products.filter((product) => !queued.has(`${product.uuid}|${correlationId}`));
        if (fresh.length === 0) return;
        const requestedAt = isoWithOffset(new Date());
        await queue.send(fresh.map((product) => ({ dataspace: product.dataspace, product: product.uuid, requestedAt, correlationId })));
        for (const product of fresh) queued.add(`${product.uuid}|${correlationId}`);
        // A change of a license may queue every product of its dataspace: the line names the first few.
        logger.info('Evaluations queued', { eventID: record.eventID, count: fresh.length, products: fresh.slice(0, 10).map((product) => product.uuid) });
      } catch (error) {
        logger.error('Could not route a change record', { eventID: record.eventID, error: error as Error });
        throw error;
      }
    }),
  );
}
