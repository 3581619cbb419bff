/**
 * The local SQS event-source mapping against the real SQS emulator: the queues ensureQueues builds,
 * the SQSEvent the poller delivers, and what it deletes, keeps and lets redrive to the DLQ.
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { startQueuePoller, type QueuePoller, type QueuePollerOptions } from '../../bin/local/queue-poller.ts';
import { ensureQueues, type QueueEndpoints } from '../../bin/local/queues.ts';
import { createSqsClient } from '../../shared/aws/clients.ts';
import type { QueueDefinition } from '../../shared/resources.ts';

const REGION = 'eu-west-1';
const suffix = randomUUID().slice(0, 8);
let sqs: SQSClient;
let queueCount = 0;
const pollers: QueuePoller[] = [];
const pollerErrors: unknown[] = [];

/**
 * A queue of its own for each test: 1 s visibility, and redrive only after ten receives, so a test
 * may read what is left without the poller's late receives having moved it to the DLQ.
 */
function aQueueDefinition(overrides: Partial<QueueDefinition> = {}): QueueDefinition {
  queueCount++;
  return {
    localName: `queue-poller-${suffix}-${queueCount}`,
    urlEnvVar: 'TEST_QUEUE_URL',
    visibilityTimeoutSeconds: 1,
    maxReceiveCount: 10,
    retentionDays: 1,
    deadLetterRetentionDays: 2,
    ...overrides,
  };
}

async function aQueue(overrides: Partial<QueueDefinition> = {}): Promise<QueueEndpoints> {
  const { work } = await ensureQueues(sqs, { work: aQueueDefinition(overrides) });
  return work;
}

type Handler = QueuePollerOptions['handler'];

function startPoller(queue: QueueEndpoints, handler: Handler, options: Partial<QueuePollerOptions> = {}): QueuePoller {
  const poller = startQueuePoller({
    sqs,
    queueUrl: queue.url,
    queueArn: queue.arn,
    region: REGION,
    batchSize: 10,
    handler,
    onError: (error) => pollerErrors.push(error),
    ...options,
  });
  pollers.push(poller);
  return poller;
}

/** Records every invocation; `respond` decides each outcome. */
function recordingHandler(respond: (event: SQSEvent, call: number) => SQSBatchResponse | void | Promise<SQSBatchResponse | void>) {
  const calls: { event: SQSEvent; context: Context }[] = [];
  const handler: Handler = async (event, context) => {
    calls.push({ event, context });
    return respond(event, calls.length);
  };
  return { calls, handler };
}

async function send(queue: QueueEndpoints, ...bodies: string[]): Promise<string[]> {
  const { Successful } = await sqs.send(
    new SendMessageBatchCommand({
      QueueUrl: queue.url,
      Entries: bodies.map((body, index) => ({ Id: String(index), MessageBody: body })),
    }),
  );
  return bodies.map((_, index) => Successful?.find((entry) => entry.Id === String(index))?.MessageId ?? '');
}

/** Visible plus in flight: every message still on the queue. */
async function messagesOn(queueUrl: string): Promise<number> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return Number(Attributes?.['ApproximateNumberOfMessages']) + Number(Attributes?.['ApproximateNumberOfMessagesNotVisible']);
}

/** Bodies left on the queue, read directly once their visibility timeout has run out. */
async function bodiesLeftOn(queueUrl: string): Promise<string[]> {
  const { Messages } = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 2, VisibilityTimeout: 30 }),
  );
  return (Messages ?? []).map((message) => message.Body ?? '').sort();
}

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 8_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('Condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

beforeAll(() => {
  sqs = createSqsClient({ region: REGION, endpoint: inject('sqsEndpoint') });
});

afterEach(async () => {
  await Promise.all(pollers.splice(0).map((poller) => poller.stop()));
  expect(pollerErrors.splice(0)).toEqual([]);
});

afterAll(() => {
  sqs.destroy();
});

describe('ensureQueues', () => {
  it('creates each queue with its dead-letter queue and the redrive settings of its definition', async () => {
    const definition = aQueueDefinition({ visibilityTimeoutSeconds: 7, maxReceiveCount: 3, retentionDays: 2, deadLetterRetentionDays: 5 });

    const { work } = await ensureQueues(sqs, { work: definition });

    const { Attributes: main } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: work.url, AttributeNames: ['All'] }));
    expect(main?.['VisibilityTimeout']).toBe('7');
    expect(main?.['MessageRetentionPeriod']).toBe(String(2 * 86_400));
    expect(main?.['QueueArn']).toBe(work.arn);
    expect(JSON.parse(main?.['RedrivePolicy'] ?? '{}')).toEqual({ deadLetterTargetArn: work.dlqArn, maxReceiveCount: 3 });
    const { Attributes: dlq } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: work.dlqUrl, AttributeNames: ['All'] }));
    expect(dlq?.['MessageRetentionPeriod']).toBe(String(5 * 86_400));
    expect(dlq?.['QueueArn']).toBe(work.dlqArn);
    expect(work.dlqArn.endsWith(`:${definition.localName}-dlq`)).toBe(true);
  });

  it('is idempotent and brings existing queues up to their definition', async () => {
    const definition = aQueueDefinition({ visibilityTimeoutSeconds: 7 });
    const first = await ensureQueues(sqs, { work: definition });

    const second = await ensureQueues(sqs, { work: { ...definition, visibilityTimeoutSeconds: 9, maxReceiveCount: 4 } });

    expect(second.work).toEqual(first.work);
    const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: second.work.url, AttributeNames: ['All'] }));
    expect(Attributes?.['VisibilityTimeout']).toBe('9');
    expect(JSON.parse(Attributes?.['RedrivePolicy'] ?? '{}')).toEqual({ deadLetterTargetArn: first.work.dlqArn, maxReceiveCount: 4 });
  });
});

