/**
 * Partial batch responses for the queue and stream consumers, on Powertools' BatchProcessor: each
 * record is handed to a record handler, and a record whose handler throws is reported in
 * `batchItemFailures` (ReportBatchItemFailures), so only it comes back. Record handlers log what they
 * handle; this module logs nothing.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { QUEUES, type QueueName } from '../resources.ts';
import { countMetric } from '../observability/metrics.ts';
import type {
  Context,
  DynamoDBBatchResponse,
  DynamoDBRecord,
  DynamoDBStreamEvent,
  SQSBatchResponse,
  SQSEvent,
  SQSRecord,
} from 'aws-lambda';

/**
 * A stream record after an earlier record of its batch failed: it was not handled, and is reported
 * failed with it, so that nothing overtakes the failed record.
 */
class SkippedAfterFailureError extends Error {
  constructor() {
    super('Not handled: an earlier record of the batch failed');
    this.name = 'SkippedAfterFailureError';
  }
}

/**
 * The options both kinds of consumers share.
 * - One record at a time, in order, as the consumers did before: a stream must keep its order, and
 *   a queue batch stays as gentle on the table as one record is.
 * - No FullBatchFailureError when every record fails: the reply lists them all instead. Lambda and the
 *   local pollers retry the same records either way, but a thrown error is a function error: the
 *   runtime logs it a second time, it counts in the Errors metric, and on a stream mapping with
 *   BisectBatchOnFunctionError it splits the batch, which a reported failure does not.
 */
const options = (context: Context | undefined, processInParallel = false) => ({
  ...(context ? { context } : {}),
  processInParallel,
  throwOnFullBatchFailure: false,
});

/**
 * An SQS batch of `queue` (standard queues: none of the service's queues is FIFO): each message is
 * handled on its own, and exactly the messages whose handler threw are reported. A message that fails
 * its last receive (the queue's maxReceiveCount) moves to the dead-letter queue: it is counted in the
 * DeadLettered metric, since SQS's own NumberOfMessagesSent does not count messages a redrive policy moves.
 * `inParallel`: the messages are handled all at once instead of one after another (the webhook consumers,
 * whose time goes into waiting for receivers: a slow one then holds up only its own message).
 */
export async function processQueueBatch(
  queue: QueueName,
  event: SQSEvent,
  context: Context | undefined,
  handle: (record: SQSRecord) => Promise<void>,
  { inParallel = false }: { inParallel?: boolean } = {},
): Promise<SQSBatchResponse> {
  const lastReceive = QUEUES[queue].maxReceiveCount;
  const counted = async (record: SQSRecord): Promise<void> => {
    try {
      await handle(record);
    } catch (error) {
      if (Number(record.attributes?.ApproximateReceiveCount ?? 1) >= lastReceive) countMetric('DeadLettered', 1, queue);
      throw error;
    }
  };
  // A processor per invocation: outside Lambda (the local runner, tests) Powertools keeps a processor's
  // state on the instance, which two calls of one handler at the same time would share.
  const processor = new BatchProcessor(EventType.SQS);
  const response = await processPartialResponse(event, counted, processor, options(context, inParallel));
  return { batchItemFailures: [...response.batchItemFailures] };
}

/**
 * A DynamoDB stream batch (one shard's records, in order). Powertools handles every record and reports
 * each failed one by its sequence number; Lambda retries from the lowest. Left at that, records after
 * a failure would be handled before the failed one is retried, out of order. So the first failure
 * stops the batch: the records after it are not handled and are reported failed with it.
 */
export async function processStreamBatch(
  event: DynamoDBStreamEvent,
  context: Context | undefined,
  handle: (record: DynamoDBRecord) => Promise<void>,
): Promise<DynamoDBBatchResponse> {
  // Powertools leaves a failed record without a sequence number out of its reply, which would drop it
  // silently; Lambda always sets one, so a record without it fails the invocation instead.
  if (event.Records?.some((record) => !record.dynamodb?.SequenceNumber)) {
    throw new Error('A stream record without a sequence number');
  }
  let failed = false;
  const inOrder = async (record: DynamoDBRecord): Promise<void> => {
    if (failed) throw new SkippedAfterFailureError();
    try {
      await handle(record);
    } catch (error) {
      failed = true;
      throw error;
    }
  };
  const processor = new BatchProcessor(EventType.DynamoDBStreams);
  const response = await processPartialResponse(event, inOrder, processor, options(context));
  return { batchItemFailures: [...response.batchItemFailures] };
}

/** A queue message's body as JSON; undefined when it is not JSON (the record handler refuses it). */
export function messageBody(record: SQSRecord): unknown {
  try {
    return JSON.parse(record.body);
  } catch {
    return undefined;
  }
}
