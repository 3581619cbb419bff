/**
 * The table's stream → the evaluation queue: each change record that can change an evaluation
 * (filter criteria select them) is mapped to the products it affects, and each product is queued
 * once per batch. The first record that fails stops the batch: it and the records after it are
 * reported (partial batch failure), and Lambda retries from it.
 */
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { changeTargets } from '../shared/domain/change-records.ts';
import { changeRecordOf } from '../shared/store/change-targets.ts';
import { changeTargetResolver, evaluationQueue, lambdaHandler, type Dependencies } from '../shared/runtime.ts';
import { isoWithOffset } from '../shared/domain/time.ts';
import { processStreamBatch } from '../shared/aws/partial-batch.ts';
import { logger } from '../shared/observability/logger.ts';

type RouterDependencies = Pick<Dependencies, 'changeTargetResolver' | 'evaluationQueue'>;

export const makeHandler =
  (deps: RouterDependencies) =>
  (event: DynamoDBStreamEvent, context?: Context): Promise<DynamoDBBatchResponse> =>
    route(deps, event, context);

export const handler = lambdaHandler((c) => makeHandler({ changeTargetResolver: changeTargetResolver(c), evaluationQueue: evaluationQueue(c) }));

async function route(deps: RouterDependencies, event: DynamoDBStreamEvent, context?: Context): Promise<DynamoDBBatchResponse> {
  const resolver = deps.changeTargetResolver;
  const queue = deps.evaluationQueue;
  // Coalescing spans the batch, which a record handler alone cannot see: the products already queued
  // by an earlier record of this invocation are not queued again.
  const queued = new Set<string>();
  return processStreamBatch(event, context, async (record: DynamoDBRecord) => {
    try {
      const products = await resolver.products(changeTargets(changeRecordOf(record)));
      const fresh = products.filter((product) => !queued.has(product.uuid));
      const requestedAt = isoWithOffset(new Date());
      await queue.send(fresh.map((product) => ({ dataspace: product.dataspace, product: product.uuid, requestedAt })));
      for (const product of fresh) queued.add(product.uuid);
    } catch (error) {
      logger.error('Could not route a change record', { eventID: record.eventID, error: error as Error });
      throw error;
    }
  });
}