describe('startQueuePoller', () => {
  it('delivers the SQSEvent Lambda sends, with a Lambda context', async () => {
    const queue = await aQueue();
    const body = JSON.stringify({ productId: 'p-1' });
    const sent = await sqs.send(
      new SendMessageCommand({
        QueueUrl: queue.url,
        MessageBody: body,
        MessageAttributes: {
          kind: { DataType: 'String', StringValue: 'evaluate' },
          attempt: { DataType: 'Number', StringValue: '3' },
          blob: { DataType: 'Binary', BinaryValue: new Uint8Array([1, 2, 3]) },
        },
      }),
    );
    const { calls, handler } = recordingHandler(() => undefined);

    startPoller(queue, handler, { functionName: 'evaluator', timeoutSeconds: 30 });
    await waitFor(() => calls.length > 0);

    const { event, context } = calls[0]!;
    expect(event.Records).toHaveLength(1);
    const record: SQSRecord = event.Records[0]!;
    expect(record).toEqual({
      messageId: sent.MessageId,
      receiptHandle: expect.any(String),
      body,
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: expect.stringMatching(/^\d{13}$/),
        SenderId: expect.any(String),
        ApproximateFirstReceiveTimestamp: expect.stringMatching(/^\d{13}$/),
      },
      messageAttributes: {
        kind: { stringValue: 'evaluate', stringListValues: [], binaryListValues: [], dataType: 'String' },
        attempt: { stringValue: '3', stringListValues: [], binaryListValues: [], dataType: 'Number' },
        blob: { binaryValue: Buffer.from([1, 2, 3]).toString('base64'), stringListValues: [], binaryListValues: [], dataType: 'Binary' },
      },
      md5OfMessageAttributes: sent.MD5OfMessageAttributes,
      md5OfBody: createHash('md5').update(body).digest('hex'),
      eventSource: 'aws:sqs',
      eventSourceARN: queue.arn,
      awsRegion: REGION,
    });
    expect(record.receiptHandle).not.toBe('');
    expect(JSON.parse(JSON.stringify(event))).toEqual(event);
    expect(context.functionName).toBe('evaluator');
    expect(context.invokedFunctionArn).toBe(`arn:aws:lambda:${REGION}:000000000000:function:evaluator`);
    expect(context.awsRequestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(context.getRemainingTimeInMillis()).toBeGreaterThan(25_000);
    expect(context.getRemainingTimeInMillis()).toBeLessThanOrEqual(30_000);
  });

  it('deletes every message of a batch the handler completes', async () => {
    const queue = await aQueue();
    await send(queue, 'a', 'b', 'c');
    const { calls, handler } = recordingHandler(() => ({ batchItemFailures: [] }));
    const poller = startPoller(queue, handler);

    await waitFor(() => calls.flatMap((call) => call.event.Records).length >= 3);
    await poller.stop();

    expect(await messagesOn(queue.url)).toBe(0);
    expect(await messagesOn(queue.dlqUrl)).toBe(0);
  });

  it('keeps only the messages listed in batchItemFailures', async () => {
    const queue = await aQueue();
    const [, failingId] = await send(queue, 'a', 'b', 'c');
    const { calls, handler } = recordingHandler(() => ({ batchItemFailures: [{ itemIdentifier: failingId! }] }));
    const poller = startPoller(queue, handler);

    await waitFor(() => calls.length > 0);
    await poller.stop();

    expect(calls[0]!.event.Records.map((record) => record.body)).toEqual(['a', 'b', 'c']);
    expect(await messagesOn(queue.url)).toBe(1);
    expect(await bodiesLeftOn(queue.url)).toEqual(['b']);
  });

  it('keeps the whole batch when the handler throws', async () => {
    const queue = await aQueue();
    await send(queue, 'a', 'b');
    const { calls, handler } = recordingHandler(() => {
      throw new Error('boom');
    });
    const poller = startPoller(queue, handler);

    await waitFor(() => calls.length > 0);
    await poller.stop();

    expect(calls[0]!.event.Records).toHaveLength(2);
    expect(await bodiesLeftOn(queue.url)).toEqual(['a', 'b']);
  });

  it.each([
    ['an empty itemIdentifier', { batchItemFailures: [{ itemIdentifier: '' }] }],
    ['an itemIdentifier of no message in the batch', { batchItemFailures: [{ itemIdentifier: 'not-a-message-id' }] }],
    ['a batchItemFailures that is no list', { batchItemFailures: 'b' }],
  ])('treats %s as a failure of the whole batch', async (_, response) => {
    const queue = await aQueue();
    await send(queue, 'a', 'b');
    const { calls, handler } = recordingHandler(() => response as unknown as SQSBatchResponse);
    const poller = startPoller(queue, handler);

    await waitFor(() => calls.length > 0);
    await poller.stop();

    expect(await bodiesLeftOn(queue.url)).toEqual(['a', 'b']);
  });

  it('lets a message that always fails move to the DLQ after maxReceiveCount receives', async () => {
    const queue = await aQueue({ visibilityTimeoutSeconds: 1, maxReceiveCount: 2 });
    await send(queue, 'poison', 'fine');
    const { calls, handler } = recordingHandler((event) => ({
      batchItemFailures: event.Records.filter((record) => record.body === 'poison').map((record) => ({ itemIdentifier: record.messageId })),
    }));

    startPoller(queue, handler);
    await waitFor(async () => (await messagesOn(queue.dlqUrl)) === 1, 10_000);

    const poisonDeliveries = calls.flatMap((call) => call.event.Records).filter((record) => record.body === 'poison');
    expect(poisonDeliveries.map((record) => record.attributes.ApproximateReceiveCount)).toEqual(['1', '2']);
    expect(calls.flatMap((call) => call.event.Records).filter((record) => record.body === 'fine')).toHaveLength(1);
    expect(await messagesOn(queue.url)).toBe(0);
    expect(await bodiesLeftOn(queue.dlqUrl)).toEqual(['poison']);
  });

  it('splits messages into batches of batchSize', async () => {
    const queue = await aQueue();
    await send(queue, 'a', 'b', 'c', 'd', 'e');
    const { calls, handler } = recordingHandler(() => undefined);

    startPoller(queue, handler, { batchSize: 2 });
    await waitFor(() => calls.flatMap((call) => call.event.Records).length >= 5);

    expect(calls.map((call) => call.event.Records.length)).toEqual([2, 2, 1]);
    expect(calls.flatMap((call) => call.event.Records.map((record) => record.body)).sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('gathers more than ten messages into one batch within the batching window', async () => {
    const queue = await aQueue({ visibilityTimeoutSeconds: 30 });
    const bodies = Array.from({ length: 13 }, (_, index) => `m${index}`);
    await send(queue, ...bodies.slice(0, 10));
    await send(queue, ...bodies.slice(10));
    const { calls, handler } = recordingHandler(() => undefined);

    startPoller(queue, handler, { batchSize: 20, maxBatchingWindowSeconds: 1 });
    await waitFor(() => calls.length > 0);

    expect(calls[0]!.event.Records.map((record) => record.body).sort()).toEqual([...bodies].sort());
  });

  it('handles up to maxConcurrency batches side by side, never more, and one at a time without it', async () => {
    const run = async (maxConcurrency: number | undefined) => {
      const queue = await aQueue({ visibilityTimeoutSeconds: 30 });
      await send(queue, 'a', 'b', 'c', 'd', 'e', 'f');
      let running = 0;
      let most = 0;
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const { calls, handler } = recordingHandler(async () => {
        running += 1;
        most = Math.max(most, running);
        await released;
        running -= 1;
      });
      const poller = startPoller(queue, handler, { batchSize: 1, ...(maxConcurrency === undefined ? {} : { maxConcurrency }) });
      // Held batches never end until released: the poller must start the next ones meanwhile, up to its bound.
      await waitFor(() => calls.length >= (maxConcurrency ?? 1));
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const startedWhileHeld = calls.length;
      release();
      await waitFor(() => calls.length === 6);
      await poller.stop();
      expect(await messagesOn(queue.url)).toBe(0);
      return { startedWhileHeld, most };
    };

    expect(await run(4)).toEqual({ startedWhileHeld: 4, most: 4 });
    expect(await run(undefined)).toEqual({ startedWhileHeld: 1, most: 1 });
  }, 30_000);

  it('stop() waits for the batches in flight and their deletion', async () => {
    const queue = await aQueue({ visibilityTimeoutSeconds: 30 });
    await send(queue, 'one', 'two');
    let finished = 0;
    const { calls, handler } = recordingHandler(async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      finished += 1;
    });
    const poller = startPoller(queue, handler, { batchSize: 1, maxConcurrency: 2 });
    await waitFor(() => calls.length === 2);

    await poller.stop();

    expect(finished).toBe(2);
    expect(await messagesOn(queue.url)).toBe(0);
  });

  it('stop() waits for the batch in flight and its deletion', async () => {
    const queue = await aQueue({ visibilityTimeoutSeconds: 30 });
    await send(queue, 'slow');
    let finished = false;
    const { calls, handler } = recordingHandler(async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      finished = true;
    });
    const poller = startPoller(queue, handler);
    await waitFor(() => calls.length > 0);

    await poller.stop();

    expect(finished).toBe(true);
    expect(await messagesOn(queue.url)).toBe(0);
  });
});
