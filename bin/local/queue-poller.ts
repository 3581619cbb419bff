/**
 * The local stand-in for a Lambda SQS event-source mapping with ReportBatchItemFailures: it long-polls
 * a queue, calls the function with the SQSEvent Lambda would send, and deletes what succeeded.
 * Failed messages stay on the queue, come back after the visibility timeout, and the queue's redrive
 * policy moves them to the dead-letter queue after maxReceiveCount receives, as on AWS.
 *
 * One batch at a time unless `maxConcurrency` says more (the mapping's MaximumConcurrency): then the
 * loop keeps receiving while up to that many batches are being handled, as Lambda runs several
 * invocations per queue. That changes throughput and interleaving, never which messages end where.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  type Message,
  type MessageAttributeValue,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord, SQSRecordAttributes } from 'aws-lambda';
import { lambdaContext } from './lambda-context.ts';

export interface QueuePollerOptions {
  sqs: SQSClient;
  queueUrl: string;
  queueArn: string;
  region: string;
  /** Messages per invocation, as the mapping's BatchSize. */
  batchSize: number;
  /** How long to gather messages before invoking, as MaximumBatchingWindowInSeconds (0 by default). */
  maxBatchingWindowSeconds?: number | undefined;
  /** Batches handled at once, as the mapping's MaximumConcurrency (1 by default). */
  maxConcurrency?: number | undefined;
  handler: (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;
  /** Errors of the poller itself (not of the handler, whose failures are the queue's business). */
  onError?: (error: unknown) => void;
  /** For the context object: the function's name and timeout. */
  functionName?: string;
  timeoutSeconds?: number;
}

export interface QueuePoller {
  /** Ends the loop; resolves once the batches in flight have been handled and deleted. */
  stop(): Promise<void>;
}

/** Short, so that stop() never waits long for a receive that finds nothing. */
const WAIT_TIME_SECONDS = 1;
const MAX_MESSAGES_PER_RECEIVE = 10;

export function startQueuePoller(options: QueuePollerOptions): QueuePoller {
  const onError = options.onError ?? ((error: unknown) => console.error(`[queue-poller ${options.queueUrl}]`, error));
  const functionName = options.functionName ?? `local-${options.queueArn.split(':').at(-1) ?? 'queue'}-consumer`;
  const timeoutMs = (options.timeoutSeconds ?? 30) * 1000;
  let stopped = false;

  async function receive(maxMessages: number, waitTimeSeconds: number): Promise<Message[]> {
    const { Messages } = await options.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: options.queueUrl,
        MaxNumberOfMessages: maxMessages,
        WaitTimeSeconds: waitTimeSeconds,
        AttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    return Messages ?? [];
  }

  /** One batch: the first receive long-polls; with a batching window, more receives fill the batch. */
  async function receiveBatch(): Promise<Message[]> {
    const batch = await receive(Math.min(MAX_MESSAGES_PER_RECEIVE, options.batchSize), WAIT_TIME_SECONDS);
    const windowMs = (options.maxBatchingWindowSeconds ?? 0) * 1000;
    if (batch.length === 0 || windowMs <= 0) return batch;
    const deadline = Date.now() + windowMs;
    while (batch.length < options.batchSize && !stopped) {
      const remainingMs = deadline - Date.now();
      if (remainingMs <= 0) break;
      const more = await receive(
        Math.min(MAX_MESSAGES_PER_RECEIVE, options.batchSize - batch.length),
        remainingMs >= 1000 ? WAIT_TIME_SECONDS : 0,
      );
      batch.push(...more);
      if (more.length === 0 && remainingMs < 1000) await sleep(Math.min(remainingMs, 100));
    }
    return batch;
  }

  async function handleBatch(messages: Message[]): Promise<void> {
    const records = messages.map((message) => toRecord(message, options.queueArn, options.region));
    let failedIds: Set<string> | 'all';
    try {
      const response = await options.handler({ Records: records }, lambdaContext(functionName, timeoutMs, { region: options.region }));
      failedIds = failedMessageIds(response, records);
    } catch {
      // A function error fails the whole batch: nothing is deleted, everything comes back.
      failedIds = 'all';
    }
    if (failedIds === 'all') return;
    const done = messages.filter((message) => !failedIds.has(message.MessageId ?? ''));
    await deleteMessages(done);
  }

  async function deleteMessages(messages: Message[]): Promise<void> {
    for (let start = 0; start < messages.length; start += MAX_MESSAGES_PER_RECEIVE) {
      const chunk = messages.slice(start, start + MAX_MESSAGES_PER_RECEIVE);
      const { Failed } = await options.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: options.queueUrl,
          Entries: chunk.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle })),
        }),
      );
      if (Failed && Failed.length > 0) {
        onError(new Error(`Could not delete ${Failed.length} message(s): ${JSON.stringify(Failed)}`));
      }
    }
  }

  const maxConcurrency = Math.max(1, options.maxConcurrency ?? 1);
  const inFlight = new Set<Promise<void>>();
  const loop = (async () => {
    while (!stopped) {
      try {
        // A slot must be free before receiving: a received message waits for nobody.
        while (inFlight.size >= maxConcurrency) await Promise.race(inFlight);
        const messages = await receiveBatch();
        if (messages.length === 0) continue;
        const handled: Promise<void> = handleBatch(messages)
          .catch(onError)
          .finally(() => inFlight.delete(handled));
        inFlight.add(handled);
      } catch (error) {
        onError(error);
        if (!stopped) await sleep(500);
      }
    }
  })();

  return {
    async stop() {
      stopped = true;
      await loop;
      await Promise.all(inFlight);
    },
  };
}

