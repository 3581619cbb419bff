/**
 * The table's stream → the evaluation queue: each change record that can change an evaluation
 * (filter criteria select them) is mapped to the products it affects, and each product is queued
 * once per batch. A record that fails is reported alone (partial batch failure) and retried.
 */
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { changeTargets } from '../shared/domain/change-records.ts';
import { changeRecordOf } from '../shared/store/change-targets.ts';
import { getChangeTargets, getEvaluationQueue } from '../shared/runtime.ts';
import { isoWithOffset } from '../shared/domain/time.ts';
import { logger } from '../shared/logger.ts';

const resolver = getChangeTargets();

export async function handler(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const queue = getEvaluationQueue();
  const queued = new Set<string>();
  for (const [index, record] of event.Records.entries()) {
    try {
      const products = await resolver.products(changeTargets(changeRecordOf(record)));
      const fresh = products.filter((product) => !queued.has(product.uuid));
      const requestedAt = isoWithOffset(new Date());
      await queue.send(fresh.map((product) => ({ dataspace: product.dataspace, product: product.uuid, requestedAt })));
      for (const product of fresh) queued.add(product.uuid);
    } catch (error) {
      logger.error('Could not route a change record', { eventID: record.eventID, error: error as Error });
      // Stream batches are ordered: report this record, and Lambda retries from it.
      return { batchItemFailures: event.Records.slice(index, index + 1).map((r) => ({ itemIdentifier: r.dynamodb!.SequenceNumber! })) };
    }
  }
  return { batchItemFailures: [] };
}