/**
 * The messages to keep, by Lambda's rules for a partial batch response: no response or an empty list
 * is full success; an identifier that is missing, empty or not a message of the batch fails it all.
 */
function failedMessageIds(response: unknown, records: SQSRecord[]): Set<string> | 'all' {
  if (response === undefined || response === null || typeof response !== 'object') return new Set();
  const failures = (response as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === undefined || failures === null) return new Set();
  if (!Array.isArray(failures)) return 'all';
  const inBatch = new Set(records.map((record) => record.messageId));
  const failed = new Set<string>();
  for (const failure of failures as unknown[]) {
    const id = typeof failure === 'object' && failure !== null ? (failure as { itemIdentifier?: unknown }).itemIdentifier : undefined;
    if (typeof id !== 'string' || !inBatch.has(id)) return 'all';
    failed.add(id);
  }
  return failed;
}

/** A received message as one record of the SQSEvent Lambda delivers. */
function toRecord(message: Message, queueArn: string, region: string): SQSRecord {
  const received = message.Attributes ?? {};
  const { ApproximateReceiveCount, SentTimestamp, SenderId, ApproximateFirstReceiveTimestamp, ...others } = received;
  const attributes: SQSRecordAttributes = {
    ApproximateReceiveCount: ApproximateReceiveCount ?? '1',
    SentTimestamp: SentTimestamp ?? '',
    SenderId: SenderId ?? '',
    ApproximateFirstReceiveTimestamp: ApproximateFirstReceiveTimestamp ?? '',
    // AWSTraceHeader and, on FIFO queues, SequenceNumber, MessageGroupId, MessageDeduplicationId.
    ...others,
  };
  const record: SQSRecord = {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes,
    messageAttributes: toMessageAttributes(message.MessageAttributes ?? {}),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: region,
  };
  if (message.MD5OfMessageAttributes) record.md5OfMessageAttributes = message.MD5OfMessageAttributes;
  return record;
}

/** SQS's MessageAttributeValue in Lambda's camel-cased shape, binary values base64-encoded. */
function toMessageAttributes(attributes: Record<string, MessageAttributeValue>): SQSMessageAttributes {
  const result: SQSMessageAttributes = {};
  for (const [name, value] of Object.entries(attributes)) {
    result[name] = {
      ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}),
      ...(value.BinaryValue !== undefined ? { binaryValue: base64(value.BinaryValue) } : {}),
      stringListValues: value.StringListValues ?? [],
      binaryListValues: (value.BinaryListValues ?? []).map(base64),
      dataType: value.DataType ?? 'String',
    };
  }
  return result;
}

function base64(bytes: Uint8Array | string): string {
  return typeof bytes === 'string' ? bytes : Buffer.from(bytes).toString('base64');
}
